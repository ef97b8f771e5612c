# SPDX-License-Identifier: GPL-2.0
"""gtpctl/cmd_target.py - the stdio, status and stop subcommands: the live
target without gdb on this machine.

stdio copies stdin to /proc/gtp and /proc/gtp to stdout, so a gdb on a
workstation runs

    (gdb) target remote | ssh root@box gtp-ctl stdio

with no listening socket anywhere: ssh authenticates, and the stream is
gdb's own remote protocol (bridge.py drops only the packets gdb resends
while the pipe is still starting).  status and stop speak that protocol
themselves (remote.py).
"""
from __future__ import annotations

import argparse
import os
import select
import sys

from . import remote
from .abi import ax_error_name
from .bridge import Bridge
from .trace import TraceError, parse_status, status_number

# qTStatus stop reasons, as gdb's tstatus words them
_REASONS = {
    "tnotrun": "not run yet",
    "tstop": "stopped",
    "tfull": "stopped: the buffer filled up",
    "tdisconnected": "stopped: gdb disconnected (disconnected tracing off)",
    "tpasscount": "stopped: tracepoint %s reached its pass count",
    "terror": "stopped by an error",
}

def run_stdio(args: argparse.Namespace) -> None:
    fd = remote.open_target(args.target)
    inp, out = sys.stdin.buffer.fileno(), sys.stdout.buffer.fileno()
    bridge = Bridge()
    try:
        while True:
            ready, _, _ = select.select([inp, fd], [], [])
            if inp in ready:
                data = os.read(inp, 65536)
                if not data:
                    return      # gdb went away: closing is its detach
                _write_all(fd, bridge.from_gdb(data))
            if fd in ready:
                data = os.read(fd, 65536)
                if not data:
                    return
                _write_all(out, bridge.from_target(data))
    finally:
        os.close(fd)


def _write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def _hex_text(h: str) -> str:
    """A hex-encoded qTStatus note as text ("" if it is not hex)."""
    try:
        return bytes.fromhex(h).decode(errors="replace")
    except ValueError:
        return ""


def _reason(text):
    """The stop reason of a qTStatus reply, in words."""
    for k, v in parse_status(text).items():
        if k not in _REASONS:
            continue
        if k == "tpasscount":
            return _REASONS[k] % int(v or "0", 16)
        if k in ("tstop", "terror"):
            desc = _hex_text(v.split(":")[0])
            return _REASONS[k] + (" (%s)" % desc if desc else "")
        return _REASONS[k]
    return "unknown"


def run_status(args: argparse.Namespace) -> None:
    with remote.Remote(args.target) as rem:
        st = rem.send("qTStatus")
        if not st.startswith("T"):
            raise TraceError("%s: unexpected trace status %r" % (args.target, st))
        f = parse_status(st)
        running = st.startswith("T1")
        # every location (Trace.add_piece keeps one per tracepoint number)
        tps = []
        for piece in remote.list_pieces(rem, "qTfP", "qTsP"):
            if piece.startswith("T"):
                num, addr = piece[1:].split(":")[:2]
                tps.append((int(num, 16), int(addr, 16), piece.split(":")[2] == "E"))
        counts = {}
        for num, addr, _ in tps:
            r = rem.send("qTP:%x:%x" % (num, addr))
            if r.startswith("V"):
                counts[(num, addr)] = [int(x, 16) for x in r[1:].split(":")]
    size, free = status_number(f, "tsize"), status_number(f, "tfree")
    frames, created = status_number(f, "tframes"), status_number(f, "tcreated")
    used = size - free if size >= free else 0
    print("trace: %s" % ("running" if running else _reason(st)))
    print("frames: %d in the buffer, %d created, %d overwritten or dropped"
          % (frames, created, max(0, created - frames)))
    print("buffer: %d of %d bytes used (%.1f%%), %s" % (
        used, size, 100.0 * used / size if size else 0.0,
        "circular" if f.get("circular") == "1" else "stops when full"))
    print("disconnected tracing: %s" % ("on" if f.get("disconn") == "1" else "off"))
    if not tps:
        print("no tracepoints defined")
    for num, addr, enabled in tps:
        c = counts.get((num, addr), [])
        hits, usage = (c + [0, 0])[:2]
        line = "tracepoint %d at 0x%x%s: %d hits, %d bytes" % (
            num, addr, "" if enabled else " (disabled)", hits, usage)
        if len(c) >= 4:
            line += ", %d errors" % c[2]
            if c[2]:
                last = ax_error_name(c[3])
                line += " (last: %s)" % last
        if len(c) >= 5:         # the CPU budget's estimate (core/budget.h)
            line += ", ~%.1f ms of CPU" % (c[4] / 1000.0)
        print(line)
    notes = _hex_text(f.get("notes", ""))
    if notes:
        print("notes: %s" % notes)


def run_stop(args: argparse.Namespace) -> None:
    with remote.Remote(args.target) as rem:
        st = rem.send("qTStatus")
        if not st.startswith("T1"):
            print("trace: not running (%s)" % _reason(st))
            return
        r = rem.send("QTStop")
        for text in rem.console:       # what gdb would show at tstop
            sys.stdout.write(text)
        if r != "OK":
            raise TraceError("%s refused QTStop: %s" % (args.target, r))
        st = rem.send("qTStatus")
        print("trace: %s, %d frames"
              % (_reason(st), status_number(parse_status(st), "tframes")))


def register(sub: argparse._SubParsersAction, formatter: type[argparse.HelpFormatter]) -> None:
    p = sub.add_parser("stdio", help="bridge gdb's remote protocol over stdin/stdout",
                       description="Copy stdin to /proc/gtp and /proc/gtp to stdout, "
                       "so that a gdb elsewhere runs `target remote | ssh root@box "
                       "gtp-ctl stdio`: no listening socket, ssh authenticates.  Ends "
                       "when stdin closes (gdb detached or quit).",
                       formatter_class=formatter)
    remote.add_target_argument(p)
    p.set_defaults(func=run_stdio)

    p = sub.add_parser("status", help="is a trace running, frames, buffer, per-tracepoint hits",
                       description="The target's trace status: running or why it "
                       "stopped, frames and buffer use, and per tracepoint its hits, "
                       "frame bytes and evaluation errors.",
                       formatter_class=formatter)
    remote.add_target_argument(p)
    p.set_defaults(func=run_status)

    p = sub.add_parser("stop", help="stop the running trace (frames stay readable)",
                       description="Stop the running trace, as gdb's tstop: the "
                       "probes are detached and the frames stay on the target.",
                       formatter_class=formatter)
    remote.add_target_argument(p)
    p.set_defaults(func=run_stop)
