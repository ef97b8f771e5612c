"""Each trace frame of a tracepoint on vfs_read as one line, "frame N
count=C name=NAME" (C: the count argument; NAME: a char array read
through the frame's collected pointers, given as an expression), then
"frames=N": the test checks every frame's condition and finds its own
reads by their file's name."""
import gdb


def print_vfs_read_frames(name_expr: str) -> None:
    n = 0
    while True:
        gdb.execute("tfind %d" % n, to_string=True)
        if int(gdb.parse_and_eval("$trace_frame")) != n:
            break
        count = int(gdb.parse_and_eval("count"))
        name = gdb.parse_and_eval(name_expr).string().rstrip("\0")
        print("frame %d count=%d name=%s" % (n, count, name))
        n += 1
    print("frames=%d" % n)
