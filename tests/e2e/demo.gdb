# The paper's Fig. 12 session, on the live guest kernel through /proc/gtp.
set trace-commands on
source gdb-scripts/gtp.py
target remote /proc/gtp
tstatus
gtp-ksym linux_banner
x/s $_gtp_ksym
gtp-load-module gtp_test
trace gtp_test_function if 2*counter1+3*counter2 > 0
actions
collect (2*counter1+3*counter2)
end
info tracepoints
tstart
shell echo 10 > /proc/gtp_test
tstop
tstatus
tfind start
print 2*counter1+3*counter2
tfind
print 2*counter1+3*counter2
tfind
print 2*counter1+3*counter2
tdump
tfind none
info tracepoints
# The same probe with a condition that is never true: no frames.
delete
trace gtp_test_function if 2*counter1+3*counter2 < 0
actions
collect (2*counter1+3*counter2)
end
tstart
shell echo 10 > /proc/gtp_test
tstop
tstatus
detach
