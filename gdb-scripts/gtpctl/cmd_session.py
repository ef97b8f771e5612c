# SPDX-License-Identifier: GPL-2.0
"""gtpctl/cmd_session.py - save-session and start: record a session once,
replay it on any boot of the same kernel build.

save-session reads the definitions from the target (as a reconnecting gdb
does: qTStatus, qTfV/qTsV, qTfP/qTsP) and writes them with every kernel
address as symbol+offset (session.py).  start reads the whole file
against its grammar (session_read.py), checks the kernel and module
builds and binds every reference on this boot (session_bind.py), and only
then talks to the target: QTinit, the definitions, QTDisconnected:1
(gtp-ctl exits and the trace must go on), QTStart.  A definition the
target refuses clears it again (QTinit), so nothing is half-started; a
target that stops answering (--timeout) is reported with the state it was
left in.  arm() is all of it but QTStart, with the connection kept open,
and go() the QTStart: gtp-ctl fleet's host end arms every host before
any starts.
"""
from __future__ import annotations

import argparse
import sys
from typing import List, Tuple

from . import ksyms, remote, session_bind
from .session import Session
from .trace import TraceError, parse_status, status_number


def run_save_session(args: argparse.Namespace) -> None:
    ks = ksyms.Kallsyms()
    with remote.Remote(args.target, timeout=args.timeout) as rem:
        st = rem.send("qTStatus")
        if not st.startswith("T"):
            raise TraceError("%s: unexpected trace status %r" % (args.target, st))
        tsvs = remote.list_pieces(rem, "qTfV", "qTsV")
        pieces = remote.list_pieces(rem, "qTfP", "qTsP")
    if not any(p.startswith("T") for p in pieces):
        raise TraceError("%s has no tracepoints to save: gdb downloads them at "
                         "tstart (define them, tstart; they stay after tstop)" % args.target)
    s = Session.from_target(st, tsvs, pieces, ks)
    text = s.format()
    if args.file == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(args.file, "w") as f:
                f.write(text)
        except OSError as e:
            raise TraceError("cannot write %s: %s" % (args.file, e.strerror or e))
    for a in s.absolutes:
        print("gtp-ctl save-session: warning: 0x%x is not in the kernel image or a "
              "module; the session only starts on this boot" % a, file=sys.stderr)
    if args.file != "-":
        print("saved %d tracepoint(s), %d trace state variable(s) to %s"
              % (len(s.tps), len(s.tsvs), args.file))


def run_start(args: argparse.Namespace) -> None:
    """gtp-ctl start: check the whole file and bind it to this boot, then
    (only then) clear the target and download it."""
    s, rem = arm(args)
    with rem:
        go(rem, args)
    print("started %d tracepoint(s) from %s; disconnected tracing is on "
          "(see gtp-ctl status, stop, save)" % (len(s.tps), args.file))


def arm(args: argparse.Namespace) -> Tuple[Session, remote.Remote]:
    """Everything gtp-ctl start does but QTStart: the session bound and
    downloaded, and the connection to the target kept open for go(), so
    that the start is one packet away (gtp-ctl fleet host arms every host
    before any starts)."""
    s = Session.read(args.file)
    packets = session_bind.packets(s)       # every field and symbol, or nothing sent
    rem = remote.Remote(args.target, timeout=args.timeout)
    try:
        _define(rem, args, packets)
    except BaseException:
        rem.close()
        raise
    return s, rem


def go(rem: remote.Remote, args: argparse.Namespace) -> None:
    """QTStart on an armed target."""
    try:
        _send(rem, "QTStart")
    except remote.RemoteTimeout as e:
        raise TraceError("%s; %s" % (e, _state_after_timeout("QTStart", args.target)))


