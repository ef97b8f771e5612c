"""Another ftrace user that changes the ip, on a function where gtp has its
own direct trampoline (module/probes/ftrace_direct.c): a live patch
(tracepoints/gtp_test_klp.ko, cmdline_proc_show()), an ftrace_ops with
FTRACE_OPS_FL_IPMODIFY, or a kprobe with a post-handler at the function's
entry (tracepoints/gtp_test_kppost.ko), which kprobes carry on such an
ops.  The other user must get the function, and gtp's tracepoint must go
on collecting; `attached` says how it is carried.
What the kernels did before and do now: docs/kernels.md.

Python, not a case: the live patch's unload waits for the kernel's
transition, and the module's path is the build's.
"""
import os
import re
import time

from gtplib import (GDB_HEAD, KMOD_DIR, expect, expect_not, frames_collected,
                    gdb_script, ksym, leaves_target_clean, reset_target, sh,
                    SCRIPT_BUGS, Skip)

KLP_KO = os.path.join(KMOD_DIR, "tracepoints", "gtp_test_klp.ko")
KLP = "/sys/kernel/livepatch/gtp_test_klp"
KPPOST_KO = os.path.join(KMOD_DIR, "tracepoints", "gtp_test_kppost.ko")
KPPOST = "/sys/module/gtp_test_kppost/parameters"

# The tracepoint on its own trampoline, then the other user loaded.
ARM = """trace *0x%(func)x if $rdi != 0
actions
collect $rdi
end
tstart
shell cat /sys/module/gtptrace/parameters/attached
shell %(other)s && echo =other-in || echo =other-refused
"""

BODY = ARM + """shell cat /proc/cmdline
shell cat /proc/cmdline
shell cat /proc/cmdline
shell echo "=after"; cat /sys/module/gtptrace/parameters/attached
shell grep -w cmdline_proc_show /sys/kernel/tracing/enabled_functions
tstop
tstatus
"""


def klp_unload():
    """Disable the patch, wait for its transition, unload it."""
    if not os.path.exists(KLP):
        return
    sh("echo 0 > %s/enabled" % KLP)
    for _ in range(300):
        if not os.path.exists(KLP):
            break
        time.sleep(0.1)
    sh("rmmod gtp_test_klp")


@leaves_target_clean
def test_live_patch_on_a_direct_trampoline():
    # Debian's kernels have livepatch; tracepoints/Kbuild builds the
    # patch only for a kernel that has it
    if not os.path.isdir("/sys/kernel/livepatch"):
        raise Skip("this kernel has no livepatch (CONFIG_LIVEPATCH)")
    reset_target()
    try:
        out = gdb_script(GDB_HEAD + BODY % {"func": ksym("cmdline_proc_show"),
                                           "other": "insmod " + KLP_KO},
                         timeout=240)
    finally:
        klp_unload()
    expect_not(out, SCRIPT_BUGS)
    # before the patch: the function's own trampoline
    expect(out, r"^1 0x[0-9a-f]+ direct$")
    # the live patch got the function, and runs
    expect(out, r"^=other-in$")
    expect(out, r"^gtp_test_klp: live patched$")
    # beside it, on the same trampoline, which says so
    expect(out, r"^=after\n1 0x[0-9a-f]+ direct\+ipmodify$")
    # and the tracepoint kept collecting every call
    assert frames_collected(out)[-1] >= 3, out


KPPOST_BODY = ARM + """shell cat /proc/cmdline
shell cat /proc/cmdline
shell cat /proc/cmdline
shell echo "=counts $(cat %(params)s/pre) $(cat %(params)s/post)"
shell echo "=with"; cat /sys/module/gtptrace/parameters/attached
shell rmmod gtp_test_kppost && echo =other-out
shell echo "=without"; cat /sys/module/gtptrace/parameters/attached
shell cat /proc/cmdline
tstop
tstatus
"""


@leaves_target_clean
def test_post_handler_kprobe_on_a_direct_trampoline():
    reset_target()
    try:
        out = gdb_script(GDB_HEAD + KPPOST_BODY % {
            "func": ksym("cmdline_proc_show"), "other": "insmod " + KPPOST_KO,
            "params": KPPOST}, timeout=240)
    finally:
        if os.path.exists(KPPOST):
            sh("rmmod gtp_test_kppost")
    expect_not(out, SCRIPT_BUGS)
    expect(out, r"^1 0x[0-9a-f]+ direct$")
    # the kprobe got the function entry, and both its handlers ran
    expect(out, r"^=other-in$")
    pre, post = map(int, re.search(r"^=counts (\d+) (\d+)$", out,
                                   re.M).groups())
    assert pre >= 3 and post >= 3, out
    # beside it, on the same trampoline, which says so; and alone again
    # once the kprobe is gone (ftrace tells the trampoline's ops)
    expect(out, r"^=with\n1 0x[0-9a-f]+ direct\+ipmodify$")
    expect(out, r"^=other-out$")
    expect(out, r"^=without\n1 0x[0-9a-f]+ direct$")
    # every call collected: three beside the kprobe, one after it
    assert frames_collected(out)[-1] >= 4, out
