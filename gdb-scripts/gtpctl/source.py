# SPDX-License-Identifier: GPL-2.0
"""gtpctl/source.py - where a trace comes from: a file or the live target.

Subcommands that read frames call add_arguments(parser) for the common
options (-f FILE | --target PATH) and load(args) for the Trace.
"""
from __future__ import annotations

import argparse

from . import remote, tfile
from .trace import Trace


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("trace source (default: the live target %s)"
                             % remote.DEFAULT_TARGET)
    g.add_argument("-f", "--file", metavar="TFILE",
                   help="a trace file written by gdb's tsave")
    g.add_argument("--target", metavar="PATH", default=None,
                   help="read the stopped trace from this gtp target "
                        "(default %s) with the remote protocol" % remote.DEFAULT_TARGET)


def load(args: argparse.Namespace, origins: bool = False) -> Trace:
    """The Trace args name; origins: each frame's CPU and time from a live
    target (remote.load)."""
    if args.file and args.target:
        raise SystemExit("gtp-ctl: give -f FILE or --target PATH, not both")
    if args.file:
        return tfile.load(args.file)
    return remote.load(args.target or remote.DEFAULT_TARGET, origins)