def _define(rem: remote.Remote, args: argparse.Namespace, packets: List[str]) -> None:
    stage = "before"
    try:
        st = rem.send("qTStatus")
        if st.startswith("T1"):
            raise TraceError("a trace is running on %s; stop it first (gtp-ctl stop)"
                             % args.target)
        frames = status_number(parse_status(st), "tframes")
        if frames and not args.discard:
            raise TraceError("%s holds %d frames of the last trace; save them first "
                             "(gtp-ctl save OUT.tf) or give --discard" % (args.target, frames))
        stage = "QTinit"
        if rem.send("QTinit") != "OK":
            raise TraceError("%s refused QTinit; it holds what it held before" % args.target)
        stage = "defining"
        for pkt in packets + ["QTDisconnected:1"]:
            _send(rem, pkt)
    except remote.RemoteTimeout as e:
        raise TraceError("%s; %s" % (e, _state_after_timeout(stage, args.target)))


def _send(rem: remote.Remote, pkt: str) -> None:
    """pkt, which the target must answer OK; else it is cleared again."""
    r = rem.send(pkt)
    if r != "OK":
        why = "".join(rem.console).strip()
        raise TraceError("the target refused %s (%s)%s; %s" % (
            pkt.split(":")[0], r, ": " + why if why else "", _clear_again(rem)))


def _clear_again(rem: remote.Remote) -> str:
    """Clear a half-defined target; what state it is left in."""
    try:
        if rem.send("QTinit") == "OK":
            return ("the target is cleared again (QTinit): no tracepoints, nothing was "
                    "started, and its earlier tracepoints and frames are gone")
    except TraceError:
        pass
    return ("clearing it again failed: it holds part of this session, not started "
            "(gtp-ctl status shows what; its earlier tracepoints and frames are gone)")


def _state_after_timeout(stage: str, target: str) -> str:
    if stage == "before":
        return "nothing that changes the trace was sent: %s is as it was" % target
    if stage == "QTinit":
        return ("QTinit was sent: %s may have been cleared (its earlier tracepoints "
                "and frames gone); see gtp-ctl status" % target)
    if stage == "QTStart":
        return ("QTStart was sent: the trace may be running with this session "
                "(gtp-ctl status; gtp-ctl stop)")
    return ("%s was cleared (QTinit: its earlier tracepoints and frames are gone) and "
            "holds part of this session, not started; see gtp-ctl status" % target)


def _timeout_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--timeout", type=float, default=remote.DEFAULT_TIMEOUT, metavar="SEC",
                   help="wait at most SEC seconds for each reply of the target "
                   "(default %(default)g)")


def register(sub: argparse._SubParsersAction, formatter: type) -> None:
    p = sub.add_parser("save-session", help="write the target's tracepoints to a session file",
                       description="Write what the target holds (tracepoints with their "
                       "conditions, actions and source strings, trace state variables, "
                       "buffer size and mode, disconnected tracing) to FILE, a text "
                       "file to read and diff.  Every kernel address is kept as "
                       "symbol+offset with the kernel's release and build id, so "
                       "`gtp-ctl start FILE` replays it on another boot (another "
                       "KASLR slide) or another machine with the same kernel build.",
                       formatter_class=formatter)
    p.add_argument("file", metavar="FILE", help="the session file ('-': standard output)")
    remote.add_target_argument(p)
    _timeout_argument(p)
    p.set_defaults(func=run_save_session)

    p = sub.add_parser("start", help="download a saved session and start tracing",
                       description="Check every line of FILE, resolve every "
                       "symbol+offset through /proc/kallsyms on this boot, download the "
                       "tracepoints and start the trace, with disconnected tracing on "
                       "(gtp-ctl exits, the trace goes on).  A malformed or out-of-range "
                       "field, another kernel or module build, a missing symbol or "
                       "module line, an offset past its symbol, or an address that "
                       "cannot be relocated is refused with FILE:LINE, before the "
                       "target is touched; a definition the target refuses clears it "
                       "again, and gtp-ctl says so: nothing is half-started.",
                       formatter_class=formatter)
    p.add_argument("file", metavar="FILE", help="a session file from save-session")
    p.add_argument("--discard", action="store_true",
                   help="start even if the target holds frames of an earlier trace "
                   "(they are lost)")
    remote.add_target_argument(p)
    _timeout_argument(p)
    p.set_defaults(func=run_start)
