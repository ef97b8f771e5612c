"""Helpers for gtp's guest end-to-end tests (run inside the guest).

Every test drives *stock gdb* against the real /proc/gtp of the running
guest kernel; nothing here imitates the kernel side.
"""
import contextlib
import functools
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "lib"))
import tap  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GTP_PY = os.path.join(REPO, "gdb-scripts", "gtp.py")
# The modules tests/vm/run loaded (built for this guest's kernel).
KMOD_DIR = os.environ.get("GTP_KMOD_DIR", REPO)
TEST_KO = os.path.join(KMOD_DIR, "tracepoints", "gtp_test.ko")
GTP_KO = os.path.join(KMOD_DIR, "module", "gtptrace.ko")
# Loading it again as tests/vm/run did: with no default CPU budget.
GTP_INSMOD = "insmod %s cpu_budget=0" % GTP_KO
# The gdb under test: stock gdb from PATH, or another build (GTP_GDB, e.g.
# trixie's gdb 16 or gdb 18 through tests/vm/gdb-in-root).
GDB = os.environ.get("GTP_GDB", "gdb")

# The CPU's hardware counters (perf's "cpu" PMU), which $perf_cycles
# reads: a TCG guest has none.
HAVE_PMU = os.path.exists("/sys/bus/event_source/devices/cpu")


# gdb set up for batch output with gtp.py sourced, nothing loaded or
# connected yet: what every session's preamble starts with.
GTP_HEAD = """set pagination off
set confirm off
set width 0
source %s
""" % GTP_PY

# The gdb preamble of a session: symbols first, then the target (on
# connect gdb re-creates the target's tracepoints from their source
# strings, which needs gtp_test's symbols).
GDB_HEAD = GTP_HEAD + """gtp-load-module gtp_test
target remote /proc/gtp
"""

# gdb's words for a bug on either side: no session may print them.
GDB_BUGS = (r"Fatal signal|internal-error|Remote connection closed|"
            r"Bogus|Malformed|Remote failure")
# ... nor, in a session that runs gtp.py's commands, a Python error.
SCRIPT_BUGS = GDB_BUGS + "|Traceback|Python Exception"

TARGET = "target remote /proc/gtp"

# The gdb-side Python of the tests: files a session sources, then calls
# with arguments (a case: "source ${repo}/tests/e2e/gdbpy/NAME.py").
GDBPY = os.path.join(REPO, "tests", "e2e", "gdbpy")


def raw_packets(*pkts):
    """Send packets straight to /proc/gtp (no gdb); return the replies."""
    fd = os.open("/proc/gtp", os.O_RDWR)
    replies = []
    try:
        for p in pkts:
            raw = p.encode()
            os.write(fd, b"$" + raw + b"#%02x" % (sum(raw) & 0xff))
            data = b""
            while not re.search(rb"\$[^#]*#[0-9a-f]{2}$", data):
                data += os.read(fd, 4096)
            replies.append(data.decode())
    finally:
        os.close(fd)
    return replies


def reset_target():
    """Forget what earlier tests left: definitions, frames, buffer modes."""
    raw_packets("QTStop", "QTinit", "QTBuffer:circular:0",
                "QTBuffer:size:-1", "QTDisconnected:0")


# gtp-ctl, the tool for boxes without gdb (docs/production.md)
GTP_CTL = os.path.join(REPO, "gdb-scripts", "gtp-ctl")
CTL_PRE = GTP_HEAD + "gtp-load-module gtp_test\n"


# a session whose condition and action read a module global: gdb encodes
# its address in the bytecode and as an absolute memory range
MOD_GLOBAL = """trace gtp_test_function if gtp_test_calls > 3
actions
collect gtp_test_calls
end
tstart
shell echo 2 > /proc/gtp_test
tstop
"""


def leaves_target_clean(fn):
    """The next test file expects a target where no trace has run."""
    @functools.wraps(fn)
    def run():
        try:
            fn()
        finally:
            reset_target()
    return run


