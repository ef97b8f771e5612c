# SPDX-License-Identifier: GPL-2.0
"""gtpctl/cmd_session.py - save-session and start: record a session once,
replay it on any boot of the same kernel build.

save-session reads the definitions from the target (as a reconnecting gdb
does: qTStatus, qTfV/qTsV, qTfP/qTsP) and writes them with every kernel
address as symbol+offset (session.py).  start checks the kernel and module
builds, binds every reference through /proc/kallsyms, and only then talks
to the target: QTinit, the definitions, QTDisconnected:1 (gtp-ctl exits
and the trace must go on), QTStart.  Anything refused on the way clears
the target again (QTinit), so nothing is half-started.
"""
import sys

from . import ksyms, remote
from .session import Session
from .trace import TraceError, parse_status, status_number


def run_save_session(args):
    ks = ksyms.Kallsyms()
    with remote.Remote(args.target) as rem:
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


def _load(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise TraceError("cannot read %s: %s" % (path, e.strerror or e))
    return Session.parse(text, path)


def run_start(args):
    s = _load(args.file)
    s.check_kernel()
    packets = s.packets(ksyms.Kallsyms())     # every symbol bound, or nothing sent
    with remote.Remote(args.target) as rem:
        st = rem.send("qTStatus")
        if st.startswith("T1"):
            raise TraceError("a trace is running on %s; stop it first (gtp-ctl stop)"
                             % args.target)
        frames = status_number(parse_status(st), "tframes")
        if frames and not args.discard:
            raise TraceError("%s holds %d frames of the last trace; save them first "
                             "(gtp-ctl save OUT.tf) or give --discard" % (args.target, frames))
        if rem.send("QTinit") != "OK":
            raise TraceError("%s refused QTinit" % args.target)
        for pkt in packets + ["QTDisconnected:1", "QTStart"]:
            r = rem.send(pkt)
            if r != "OK":
                why = "".join(rem.console).strip()
                rem.send("QTinit")
                raise TraceError("the target refused %s (%s)%s; nothing was started" % (
                    pkt.split(":")[0], r, ": " + why if why else ""))
    print("started %d tracepoint(s) from %s; disconnected tracing is on "
          "(see gtp-ctl status, stop, save)" % (len(s.tps), args.file))


def register(sub, formatter):
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
    p.set_defaults(func=run_save_session)

    p = sub.add_parser("start", help="download a saved session and start tracing",
                       description="Resolve every symbol+offset of FILE through "
                       "/proc/kallsyms on this boot, download the tracepoints and "
                       "start the trace, with disconnected tracing on (gtp-ctl exits, "
                       "the trace goes on).  Another kernel build, a missing symbol "
                       "or module, or a constant that cannot be relocated is refused "
                       "with its name, before the target is touched; a definition the "
                       "target refuses clears it again: nothing is half-started.",
                       formatter_class=formatter)
    p.add_argument("file", metavar="FILE", help="a session file from save-session")
    p.add_argument("--discard", action="store_true",
                   help="start even if the target holds frames of an earlier trace "
                   "(they are lost)")
    remote.add_target_argument(p)
    p.set_defaults(func=run_start)
