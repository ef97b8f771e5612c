# SPDX-License-Identifier: GPL-2.0
# gdb-scripts/gtp.py - load gtp's gdb commands: `source gdb-scripts/gtp.py`.
#
# The commands live in the gtpgdb package next to this file (see its
# __init__.py); this only makes the package importable and imports it.
# Sourcing twice is harmless: the second import is a no-op.
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import gtpgdb  # noqa: E402,F401
