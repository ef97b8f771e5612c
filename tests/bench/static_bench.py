#!/usr/bin/env python3
"""Guest cycles per call for static tracepoints (run inside the guest).

    tests/vm/run --icount -- python3 tests/bench/static_bench.py [N]

Each case runs the Fig. 11 loop N times (`echo N > /proc/gtp_test`) and
reads the cycles around it (`cat /proc/gtp_test`).  Under -icount the
figures repeat exactly from boot to boot.  Cases:

  unprobed loop                  the tracepoint's static key is off
  empty probe (floor)            gtp_test's own empty probe on the event:
                                 what any static tracepoint tool pays
  gtp trampoline, no-op hit      gtp's register-saving probe (static_debug
                                 "bare"), no condition
  gtp knob, false condition      the same plus the agent expression of the
                                 paper's condition (static_debug "cond")
  gtp static tracepoint, false   the real thing through stock gdb:
                                 gtp-strace ... if 2*counter1+3*counter2 < 0
                                 (JIT, then interpreter with jit=0)

Ratios are given against the floor, for the whole call (cycles per call)
and for the overhead over the unprobed loop.
"""
import sys

from guestlib import gdb_case, loop as _loop, reload_gtp, write

KNOB = "/sys/module/gtptrace/parameters/static_debug"
N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
EVENT = "gtp_test:gtp_test_event"
# 2*rsi + 3*rdx < 0, as gdb compiles it from registers (ext 32: int args)
COND_FALSE_HEX = "260004162022020426000316202203040222001427"


def loop():
    return _loop(N)


def knob_case(cmd):
    write(KNOB, cmd)
    try:
        loop()
        return loop()
    finally:
        write(KNOB, "off")


def main():
    rows = []
    loop()
    base = loop()
    rows.append(("unprobed loop", base, None))
    write("/proc/gtp_test", "tpprobe")
    loop()
    floor = loop()
    write("/proc/gtp_test", "off")
    rows.append(("empty tracepoint probe (floor)", floor, None))
    rows.append(("gtp trampoline, no-op hit", knob_case("bare " + EVENT), None))
    rows.append(("gtp knob, false condition", knob_case("cond %s %s" % (EVENT, COND_FALSE_HEX)), None))
    for label, params in (("jit", ""), ("interp", "jit=0")):
        reload_gtp(params)
        c, fr = gdb_case(N, ["gtp-strace %s if 2*counter1+3*counter2 < 0" % EVENT])
        if c is None:
            print("# gdb case (%s) failed:\n%s" % (label, fr))
            continue
        rows.append(("gtp static tracepoint, false (%s)" % label, c, fr))
    reload_gtp()

    print("static tracepoints: guest cycles per call, N=%d, -icount shift=0 -smp 1" % N)
    print("%-40s %9s %9s %7s %7s %6s" % ("case", "cyc/call", "overhead", "x floor",
                                         "x ovh", "frames"))
    for label, c, fr in rows:
        print("%-40s %9.1f %9.1f %7.2f %7.2f %6s" % (
            label, c, c - base, c / floor, (c - base) / (floor - base),
            "" if fr is None else fr))
    return 0


if __name__ == "__main__":
    sys.exit(main())
