# SPDX-License-Identifier: GPL-2.0
"""gtpctl/fleet_wire.py - what gtp-ctl fleet (cmd_fleet.py) and the
gtp-ctl fleet host at the other end of each ssh channel (fleet_host.py)
say to each other: one JSON object a line, on the channel's stdin and
stdout, which carry nothing else.

The host speaks first, {"hello": VERSION}; then the controller asks and
the host answers each request with one object:

    {"cmd": "clock"}                 {"clock": CLOCK_REALTIME ns}
    {"cmd": "stream", ...}           {"ready": true} | {"error": TEXT}
    {"cmd": "start"}                 {"started": CLOCK_REALTIME ns} | {"error": TEXT}
    {"cmd": "stop"}                  {"done": EXIT STATUS, "out": TEXT, "err": TEXT}

The end of the controller's side (ssh gone, the controller killed) is a
stop for the host.
"""
from __future__ import annotations

import json
from typing import Any, BinaryIO

VERSION = 1


class WireError(Exception):
    """A line that is not one of ours."""


def send(f: BinaryIO, **msg: Any) -> None:
    f.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
    f.flush()


def parse(line: bytes) -> dict[str, Any]:
    try:
        msg = json.loads(line)
    except ValueError:
        msg = None
    if not isinstance(msg, dict):
        raise WireError("not a gtp-ctl fleet message: %r" % line[:80])
    return msg
