"""A gdb command that must be refused, in the middle of a session.

gdb stops a command file at its first error, so a session that goes on
after a refusal runs the command through refused(), sourced with
`source ${repo}/tests/e2e/gdbpy/refusal.py`: the case's EXPECT then reads
gdb's words from a line "refused: MESSAGE".
"""
import gdb


def refused(command: str) -> None:
    """Run command; print "refused: MESSAGE" with gdb's error, or
    "accepted: COMMAND" if it ran (which no such EXPECT matches)."""
    try:
        gdb.execute(command)
    except gdb.error as e:
        print("refused: %s" % e)
    else:
        print("accepted: %s" % command)
