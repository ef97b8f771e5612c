# SPDX-License-Identifier: GPL-2.0
"""gtpctl/fleet_clock.py - a host's CLOCK_REALTIME against this one's,
measured over the channel gtp-ctl fleet already has to it.

Each probe reads our clock (t0), asks the host for its CLOCK_REALTIME
(r), and reads ours again (t1).  The host read its clock somewhere
between t0 and t1, so r - (t0 + t1) / 2 is its offset to within half the
round trip, whatever the channel's delays either way.  Of several probes
the one with the shortest round trip wins: its bound is the tightest.

The offset goes to the host's `gtp-ctl stream --clock-offset`, which
subtracts it from the real time of the run's clock sample (the DEFS
record's: the host kernel's CLOCK_REALTIME at a TSC value), so the
trace's TSC clock counts from the controller's epoch.  What the bound
leaves out: the host's CLOCK_REALTIME being stepped between the probe and
the run's sample, and the drift of the TSC rate the trace uses (tsc_khz,
kHz-rounded) over a long run.
"""
from __future__ import annotations

import time
from typing import Callable, NamedTuple

PROBES = 8


class Offset(NamedTuple):
    offset_ns: int          # the host's clock minus ours
    uncertainty_ns: int     # |error| at most this: half the round trip
    rtt_ns: int


def measure(ask: Callable[[], int], probes: int = PROBES,
            now: Callable[[], int] = time.time_ns) -> Offset:
    """ask() returns the host's CLOCK_REALTIME in nanoseconds."""
    best = None
    for _ in range(probes):
        t0 = now()
        r = ask()
        t1 = now()
        if best is None or t1 - t0 < best.rtt_ns:
            best = Offset(r - (t0 + t1) // 2, (t1 - t0 + 1) // 2, t1 - t0)
    return best