def ctl(*args):
    """Run gtp-ctl ARGS: (status, stdout, stderr)."""
    p = subprocess.run([GTP_CTL] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def ctl_session(body, target="target remote /proc/gtp"):
    """One gdb with gtp_test's symbols, on target, running body."""
    out = gdb_script(CTL_PRE + target + "\n" + body, timeout=300)
    expect_not(out, SCRIPT_BUGS)
    return out


def connect(*cmds):
    """gdb connected to gtp with gtp_test's symbols loaded first: the target
    may hold another test's definitions, which gdb re-parses on connect."""
    return gdb("source %s" % GTP_PY, "gtp-load-module gtp_test", TARGET, *cmds)


# gtp's module parameters (knobs): jit, jit_mem, jit_images, static_debug.
PARAMS = "/sys/module/gtptrace/parameters"
STATIC_KNOB = os.path.join(PARAMS, "static_debug")


def param(name, value=None):
    """Write value (if given) to gtp's module parameter name; return its text."""
    path = os.path.join(PARAMS, name)
    if value is not None:
        with open(path, "w") as f:
            f.write(value)
    with open(path) as f:
        return f.read()


def knob(cmd=None):
    """The static probe's debug knob (static_debug): a command such as
    "capture SYS:EVENT", "cond SYS:EVENT HEX" or "off" if given, then its
    state ("attached=N hits=N true=N sdata=...")."""
    return param("static_debug", cmd)


class Timeout(AssertionError):
    pass


# Skip: raised by a test that cannot run here; the reason says why (TAP
# SKIP).  Only for a feature the running kernel truly lacks, never to hide
# a failure.  The one TAP runner's own (tests/lib/tap.py).
Skip = tap.Skip


def _run(argv, timeout):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        raise Timeout("timed out after %ss: %s\n%s" % (timeout, argv, out))
    return p.stdout.decode(errors="replace")


def gdb(*cmds, timeout=120, args=()):
    """Run stock gdb in batch mode with each of cmds as an -ex command."""
    argv = [GDB, "-nx", "-q", "-batch"] + list(args)
    for c in cmds:
        argv += ["-ex", c]
    return _run(argv, timeout)


def gdb_script(text, timeout=120, args=()):
    """Run stock gdb in batch mode on a command file (python blocks allowed)."""
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", dir="/tmp", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        return _run([GDB, "-nx", "-q", "-batch"] + list(args) + ["-x", path], timeout)
    finally:
        os.unlink(path)


def session(head, body, bad=SCRIPT_BUGS, timeout=120):
    """gdb's output for head + body on a reset target; fails on bad."""
    reset_target()
    out = gdb_script(head + body, timeout=timeout)
    expect_not(out, bad)
    return out


def sh(cmd, timeout=300):
    """Run a shell command in the guest; raise with its output if it fails."""
    p = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=timeout)
    out = p.stdout.decode(errors="replace")
    if p.returncode != 0:
        raise AssertionError("command failed (%d): %s\n%s" % (p.returncode, cmd, out))
    return out


def ksym(name, mod=None):
    """Address of a symbol from /proc/kallsyms (first match; with mod, the
    one of that module)."""
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[2] == name and \
                    (mod is None or parts[3:] == ["[%s]" % mod]):
                return int(parts[0], 16)
    raise AssertionError("symbol %s not in /proc/kallsyms" % name)


def dumped_memory(dump, item, size):
    """[(address hex, value)] of the size-byte memory blocks `gtp-ctl dump`
    named item."""
    return re.findall(r"^  memory 0x([0-9a-f]+), %d bytes \(%s\): .* = (-?\d+)$"
                      % (size, re.escape(item)), dump, re.M)


def frames_collected(out):
    """Every frame count gdb's tstatus printed, in order."""
    return [int(n) for n in re.findall(
        r"(?:Collected|Buffer contains) (\d+) trace frames", out)]


