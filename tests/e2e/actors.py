"""Workload processes for the e2e tests that must start together when a
gdb session says go (the Cookbook's tests, tests/e2e/test_cookbook*.py).

Each actor sets its own comm, says it is ready, and waits on a FIFO until
gdb's `shell` line (Actors.shell), right after `tstart`, tells it to go;
that line returns when every actor has written one byte to a second FIFO.
So an actor's pid is known before the trace starts, and the trace holds
exactly what it did between go and done.
"""
import os
import subprocess
import sys
import tempfile
from typing import List


class Actors:
    """Workload processes that start together when gdb says go.

    Each runs code (python, after `import os, sys, time`) between go and
    done; the FIFOs live in a directory of their own.  Use as a context
    manager: on exit every actor still running is killed and reaped."""

    PRELUDE = r'''
import os, sys, time
comm, go, done = sys.argv[1:4]
with open("/proc/self/comm", "w") as f:
    f.write(comm)
g = os.open(go, os.O_RDWR)        # O_RDWR: a FIFO opens without a peer
d = os.open(done, os.O_RDWR)
print("ready", flush=True)
'''
    GO = '''
os.read(g, 1)
'''
    POSTLUDE = '''
os.write(d, b"x")
'''

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="gtp-cookbook-", dir="/tmp")
        self.go = os.path.join(self.dir, "go")
        self.done = os.path.join(self.dir, "done")
        os.mkfifo(self.go)
        os.mkfifo(self.done)
        # held open here, so that what an actor writes to done stays there
        # when it exits before gdb's shell line has opened done
        self.fds = [os.open(self.go, os.O_RDWR), os.open(self.done, os.O_RDWR)]
        self.procs: List[subprocess.Popen] = []

    def start(self, comm: str, code: str, go: bool = True) -> int:
        """Start an actor whose comm is comm; return its pid once it waits
        for go (or, unless go, runs code right away and writes no done)."""
        code = self.GO + code + self.POSTLUDE if go else code
        p = subprocess.Popen([sys.executable, "-c", self.PRELUDE + code,
                              comm, self.go, self.done],
                             stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.procs.append(p)
        assert p.stdout.readline() == b"ready\n", comm
        return p.pid

    def start_idle(self, comm: str) -> int:
        """A process that only sleeps (in its own comm) until killed."""
        return self.start(comm, "time.sleep(3600)\n", go=False)

    def shell(self, n: int) -> str:
        """gdb's line that lets the n actors waiting for go run, and
        returns when each has said done."""
        return "shell printf %s > %s; timeout 60 head -c %d %s > /dev/null || " \
            "echo cookbook: actors not done" % ("x" * n, self.go, n, self.done)

    def __enter__(self) -> "Actors":
        return self

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdout.close()
        for fd in self.fds:
            os.close(fd)
        os.unlink(self.go)
        os.unlink(self.done)
        os.rmdir(self.dir)
