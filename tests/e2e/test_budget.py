"""One step budget per probe hit, on a real kernel, through stock gdb.

Every evaluation of a hit -- its condition and each action -- draws on one
budget of AX_STEP_BUDGET bytecode steps: a program pays its insn count when
it starts and every taken backward jump its span (module/core/ax.h).  A
location holds at most as many bytes of bytecode as the budget has steps,
so bytecode that never jumps backward always fits.  gdb never compiles a
backward jump, and sends at most 184 bytes an expression, one action a
packet: its longest action lists run whole.  Only a loop can run out: the
one here is assembled by hand and sent with gdb's `maint packet`, and the
cap is reached with raw packets (a client other than gdb).  gdb's own
longest action list: cases/test_budget.case.
"""
import re

from gtplib import (GDB_HEAD, expect, frames_collected, gdb_script, ksym,
                    raw_packets, reset_target, values,
                    leaves_target_clean)


def _console(reply):
    """The text of the 'O' packets in a raw reply."""
    return "".join(bytes.fromhex(m).decode(errors="replace")
                   for m in re.findall(r"\$O([0-9a-f]+)#", reply))


# Python: speaks the protocol itself (raw packets, a client other than gdb).
def test_location_bytecode_cap_refused():
    # 1000 straight-line reads an action (1010 bytes): 64 of them fit in
    # the 65536 bytes a location may hold, the 65th is refused, saying so
    reset_target()
    addr = ksym("gtp_test_function")
    calls = ksym("gtp_test_calls")
    action = "X3f2,25%016x" % calls + "1a" * 1000 + "27"
    replies = raw_packets("QTinit", "QTDP:1:%x:E:0:0" % addr,
                          *["QTDP:-1:%x:%s" % (addr, action)] * 65)
    assert all(r.endswith("$OK#9a") for r in replies[:66]), replies[:66]
    assert "E01" in replies[66], replies[66]
    expect(_console(replies[66]),
           r"gtp: tracepoint 1: its condition and actions would hold 65650 bytes of "
           r"bytecode, more than the 65536 a location may have \(one hit runs at most "
           r"65536 bytecode steps\)")
    reset_target()


# Python: speaks the protocol itself (gdb's maint packet with addresses
# from /proc/kallsyms in the packets' hex).
@leaves_target_clean
def test_loop_cut_at_budget():
    # Tracepoint 1 on gtp_test_function: $regs, then "$1 += 1", then
    # "L: const8 1; if_goto L; end" (never ends), then "$2 = 1".  The loop
    # runs out of the hit's budget; that ends the hit: $2 is never set,
    # and each frame keeps the registers collected before.
    reset_target()
    addr = ksym("gtp_test_function")
    pkts = ["QTinit",
            "QTDV:1:0:0:61",
            "QTDV:2:0:0:62",
            "QTDP:1:%x:E:0:0" % addr,
            "QTDP:-1:%x:R01ffff-" % addr,
            # getv 1; const8 1; add; setv 1; end
            "QTDP:-1:%x:Xa,2c00012201022d000127-" % addr,
            # L: const8 1; if_goto L; end
            "QTDP:-1:%x:X6,220120000027-" % addr,
            # const8 1; setv 2; end
            "QTDP:-1:%x:X6,22012d000227" % addr,
            "QTStart"]
    script = GDB_HEAD + "".join("maint packet %s\n" % p for p in pkts) + """
shell echo 3 > /proc/gtp_test
tstatus
tstop
maint packet qTV:1
maint packet qTV:2
tstatus
tfind 0
print $pc == %#x
print $rdi
tfind 2
print $rdi
""" % addr
    out = gdb_script(script)
    for p in pkts:
        expect(out, r'^sending: %s\nreceived: "OK"$' % re.escape(p))
    expect(out, r"gtp: tracepoint 1 at %#x: 3 evaluation error\(s\), last: "
                r"step budget exhausted" % addr)
    # the action before the loop ran on every hit, the one after never
    expect(out, r'^sending: qTV:1\nreceived: "V3"$')
    expect(out, r'^sending: qTV:2\nreceived: "V0"$')
    assert frames_collected(out)[-1] == 3, out
    assert values(out, "$1") == [1], out
    assert values(out, "$2") == [1], out
    assert values(out, "$3") == [3], out


# Python: speaks the protocol itself (gdb's maint packet with addresses
# from /proc/kallsyms in the packets' hex).
@leaves_target_clean
def test_cut_frame_holds_no_stale_bytes():
    # Tracepoint 2 on gtp_test_function collects 200 bytes of
    # linux_banner; tracepoint 1 on gtp_test_lines runs "L: const8 1;
    # if_goto L; end", then $regs.  The second run reuses the first's
    # store (a QTStart without QTinit keeps a store of the same size),
    # on the same CPU, so tracepoint 1's frame goes where tracepoint 2's
    # went.  The loop runs out of the hit's budget and ends the hit before
    # the registers: the frame is its header alone, and gdb finds no
    # register in it.  Before, the frame was reserved at its planned size
    # and committed whole, the registers' bytes whatever the store held:
    # tracepoint 2's memory block, served as tracepoint 1's.
    reset_target()
    fn = ksym("gtp_test_function")
    lines = ksym("gtp_test_lines")
    banner = ksym("linux_banner")
    pkts = ["QTinit",
            "QTDP:1:%x:E:0:0" % lines,
            "QTDP:-1:%x:X6,220120000027-" % lines,
            "QTDP:-1:%x:R01ffff" % lines,
            "QTDP:2:%x:E:0:0" % fn,
            "QTDP:-2:%x:M-1,%x,c8" % (fn, banner),
            "QTStart"]
    script = GDB_HEAD + "".join("maint packet %s\n" % p for p in pkts) + """
shell taskset -c 0 sh -c 'echo 1 > /proc/gtp_test'
tstatus
tstop
maint packet QTStart
shell taskset -c 0 sh -c 'echo lines 1 2 > /proc/gtp_test'
tstatus
tstop
tstatus
maint packet qTBuffer:0,6
tfind 0
info registers rdi rip
"""
    out = gdb_script(script)
    for p in pkts:
        expect(out, r'^sending: %s\nreceived: "OK"$' % re.escape(p))
    assert out.count('sending: QTStart\nreceived: "OK"') == 2, out
    expect(out, r"gtp: tracepoint 1 at %#x: 1 evaluation error\(s\), last: "
                r"step budget exhausted" % lines)
    # tracepoint 1 once, then 2 for gtp_test_lines' two calls
    assert frames_collected(out)[-1] == 3, out
    # frame 0: tracepoint 1, no block
    expect(out, r'^sending: qTBuffer:0,6\nreceived: "010000000000"$')
    expect(out, r"^Found trace frame 0, tracepoint 1$")
    expect(out, r"^rdi\s+<unavailable>$")
    # only the pc is known: the tracepoint's address
    expect(out, r"^rip\s+%#x\s" % lines)
