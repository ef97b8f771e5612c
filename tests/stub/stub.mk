# gtp-stub: the portable core on stdin/stdout, for `target remote | build/gtp-stub`
# (protocol experiments against a real gdb without booting a guest).
$(BUILD)/gtp-stub: tests/stub/gtp_stub.c $(CORE_OBJS) $(USER_ENV_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(UCFLAGS) $< $(CORE_OBJS) $(USER_ENV_OBJS) -o $@ $(ULIBS)

TOOLS += $(BUILD)/gtp-stub
