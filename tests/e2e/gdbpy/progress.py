"""gdb side of test_faults: a loop of gdb commands that says where it is,
so the test can kill gdb at a known step (sourced into gdb; call
progress_loop)."""
import gdb


def progress_loop(n: int, path: str, *cmds: str) -> None:
    """For i < n: write i to path, then run each of cmds with {i}
    replaced by i (output swallowed, as a script's would be)."""
    for i in range(n):
        with open(path, "w") as f:
            f.write(str(i))
        for c in cmds:
            gdb.execute(c.replace("{i}", str(i)), to_string=True)
