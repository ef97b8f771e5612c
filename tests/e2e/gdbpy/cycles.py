"""Start and stop a trace many times from one gdb session, faster than
a command file of tstart/tstop lines (sourced by e2e sessions, then
`python start_stop(N)`)."""
import gdb


def start_stop(times: int) -> None:
    """tstart then tstop, times times: each one registers and unregisters
    every probe of the trace."""
    for _ in range(times):
        gdb.execute("tstart")
        gdb.execute("tstop")
