"""Peer rows of the table (run inside the guest): bpftrace, ftrace, LTTng.

Each function runs the Fig. 11 loop (loop(): cycles per call) with one
peer attached and returns a table row (table.row), or a failed row saying
why: a peer that is missing or refuses is reported, never dropped.

The peers are Debian's own packages run in the guest; `make bench`'s deps
step installs them when run as root (BENCH_PKGS in tests/bench/guest.mk).
"""
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import time

from guestlib import REPO, write
from table import failed, row

TRACING = "/sys/kernel/tracing"


def _read(path):
    with open(path) as f:
        return f.read()


# --- bpftrace -------------------------------------------------------------

def _wait_for(p, word, timeout):
    """Read p's stdout until it contains word; the text read so far and
    whether it was found.  Straight from the pipe, never through the
    file object's buffer, so that communicate() gets all the rest."""
    text, end = "", time.time() + timeout
    fd = p.stdout.fileno()
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], max(0.1, end - time.time()))
        if not r:
            continue
        chunk = os.read(fd, 65536).decode(errors="replace")
        if not chunk:
            return text, False
        text += chunk
        if word in text:
            return text, True
    return text, False


TRIXIE_BPFTRACE = os.path.join(REPO, "tests", "bench", "trixie-bpftrace")
# Guest seconds for bpftrace to attach.  Under -icount, guest time skips
# ahead while the guest waits for the host (its first start reads LLVM's
# libraries over 9p): on a busy host a few real minutes are thousands of
# guest seconds.  A bpftrace that fails exits, so this only bounds a hang.
READY_S = 3600


def bpftrace(key, label, probe, pred, loop, ref, max_probes=None, why_not=None,
             trixie=False):
    """bpftrace counting the hits where pred holds: @c = count().
    why_not: the row fails with it instead (what the probe lacks).
    trixie: trixie's bpftrace (tests/bench/trixie-bpftrace), for probe
    types bookworm's lacks.
    max_probes: raises bpftrace's limit on attached probes (512), and the
    open files it may have (bookworm's bpftrace 0.17 attaches a wildcard
    as one perf event kprobe per function, a file each)."""
    if why_not:
        return failed(key, label, why_not, ref)
    return _bpftrace(key, label, "%s /%s/ { @c = count(); }" % (probe, pred), loop, ref,
                     lambda text: sum(int(n) for n in re.findall(r"@c: (\d+)", text)),
                     max_probes, TRIXIE_BPFTRACE if trixie else None)


def bpftrace_map(key, label, probe, action, loop, ref):
    """bpftrace aggregating every hit into one map (action: `@ = hist(arg0);`,
    `@[arg1 % 64] = count();`); the hits are the sum of what it printed."""
    return _bpftrace(key, label, "%s { %s }" % (probe, action), loop, ref, _map_total)


def _map_total(text):
    """The counts of a printed map: `@[k]: N` lines, hist() rows."""
    keyed = re.findall(r"^@\[[^\]]*\]: (\d+)$", text, re.M)
    rows = re.findall(r"^[\[(][^|\n]*[\])]\s+(\d+) \|", text, re.M)
    return sum(int(n) for n in keyed + rows)


