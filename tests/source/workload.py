#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The workload tests/source/coverage.py traces: a second or two of the
system calls that reach its functions (files, pipes, poll, epoll, sleeps,
futexes, fork, exec, exit and wait, signals, UNIX and TCP sockets, SysV
messages, page faults), each a few times.  Python's standard library and
libc only.
"""
import ctypes
import fcntl
import mmap
import os
import select
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time


def files(tmp: str) -> None:
    """open, write, lseek, read, close: vfs_*, filemap_read, the page cache."""
    path = os.path.join(tmp, "data")
    fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o600)
    for _ in range(4):
        os.write(fd, b"x" * 4096)
    os.lseek(fd, 0, os.SEEK_SET)
    while os.read(fd, 8192):
        pass
    os.close(fd)
    for _ in range(3):
        with open("/proc/version") as f:
            f.read()


def pipes() -> None:
    """A pipe written and read, polled and waited on with epoll."""
    r, w = os.pipe()
    ep = select.epoll()
    ep.register(r, select.EPOLLIN)
    for i in range(4):
        os.write(w, b"%d" % i * 100)
        p = select.poll()
        p.register(r, select.POLLIN)
        p.poll(100)
        ep.poll(0.1)
        os.read(r, 4096)
    ep.close()
    os.close(r)
    os.close(w)


def sleeps() -> None:
    """nanosleep (hrtimer_nanosleep, do_nanosleep)."""
    for _ in range(3):
        time.sleep(0.01)


def futexes() -> None:
    """Two threads handing a condition back and forth: futex wait and wake."""
    cv = threading.Condition()
    turn = [0]

    def other() -> None:
        for i in range(4):
            with cv:
                cv.wait_for(lambda: turn[0] == 2 * i + 1)
                turn[0] += 1
                cv.notify()
    t = threading.Thread(target=other)
    t.start()
    for i in range(4):
        with cv:
            turn[0] += 1
            cv.notify()
            cv.wait_for(lambda: turn[0] == 2 * i + 2)
    t.join()


def children() -> None:
    """fork, exec, exit, wait; a signal to a sleeping child."""
    for _ in range(2):
        subprocess.run(["/bin/true"], check=True)
    p = subprocess.Popen(["sleep", "5"])
    time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    p.wait()


def loopback_up() -> None:
    """The test guest boots with lo down (a real machine has it up):
    bring it up so that TCP to 127.0.0.1 runs tcp_sendmsg."""
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, req))[1]
        if not flags & IFF_UP:
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def sockets() -> None:
    """A UNIX stream socket pair (the reader waits in schedule_timeout),
    then a TCP connection over loopback."""
    a, b = socket.socketpair()
    reader = threading.Thread(target=lambda: b.recv(4096))
    reader.start()
    time.sleep(0.02)
    a.send(b"x" * 100)
    reader.join()
    for _ in range(3):
        a.send(b"y" * 1000)
        b.recv(4096)
    a.close()
    b.close()
    try:
        loopback_up()
    except OSError:
        return
    with socket.create_server(("127.0.0.1", 0)) as srv:
        c = socket.create_connection(srv.getsockname())
        s, _ = srv.accept()
        for _ in range(3):
            c.sendall(b"z" * 2000)
            s.recv(4096)
        c.close()
        s.close()


def sysv_messages() -> None:
    """msgget, msgsnd, msgrcv, msgctl(IPC_RMID) through libc."""
    libc = ctypes.CDLL(None, use_errno=True)
    IPC_PRIVATE, IPC_CREAT, IPC_RMID = 0, 0o1000, 0
    q = libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)
    if q < 0:
        return
    msg = ctypes.create_string_buffer(struct.pack("l", 1) + b"hello" * 20)
    buf = ctypes.create_string_buffer(256)
    for _ in range(3):
        libc.msgsnd(q, msg, 100, 0)
        libc.msgrcv(q, buf, 200, 0, 0)
    libc.msgctl(q, IPC_RMID, None)


def memory() -> None:
    """An anonymous mapping touched page by page: do_mmap, page faults."""
    m = mmap.mmap(-1, 64 * 4096)
    for i in range(0, len(m), 4096):
        m[i] = 1
    m.close()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gtp-cov-") as tmp:
        files(tmp)
    pipes()
    sleeps()
    futexes()
    children()
    sockets()
    sysv_messages()
    memory()


if __name__ == "__main__":
    main()
