# SPDX-License-Identifier: GPL-2.0
# gdb-scripts/gtp.py - load gtp's gdb commands: `source gdb-scripts/gtp.py`
# in a checkout, `source /usr/share/gtptrace/gtp.py` with the gtptrace-tools
# package installed.
#
# The commands live in the gtpgdb package (see its __init__.py): next to
# this file in a checkout, on Python's path when installed.  This only makes
# a checkout's package importable and imports it.
# Sourcing twice is harmless: the second import is a no-op.
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import gtpgdb  # noqa: E402,F401