def hammers(n=1, calls=2000):
    """n shell loops running the Fig. 11 loop (calls each) forever, each
    in its own process group; end them with stop_hammers()."""
    return [subprocess.Popen(
        ["sh", "-c", "while :; do echo %d > /proc/gtp_test; done" % calls],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=os.setsid) for _ in range(n)]


def stop_hammers(procs):
    for p in procs:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def values(out, expr):
    """Every 'EXPR = N' line gdb printed (tdump, print), as integers, in order."""
    pat = r"^%s = (-?\d+)$" % re.escape(expr)
    return [int(v) for v in re.findall(pat, out, re.M)]


def tdump_all(n):
    """gdb commands: tdump frames 0..n-1."""
    return "".join("tfind %d\ntdump\n" % i for i in range(n)) + "tfind none\n"


# The paper's Fig. 12 session; %s completes the condition ("> 0", "< 0").
FIG12 = """trace gtp_test_function if 2*counter1+3*counter2 %s
actions
collect (2*counter1+3*counter2)
end
tstart
shell echo 5 > /proc/gtp_test
tstop
tstatus
info tracepoints
"""


def expect(text, regex, flags=re.M):
    """Assert that regex matches somewhere in text; return the match."""
    m = re.search(regex, text, flags)
    if not m:
        raise AssertionError("expected /%s/ in output:\n%s" % (regex, text))
    return m


def expect_not(text, regex, flags=re.M):
    m = re.search(regex, text, flags)
    if m:
        raise AssertionError("unexpected /%s/ (%r) in output:\n%s" % (regex, m.group(0), text))


# The kernel log's reports of a problem.  Between the markers
# expected_log() writes, a test has asked the kernel for backtraces (sysrq):
# there only SEVERE counts (run.py here, tests/vm/run on the console).
BAD = re.compile(r"Oops|BUG:|WARNING:|general protection|Kernel panic|Call Trace|RIP:")
SEVERE = re.compile(r"Oops|BUG:|WARNING:|general protection|Kernel panic")
LOG_BEGIN, LOG_END = "gtp-e2e: expected log begin", "gtp-e2e: expected log end"


@contextlib.contextmanager
def expected_log(reason):
    """Mark the kernel log lines printed inside as asked for (reason)."""
    with open("/dev/kmsg", "w") as f:
        f.write("%s: %s\n" % (LOG_BEGIN, reason))
    try:
        yield
    finally:
        with open("/dev/kmsg", "w") as f:
            f.write(LOG_END + "\n")


def log_problems(lines):
    """The lines of a kernel log that report a problem."""
    bad, inside = [], False
    for line in lines:
        if LOG_BEGIN in line:
            inside = True
        elif LOG_END in line:
            inside = False
        elif (SEVERE if inside else BAD).search(line):
            bad.append(line)
    return bad


def dmesg():
    return sh("dmesg")


_past_fentry = None


def past_fentry():
    """Offset of gtp_test_function's first instruction after its fentry call.

    An instruction boundary that is not the ftrace site, for probes that
    must be int3/jump kprobes: 5 on kernels without IBT (call __fentry__
    first), 9 with IBT (endbr64, then the call).  Read from the module's
    own code with gdb, not assumed.
    """
    global _past_fentry
    if _past_fentry is None:
        out = _run([GDB, "-nx", "-q", "-batch", TEST_KO,
                    "-ex", "x/3i gtp_test_function"], 60)
        rows = re.findall(r"<gtp_test_function(?:\+(\d+))?>:\s+(\S+)", out)
        for i, (off, op) in enumerate(rows):
            if op.startswith("call") and i + 1 < len(rows):
                _past_fentry = int(rows[i + 1][0] or 0)
                break
        else:
            raise AssertionError("no fentry call at the start of gtp_test_function:\n" + out)
    return _past_fentry
