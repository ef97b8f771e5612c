# SPDX-License-Identifier: GPL-2.0
"""gtpctl/main.py - the gtp-ctl front end.

Each subcommand lives in its own module with register(subparsers,
formatter), which adds its parser(s) and sets func; adding a subcommand is
one module and one line in SUBCOMMANDS.  Errors a user can fix
(TraceError, KeyError_) print "gtp-ctl: ..." and exit 1; usage errors
exit 2 (argparse).
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional

from . import cmd_fleet, cmd_frames, cmd_session, cmd_stream, cmd_summary, cmd_target, plot
from .keys import KeyError_
from .trace import TraceError

SUBCOMMANDS = (cmd_summary, plot, cmd_target, cmd_session, cmd_frames, cmd_stream,
               cmd_fleet)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gtp-ctl",
        description="gtp without gdb: look at a trace saved with gdb's tsave, or "
                    "at the stopped trace on /proc/gtp; see and stop the live trace; "
                    "bridge a remote gdb over ssh (stdio); save a session once and "
                    "replay it on any boot of the same kernel (save-session, start); "
                    "write the frames as a gdb trace file or as text (save, dump); "
                    "stream the running trace to a CTF trace for babeltrace2 (stream); "
                    "run one session on several hosts into one relayd (fleet).",
        formatter_class=_Formatter)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for mod in SUBCOMMANDS:
        mod.register(sub, _Formatter)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = parser().parse_args(argv)
    try:
        args.func(args)
    except (TraceError, KeyError_) as e:
        print("gtp-ctl %s: %s" % (args.command, e), file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    return 0
