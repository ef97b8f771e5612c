"""The test workload, tracepoints/gtp_test.c, behaves as the other tests
assume (docs/testing.md, "The test workload"): the Fig. 11 loop's calls and
arguments, and the floor probes the benchmarks compare against.

Python, not cases: these check the workload itself through the shell,
ftrace and a write's errno, with no gdb session (a case is one).
"""
import errno
import re

from gtplib import expect, sh


def test_fig11_loop_counts_calls():
    sh("echo 17 > /proc/gtp_test")
    out = sh("cat /proc/gtp_test")
    m = expect(out, r"^calls=(\d+) cycles=(\d+)$")
    assert int(m.group(1)) == 17, out
    assert int(m.group(2)) > 0, out


def test_event_fires_with_loop_arguments():
    # The TRACE_EVENT carries (1,0), (2,1), (3,2)...: check through ftrace.
    t = "/sys/kernel/tracing"
    sh("echo 0 > %s/tracing_on; echo > %s/trace" % (t, t))
    sh("echo 1 > %s/events/gtp_test/gtp_test_event/enable" % t)
    sh("echo 1 > %s/tracing_on" % t)
    try:
        sh("echo 3 > /proc/gtp_test")
    finally:
        sh("echo 0 > %s/events/gtp_test/gtp_test_event/enable" % t)
    trace = sh("cat %s/trace" % t)
    got = re.findall(r"gtp_test_event: counter1=(\d+) counter2=(\d+)", trace)
    assert got == [("1", "0"), ("2", "1"), ("3", "2")], trace


def test_floor_baselines_register_and_unregister():
    sh("echo kprobe > /proc/gtp_test")
    try:
        expect(sh("cat /sys/kernel/debug/kprobes/list"), r"gtp_test_function")
    finally:
        sh("echo off > /proc/gtp_test")
    assert "gtp_test_function" not in sh("cat /sys/kernel/debug/kprobes/list")
    try:
        with open("/proc/gtp_test", "w") as f:
            f.write("nonsense")
    except OSError as e:
        assert e.errno == errno.EINVAL, e
    else:
        raise AssertionError("a bad command was accepted")
