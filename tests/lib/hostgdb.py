"""The host tests' gdb (tests/collectable, tests/strcond): a command file
run in batch mode, its output, and no Python error in it."""
import os
import subprocess
import tempfile

# gdb set up for batch output, before each test's own lines.
QUIET = "set confirm off\nset pagination off\nset width 0\n"


def run(script, gdb="gdb", timeout=60):
    """gdb -batch on a command file holding script; its output (stderr
    too).  gtp's scripts must never end in a Python traceback."""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        f.write(script)
    try:
        p = subprocess.run([gdb, "-nx", "-q", "-batch", "-x", f.name],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
    finally:
        os.unlink(f.name)
    out = p.stdout.decode(errors="replace")
    assert "Traceback" not in out and "Python Exception" not in out, out
    return out