def bpftrace_version(trixie=False):
    """`bpftrace v0.17.0`, as it says; bookworm's attaches a wildcard as a
    kprobe per function (no kprobe_multi)."""
    exe = TRIXIE_BPFTRACE if trixie else shutil.which("bpftrace")
    if not exe:
        return None
    out = subprocess.run([exe, "--version"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT).stdout.decode(errors="replace")
    return out.strip() or None


GTP_TEST_KO = os.path.join(os.environ.get("GTP_KMOD_DIR", REPO), "tracepoints",
                           "gtp_test.ko")


def gtp_test_btf():
    """Give the loaded gtp_test the BTF that bpftrace's kfunc probes need
    (fentry programs are typed by it).  Kbuild splits a module's BTF from
    vmlinux's, and a headers package has no vmlinux, so our build has none;
    pahole splits it from the running kernel's own (/sys/kernel/btf/vmlinux)
    into a copy, which replaces the module.  None when it has BTF, or why
    not (the kfunc rows then print as failed with it)."""
    if os.path.exists("/sys/kernel/btf/gtp_test"):
        return None
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "the kernel has no BTF"
    pahole = shutil.which("pahole")
    if not pahole:
        return "pahole not installed (dwarves)"
    copy = "/tmp/gtp_test-btf.ko"
    shutil.copyfile(GTP_TEST_KO, copy)
    r = subprocess.run([pahole, "-J", "--btf_base", "/sys/kernel/btf/vmlinux", copy],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=dict(os.environ, LLVM_OBJCOPY="objcopy"))
    if r.returncode:
        return "pahole: " + _last(r.stdout.decode(errors="replace"))
    subprocess.run(["rmmod", "gtp_test"], check=True)
    r = subprocess.run(["insmod", copy], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode:
        subprocess.run(["insmod", GTP_TEST_KO], check=True)
        return "insmod with BTF: " + _last(r.stdout.decode(errors="replace"))
    if not os.path.exists("/sys/kernel/btf/gtp_test"):
        return "the kernel did not take gtp_test's BTF"
    return None


def _more_files():
    resource.setrlimit(resource.RLIMIT_NOFILE, (65536, 65536))


def _bpftrace(key, label, probe_prog, loop, ref, events, max_probes=None, exe=None):
    exe = exe or shutil.which("bpftrace")
    if not exe:
        return failed(key, label, "bpftrace not installed", ref)
    env = more_files = None
    if max_probes:
        env = dict(os.environ, BPFTRACE_MAX_PROBES=str(max_probes))
        more_files = _more_files
    # BEGIN fires once every probe is attached: measure after it.
    prog = 'BEGIN { printf("gtp-ready\\n"); } %s' % probe_prog
    p = subprocess.Popen([exe, "-B", "line", "-e", prog], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                         preexec_fn=more_files)
    try:
        text, ok = _wait_for(p, "gtp-ready", READY_S)
        if not ok:
            p.kill()
            text += p.communicate()[0].decode(errors="replace")
            return failed(key, label, "bpftrace: " + _last(text), ref)
        cyc = loop()
        text += _interrupt(p)
        # detaching a thousand kprobes one by one takes minutes in TCG
        text += p.communicate(timeout=900)[0].decode(errors="replace")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    lost = sum(int(x) for x in re.findall(r"Lost (\d+) events", text))
    return row(key, label, cyc, events(text), lost, ref)


def _interrupt(p):
    """SIGINT until bpftrace starts to exit (it prints its maps first):
    bookworm's sometimes misses the first one (seen with a kfunc probe).
    What it printed meanwhile."""
    text = ""
    for _ in range(30):
        p.send_signal(signal.SIGINT)
        start = time.time()
        more, ok = _wait_for(p, "@", 10)
        text += more
        # found, or the end of its output before the 10 s
        if ok or p.poll() is not None or time.time() - start < 9:
            break
    return text


def _last(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1][:90] if lines else "no output"


# --- ftrace ---------------------------------------------------------------

def _ftrace_counts():
    """(events written, events lost) since the last _ftrace_reset()."""
    head = _read(TRACING + "/trace")[:2000]
    m = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", head)
    written = int(m.group(2)) if m else None
    kept = int(m.group(1)) if m else None
    lost = 0
    for cpu in os.listdir(TRACING + "/per_cpu"):
        st = _read("%s/per_cpu/%s/stats" % (TRACING, cpu))
        m = re.search(r"overrun: (\d+)", st)
        lost += int(m.group(1)) if m else 0
        m = re.search(r"dropped events: (\d+)", st)
        lost += int(m.group(1)) if m else 0
    if written is not None and kept is not None and written - kept > lost:
        lost = written - kept
    return written, lost


def _ftrace_event(key, label, ev, filt, loop, ref):
    write(TRACING + "/trace", "")
    write(ev + "/filter", filt)
    write(ev + "/enable", "1")
    try:
        cyc = loop()
    finally:
        write(ev + "/enable", "0")
        write(ev + "/filter", "0")
    written, lost = _ftrace_counts()
    return row(key, label, cyc, written, lost, ref)


def ftrace_kprobe(key, label, filt, loop, ref):
    """A tracefs kprobe event on gtp_test_function with a filter."""
    if not os.path.exists(TRACING + "/kprobe_events"):
        return failed(key, label, "no kprobe_events in tracefs", ref)
    try:
        write(TRACING + "/kprobe_events",
              "p:gtpbench gtp_test_function c1=%di:s32 c2=%si:s32\n")
        return _ftrace_event(key, label, TRACING + "/events/kprobes/gtpbench",
                             filt, loop, ref)
    except OSError as e:
        return failed(key, label, "ftrace: %s" % e, ref)
    finally:
        try:
            write(TRACING + "/kprobe_events", "")
        except OSError:
            pass


def ftrace_static(key, label, filt, loop, ref):
    """ftrace's own event gtp_test:gtp_test_event with a filter."""
    ev = TRACING + "/events/gtp_test/gtp_test_event"
    if not os.path.exists(ev):
        return failed(key, label, "no gtp_test_event in tracefs", ref)
    try:
        return _ftrace_event(key, label, ev, filt, loop, ref)
    except OSError as e:
        return failed(key, label, "ftrace: %s" % e, ref)


# --- LTTng ----------------------------------------------------------------

def _lttng(*args):
    p = subprocess.run(["lttng"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    out = p.stdout.decode(errors="replace")
    if p.returncode:
        raise RuntimeError("lttng %s: %s" % (args[0], _last(out)))
    return out


# Loaded in this order (dependencies first); sessiond finds them loaded.
LTTNG_KOS = ["src/lib/lttng-lib-ring-buffer", "src/lttng-wrapper", "src/lttng-clock",
             "src/lib/lttng-counter", "src/lttng-statedump", "src/probes/lttng-kprobes",
             "src/probes/lttng-kretprobes", "src/probes/lttng-uprobes", "src/lttng-tracer",
             "src/lttng-counter-client-percpu-32-modular",
             "src/lttng-counter-client-percpu-64-modular",
             "src/lttng-ring-buffer-client-discard",
             "src/lttng-ring-buffer-client-overwrite",
             "src/lttng-ring-buffer-metadata-client",
             "src/lttng-ring-buffer-client-mmap-discard",
             "src/lttng-ring-buffer-client-mmap-overwrite",
             "src/lttng-ring-buffer-metadata-mmap-client",
             "src/lttng-ring-buffer-event-notifier-client"]


def _lttng_start_sessiond():
    """Load lttng-modules (tests/bench/lttng-build's, for this kernel) and
    our provider, start a root session daemon; None or why not."""
    if not shutil.which("lttng-sessiond"):
        return "lttng-tools not installed"
    top = os.path.join(REPO, "build", "lttng", os.uname().release)
    if not os.path.exists(os.path.join(top, "probe", "lttng_probe_gtp_test.ko")):
        return "lttng-modules not built for this kernel (tests/bench/lttng-build)"
    todo = [os.path.join(top, "src" if ko.startswith("src/") else "", ko) + ".ko"
            for ko in LTTNG_KOS + ["probe/lttng_probe_gtp_test"]]
    todo = [p for p in todo if os.path.exists(p)]
    while todo:     # insmod in passes: a module waits for its dependencies
        left, err = [], ""
        for path in todo:
            r = subprocess.run(["insmod", path], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            if r.returncode:
                left.append(path)
                err = "insmod %s: %s" % (os.path.basename(path),
                                         _last(r.stdout.decode(errors="replace")))
        if len(left) == len(todo):
            return err
        todo = left
    os.environ["LTTNG_HOME"] = "/tmp"
    # only our provider: the other probe modules are not loaded
    os.environ["LTTNG_KMOD_PROBES"] = "gtp_test"
    r = subprocess.run(["lttng-sessiond", "--daemonize"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode:
        return "lttng-sessiond: " + _last(r.stdout.decode(errors="replace"))
    return None


def lttng_rows(loop):
    """LTTng-modules recording gtp_test_event through our provider, with
    LTTng's filter (no arithmetic in LTTng filters either: the nearest
    condition, same truth as ftrace's)."""
    rows = []
    why = _lttng_start_sessiond()
    for truth, filt in (("false", "counter1 < 0"), ("true", "counter1 > 0")):
        key, ref = "lttng_" + truth, "static_%s_jit" % truth
        label = "LTTng, record gtp_test_event, filter %s" % filt
        if why:
            rows.append(failed(key, label, why, ref))
            continue
        out = "/tmp/gtp-lttng-" + truth
        try:
            _lttng("create", "gtpbench", "--output=" + out)
            _lttng("enable-channel", "-k", "ch", "--subbuf-size=1M", "--num-subbuf=4")
            _lttng("enable-event", "-k", "-c", "ch", "gtp_test_event", "--filter", filt)
            _lttng("start")
            cyc = loop()
            _lttng("stop")
            seen, lost = _lttng_counts(out)
            rows.append(row(key, label, cyc, seen, lost, ref))
        except (RuntimeError, OSError) as e:
            rows.append(failed(key, label, str(e)[:100], ref))
        finally:
            subprocess.run(["lttng", "destroy", "gtpbench"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    return rows


def _lttng_counts(out):
    """(events recorded, events lost) of the stopped session, read back
    with babeltrace2 (None when it is not there)."""
    lost = 0
    if not shutil.which("babeltrace2"):
        return None, None
    p = subprocess.run(["babeltrace2", out], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    text = p.stdout.decode(errors="replace")
    seen = text.count("gtp_test_event:")
    for m in re.finditer(r"[Dd]iscarded (\d+) events", text):
        lost += int(m.group(1))
    return seen, lost
