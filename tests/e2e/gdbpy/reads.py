"""A workload run from inside gdb, between tstart and tstop: read(2)s of
given sizes, each from the start of one file, so a tracepoint on vfs_read
sees exactly these counts from this process (test_vmlinux, test_btf)."""
import os
from typing import List


def read_sizes(path: str, sizes: List[int]) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        for size in sizes:
            os.lseek(fd, 0, os.SEEK_SET)
            os.read(fd, size)
    finally:
        os.close(fd)
