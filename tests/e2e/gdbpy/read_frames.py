"""Every frame of a trace of vfs_read, from the first: "frame N count=C
name=NAME" with the read's count and its file's name (collected as count
and file->f_path.dentry->d_iname), then "frames=N", the number found.
tests/e2e/test_vmlinux.py checks each count against the tracepoint's
condition and finds its own file's reads by name."""
import gdb


def print_read_frames() -> int:
    n = 0
    while True:
        gdb.execute("tfind %d" % n, to_string=True)
        if int(gdb.parse_and_eval("$trace_frame")) != n:
            break
        count = int(gdb.parse_and_eval("count"))
        name = gdb.parse_and_eval("file->f_path.dentry->d_iname").string().rstrip("\0")
        print("frame %d count=%d name=%s" % (n, count, name))
        n += 1
    print("frames=%d" % n)
    return n
