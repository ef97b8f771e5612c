"""A workload run inside gdb between tstart and tstop: read a file from
its start once per size, so that each size is one vfs_read() with that
count (test_btf's tracepoint on vfs_read if count == 4093)."""
import os
from typing import List


def read_sizes(path: str, sizes: List[int]) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        for s in sizes:
            os.lseek(fd, 0, 0)
            os.read(fd, s)
    finally:
        os.close(fd)
