# SPDX-License-Identifier: GPL-2.0
"""gtpctl/main.py - the gtp-ctl front end.

Each subcommand lives in its own module with register(subparsers,
formatter), which adds its parser(s) and sets func; adding a subcommand is
one module, one line in SUBCOMMANDS and its names in COMMANDS.  Errors a user can fix
(TraceError, KeyError_) print "gtp-ctl: ..." and exit 1; usage errors
exit 2 (argparse).
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Optional

from .keys import KeyError_
from .trace import TraceError

# The subcommands' modules, in --help's order.
SUBCOMMANDS = ("cmd_summary", "plot", "cmd_target", "cmd_session", "cmd_frames",
               "cmd_stream", "cmd_fleet")
# Which module registers each subcommand: gtp-ctl imports only the one it
# runs (every one for --help or a name it does not know).  Importing all of
# them is most of a short command's time, and gtp-ctl runs where Python is
# slow: on the host it is 0.25 s for `gtp-ctl status` against 0.06 s for
# cmd_target alone, ten times that in a TCG guest, a hundred under Bochs.
COMMANDS = {
    "hist": "cmd_summary", "count": "cmd_summary", "stats": "cmd_summary",
    "agg": "cmd_summary",
    "plot": "plot",
    "stdio": "cmd_target", "status": "cmd_target", "stop": "cmd_target",
    "save-session": "cmd_session", "start": "cmd_session",
    "save": "cmd_frames", "dump": "cmd_frames",
    "stream": "cmd_stream",
    "fleet": "cmd_fleet",
}


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """gtp-ctl's parser: with command, only that subcommand's module's."""
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
    mods = (COMMANDS[command],) if command in COMMANDS else SUBCOMMANDS
    for name in mods:
        importlib.import_module("." + name, __package__).register(sub, _Formatter)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    # gtp-ctl itself has no option but -h: the first word names the command
    args = parser(argv[0] if argv else None).parse_args(argv)
    try:
        args.func(args)
    except (TraceError, KeyError_) as e:
        print("gtp-ctl %s: %s" % (args.command, e), file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    return 0
