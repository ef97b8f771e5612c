"""The live-kernel fuzz of test_live_fuzz.py: random tracepoint sessions
sent as raw packets to the real /proc/gtp while a workload runs.

One seeded random generator (random.Random(seed)) decides every step, so
a seed replays the same packet sequence (the kernel's answers to it, hits
and frame counts vary with timing).  A step is one of:

  define    a tracepoint on a real kernel location -- a watch of kernel
            data (its actions set $watch or $awatch to its length: a
            hardware breakpoint; a few with a length or an address no
            debug register takes, which QTStart must refuse) or a dynamic
            one at address 0 that other tracepoints' actions point
            ($watch_arm_N, at watchable, unaligned or user addresses), a
            function's entry
            (ftrace, or a kprobe where ftrace cannot), an instruction
            boundary inside a function (kprobe; boundaries read with gdb's
            disassembler through /proc/gtp), a function's return ($kret
            set in an action: kretprobe), a static tracepoint (sched,
            raw_syscalls, gtp_test markers) -- with a random well-formed
            condition and 1..3 action packets of register, memory
            (absolute and $sp-relative), bytecode (axgen.py), $_sdata and
            trace-state-variable collects: must be accepted
  refuse    a definition gtp must refuse (bytecode the verifier refuses,
            while-stepping, bad numbers, malformed actions, actions of an
            undefined tracepoint, a definition while a trace runs, ...):
            must get an E reply with at least one console line saying
            why, and change neither the definitions (qTfP/qTsP, qTfV/qTsV)
            nor, when stopped, the frames already collected
  tsv       a trace state variable: user ones, and the built-ins
            ($cpu_id, $clock, $kstack, $kret, $gtp_stop, ...)
  start     QTStart: OK (then the kinds of attachment are tallied from
            the `attached` parameter), or E with the reason when a
            definition cannot be armed (a return probe off an entry, a
            kernel refusal, frames larger than the buffer): then nothing
            stays attached
  stop      QTStop; then the frames are walked (QTFrame, g, qTBuffer) and
            every frame belongs to a defined tracepoint
  init      QTinit: definitions, variables and frames gone
  misc      enable/disable a tracepoint, buffer mode and size,
            qTStatus, a reconnect with disconnected tracing on or off, a
            burst of workload
"""
import hashlib
import os
import random
import re
import subprocess

import axgen
from gtplib import GDB, ksym
from rspconn import Conn

PARAMS = "/sys/module/gtptrace/parameters"

# Kernel functions the workload calls (reads, writes, opens, fork, exec,
# exit); those that are absent or not probeable on a kernel are skipped
# or refused at QTStart with the kernel's reason.
FUNCS = ["vfs_read", "vfs_write", "do_sys_openat2", "getname_flags",
         "kernel_clone", "copy_process", "wake_up_new_task", "bprm_execve",
         "security_file_open", "filp_close", "path_openat", "ksys_read",
         "fput", "do_filp_open", "mmap_region", "pipe_write",
         "update_process_times", "__x64_sys_getpid"]
MARKERS = ["sched_switch", "sched_process_fork", "sched_process_exec",
           "sys_enter", "sys_exit", "gtp_test_event", "sched_wakeup"]
READABLE = ["jiffies", "linux_banner", "init_task", "counter1", "counter2",
            "gtp_test_calls"]
UNREADABLE = [0, 8, 0xffffffffffff0000, 0x4000000000000000, 0xffff800000000000]
BUILTINS = ["cpu_id", "current_task", "current_task_pid", "clock", "rdtsc",
            "hardirq_count", "softirq_count", "kstack", "kret", "gtp_stop"]
# Watches (module/probes/watch.c): the marks, and the values a hit reads.
WATCH_BUILTINS = ["watch", "awatch", "watch_val", "watch_prev", "watch_addr"]
# Data a watch takes: written now and then (a tick, each test call) or
# never; awatch only where reads are rare (not jiffies: every tick reads
# it on every CPU).
WATCHED = [("jiffies", False), ("gtp_test_calls", True), ("linux_banner", True)]

# Reasons QTStart may give for refusing a random set of definitions.
START_REFUSALS = re.compile(
    r"must be at a function's entry|has no return|trace-buffer-size|"
    r"\(error -\d+\)|inside gtp itself|not a static tracepoint|marker|"
    r"\$watch|a watch|is no watch")


class Failure(AssertionError):
    pass


def _ksym_opt(name):
    try:
        return ksym(name)
    except AssertionError:
        return None


def boundaries(addrs):
    """{address: [addresses of its next instructions]}, read by gdb's
    disassembler from the live kernel through /proc/gtp."""
    cmds = ["set pagination off", "target remote /proc/gtp"]
    for a in addrs:
        cmds.append("x/12i 0x%x" % a)
    argv = [GDB, "-nx", "-q", "-batch"]
    for c in cmds:
        argv += ["-ex", c]
    out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, timeout=300).stdout.decode(errors="replace")
    seen = [int(x, 16) for x in re.findall(r"^\s*(?:=> )?0x([0-9a-f]+)(?: <[^>]*>)?:\s", out, re.M)]
    res = {}
    for a in addrs:
        after = sorted(x for x in seen if a < x < a + 200)
        res[a] = after[1:]          # past the entry's first instruction
    return res


class Fuzzer:
    def __init__(self, seed, log):
        self.rng = random.Random(seed)
        self.seed = seed
        self.log = log              # print function
        self.history = []           # the last packets, for a failure report
        self.stats = {}
        self.kinds = {}
        self.conn = None
        self._locations()

    # ---- setup ----------------------------------------------------------
    def _locations(self):
        entries = [(n, _ksym_opt(n)) for n in FUNCS]
        entries = [(n, a) for n, a in entries if a]
        test_fn = ksym("gtp_test_function", "gtp_test")
        entries.append(("gtp_test_function", test_fn))
        self.entries = entries
        mids = boundaries([a for _, a in entries])
        self.mids = [(n + "+%d" % (m - a), m) for n, a in entries for m in mids[a][:8]]
        if not self.mids:
            raise Failure("gdb disassembled no kernel function through /proc/gtp")
        self.markers = [(n, a) for n, a in
                        ((n, _ksym_opt("__traceiter_" + n)) for n in MARKERS) if a]
        self.readable = []
        for n in READABLE:
            a = _ksym_opt(n)
            if a:
                self.readable.append((a, 16))
        self.watchable = [(a, reads) for a, reads in
                          ((_ksym_opt(n), r) for n, r in WATCHED) if a]

    # ---- bookkeeping ----------------------------------------------------
    def count(self, what, n=1):
        self.stats[what] = self.stats.get(what, 0) + n

    def fail(self, why):
        raise Failure("%s\nseed %d (replay: GTP_LIVE_FUZZ_SEED=%d); last packets:\n%s"
                      % (why, self.seed, self.seed, "\n".join(self.history[-40:])))

    def send(self, pkt):
        r, console = self.conn.send(pkt)
        self.history.append("-> %s\n<- %s%s" % (pkt[:300], r[:120],
                            "".join("\n   | " + c for c in console)))
        del self.history[:-60]
        return r, console

    def expect_ok(self, pkt, what):
        r, console = self.send(pkt)
        if r != "OK":
            self.fail("%s refused: %s -> %r %s" % (what, pkt[:200], r, console))
        return console

    def expect_refused(self, pkt, why):
        r, console = self.send(pkt)
        if not re.match(r"E[0-9a-fA-F]{2}$", r):
            self.fail("not refused (%s): %s -> %r" % (why, pkt[:200], r))
        if not any(c.strip() for c in console):
            self.fail("refused without a reason on the console (%s): %s -> %r"
                      % (why, pkt[:200], r))
        self.count("refused")
        return console

    def status(self):
        r, _ = self.send("qTStatus")
        m = re.match(r"T([01]);", r)
        if not m:
            self.fail("bad qTStatus reply %r" % r)
        f = dict(kv.split(":", 1) for kv in r[3:].split(";") if ":" in kv)
        return m.group(1) == "1", f

    def upload(self):
        """Every definition and variable as a reconnecting gdb uploads them."""
        out = []
        for first, nxt in (("qTfP", "qTsP"), ("qTfV", "qTsV")):
            r, _ = self.send(first)
            for _ in range(10000):
                if r == "l" or r.startswith("E") or r == "":
                    break
                out.append(r)
                r, _ = self.send(nxt)
            out.append(r)
        return out

    def frames(self):
        """A digest of the frames collected (stopped trace only): counts,
        the first and last frames' registers, the start of the buffer."""
        running, f = self.status()
        if running:
            return None
        n = int(f.get("tframes", "0"), 16)
        h = hashlib.sha256(("%s %s" % (f.get("tframes"), f.get("tcreated"))).encode())
        for i in sorted({0, n - 1, n // 2}):
            if i < 0:
                continue
            r, _ = self.send("QTFrame:%x" % i)
            h.update(r.encode())
            h.update(self.send("g")[0].encode())
        self.send("QTFrame:ffffffff")
        h.update(self.send("qTBuffer:0,800")[0].encode())
        return h.hexdigest()

    # ---- the session model ---------------------------------------------
    def reset_model(self):
        self.defs = {}              # num -> (addr, kind, start_refusal)
        self.arms = []              # the N of each $watch_arm_N set
        self.next_num = 1
        self.tsvs = {}              # num -> name (built-in) or None (user)
        self.busy = False

    def connect(self):
        self.conn = Conn()
        self.send("QStartNoAckMode") if self.rng.randrange(2) else None

    def ctx(self):
        user = [n for n, b in self.tsvs.items() if b is None]
        builtin = [n for n, b in self.tsvs.items() if b and b not in ("kret", "gtp_stop")]
        return axgen.Ctx(self.readable, UNREADABLE, user, builtin)

    # ---- steps -----------------------------------------------------------
    def step_tsv(self):
        num = max(self.tsvs, default=0) + 1
        name = None
        if self.rng.randrange(3):
            # return probes and stacks are what the kernel side does most
            # differently: their variables come often
            # watches too, as often as any kind: they are the newest
            name = self.rng.choice(WATCH_BUILTINS if self.rng.randrange(3) == 0 else
                                   BUILTINS + ["kret", "kret", "kstack", "ustack"])
            if name == "gtp_stop" and self.rng.randrange(3):
                name = "clock"
            if name in self.tsvs.values():
                name = None
        hexname = (name or "v%d" % num).encode().hex()
        init = self.rng.choice((0, 1, 5, 0xffffffffffffffff))
        self.expect_ok("QTDV:%x:%x:0:%s" % (num, init, hexname), "QTDV")
        self.tsvs[num] = name
        self.count("tsv")

    def define_tsv(self, name):
        """Define the built-in name (not defined yet); its number."""
        num = max(self.tsvs, default=0) + 1
        self.expect_ok("QTDV:%x:0:0:%s" % (num, name.encode().hex()), "QTDV")
        self.tsvs[num] = name
        self.count("tsv")
        return num

    def location(self):
        """(addr, kind, static flag)"""
        # three watches at most: a fourth debug register may be the
        # kernel's, and a fifth is refused every QTStart until QTinit
        if self.watchable and self.rng.randrange(5) == 0 and \
                sum(d[1] == "watch" for d in self.defs.values()) < 3:
            marks = [n for n, b in self.tsvs.items() if b in ("watch", "awatch")]
            self.mark = self.rng.choice(marks) if marks else \
                self.define_tsv(self.rng.choice(("watch", "awatch")))
            reads = self.tsvs[self.mark] == "awatch"
            where = [a for a, r in self.watchable if r or not reads]
            return (self.rng.choice(where) if where and self.rng.randrange(3) else 0), \
                "watch", False
        r = self.rng.randrange(10)
        if r < 4:
            return self.rng.choice(self.entries)[1], "entry", False
        if r < 7:
            return self.rng.choice(self.mids)[1], "mid", False
        if self.markers:
            return self.rng.choice(self.markers)[1], "static", self.rng.randrange(4) != 0
        return self.rng.choice(self.entries)[1], "entry", False

    def action(self, ctx, kind):
        rng = self.rng
        r = rng.randrange(10)
        if r == 0:
            return "R%x" % rng.choice((0x1ffff, 0x80, 0x30, 0x1, rng.getrandbits(17)))
        if r == 1:
            a, n = rng.choice(self.readable) if self.readable and rng.randrange(4) \
                else (rng.choice(UNREADABLE), 8)
            return "M-1,%x,%x" % (a, rng.choice((1, 4, 8, n, 64)))
        if r == 2:
            return "M%x,%x,%x" % (axgen.RSP, rng.choice((0, 8, 16, 0x40)), rng.choice((8, 32, 128)))
        if r == 3 and kind == "static":
            return "L"
        if r == 4:
            ks = [n for n, b in self.tsvs.items() if b in ("kstack", "ustack")]
            if ks:
                code = axgen.collect_tsv(rng.choice(ks))
                return "X%x,%s" % (len(code), code.hex())
        code = axgen.program(rng, ctx, False)
        return "X%x,%s" % (len(code), code.hex())

    def step_define(self):
        rng = self.rng
        num = self.next_num
        self.next_num += 1
        addr, kind, static = self.location()
        ctx = self.ctx()
        pkt = "QTDP:%x:%x:%s:0:%x" % (num, addr, "E" if rng.randrange(8) else "D",
                                     rng.choice((0, 0, 0, 0, 50, 1000)))
        if static:
            pkt += ":S"
        if rng.randrange(2):
            code = axgen.program(rng, ctx, True)
            pkt += ":X%x,%s" % (len(code), code.hex())
        chunks = []
        for _ in range(1 + rng.randrange(3)):
            chunks.append("".join(self.action(ctx, kind) for _ in range(1 + rng.randrange(4))))
        bad_watch = False
        if kind == "watch":
            chunks.append(self.watch_mark(addr))
            bad_watch = self.bad_watch
        watches = [w for w, d in self.defs.items() if d[1] == "watch"]
        if kind != "watch" and watches and rng.randrange(3) == 0:
            # a pointer at a watch (rarely at a number that is none)
            target = rng.choice(watches) if rng.randrange(8) else self.next_num + 50
            name = "watch_arm_%d" % target
            n = next((k for k, b in self.tsvs.items() if b == name), None) or \
                self.define_tsv(name)
            where = rng.choice([a for a, _ in self.watchable] + [0, 8, 0xffff888000000001])
            code = axgen.set_tsv64(n, where)
            chunks.append("X%x,%s" % (len(code), code.hex()))
            self.arms.append(target)
            self.count("watch.arm")
        kret = [n for n, b in self.tsvs.items() if b == "kret"]
        ret = False
        # a return probe: at a function's entry (a few elsewhere, which
        # QTStart must refuse)
        if kret and (kind == "entry" and rng.randrange(2) == 0 or rng.randrange(40) == 0):
            code = axgen.kret_mark(kret[0])
            chunks.append("X%x,%s" % (len(code), code.hex()))
            ret = True
        # the flight recorder's trigger: the trace stops from inside a probe
        stop = [n for n, b in self.tsvs.items() if b == "gtp_stop"]
        if stop and rng.randrange(6) == 0:
            code = axgen.set_tsv(stop[0], rng.randrange(2))
            chunks.append("X%x,%s" % (len(code), code.hex()))
        self.expect_ok(pkt + ("-" if chunks else ""), "a well-formed QTDP")
        for i, c in enumerate(chunks):
            more = "-" if i + 1 < len(chunks) else ""
            self.expect_ok("QTDP:-%x:%x:%s%s" % (num, addr, c, more), "a well-formed action packet")
        bad_at_start = (ret and kind != "entry") or bad_watch
        self.defs[num] = (addr, kind + ("/ret" if ret else ""), bad_at_start)
        self.count("define." + kind + ("0" if kind == "watch" and not addr else "") +
                   ("/ret" if ret else ""))

    def watch_mark(self, addr):
        """The action that makes a location at addr a watch: mostly of a
        length a debug register takes, aligned; sometimes one QTStart
        must refuse (self.bad_watch)."""
        rng = self.rng
        fits = [n for n in (8, 8, 4, 2, 1) if addr % n == 0]
        length = rng.choice(fits) if rng.randrange(16) else rng.choice((3, 16, 8))
        self.bad_watch = length not in (1, 2, 4, 8) or (addr % length) != 0
        code = axgen.set_tsv(self.mark, length)
        return "X%x,%s" % (len(code), code.hex())

    def refusal(self):
        """(packet, reason) of a definition gtp must refuse."""
        rng = self.rng
        addr = self.rng.choice(self.entries)[1]
        num = self.next_num + 100
        r = rng.randrange(12)
        if self.busy and rng.randrange(2):
            return "QTDP:%x:%x:E:0:0" % (num, addr), "a definition while a trace is armed"
        if r <= 3:
            is_cond = r <= 1
            code, why = axgen.refused(rng, is_cond)
            if is_cond:
                return "QTDP:%x:%x:E:0:0:X%x,%s" % (num, addr, len(code), code.hex()), why
            if self.defs and rng.randrange(2):
                n = rng.choice(list(self.defs))
                return "QTDP:-%x:%x:X%x,%s" % (n, self.defs[n][0], len(code), code.hex()), why
            return "QTDP:%x:%x:E:0:0:X%x,%s" % (num, addr, len(code), code.hex()), why
        if r == 4:
            return "QTDP:%x:%x:E:%x:0" % (num, addr, 1 + rng.randrange(5)), "while-stepping"
        if r == 5:
            return "QTDP:%x:%x:E:0:0" % (rng.choice((0, 0x8000, 0xffffffff)), addr), \
                "tracepoint number out of range"
        if r == 6:
            return "QTDP:-%x:%x:R1" % (num + 7, addr), "actions of an undefined tracepoint"
        if r == 7 and self.defs:
            n = rng.choice(list(self.defs))
            bad = rng.choice(("Q1", "M12,0,8", "M-2,0,8", "M-1,0,80000000", "R", "Xzz,00",
                              "X0,", "X401," + "22" * 0x401, "S"))
            return "QTDP:-%x:%x:%s" % (n, self.defs[n][0], bad), "a malformed action %s" % bad[:12]
        if r == 8:
            code = axgen.program(rng, self.ctx(), True)
            hx = "X%x,%s" % (len(code), code.hex())
            return "QTDP:%x:%x:E:0:0:%s:%s" % (num, addr, hx, hx), "two conditions"
        if r == 9:
            return "QTDP:%x:%x:E:0:0:Xff,22" % (num, addr), "bytecode shorter than its length"
        if r == 10:
            return rng.choice((
                ("QTDP:%x:zz:E:0:0" % num, "a malformed address"),
                ("QTDV:%x:0:0:zz" % (num + 1000), "a QTDV name not in hex"),
                ("QTDV:%x" % (num + 1000), "a malformed QTDV"),
                ("QTDPsrc:%x:%x:cond:0:2:6131" % (num, addr),
                 "QTDPsrc of an undefined tracepoint")))
        return "QTDP:%x:%x:E:0:0:Q" % (num, addr), "an unknown option"

    def step_refuse(self):
        pkt, why = self.refusal()
        before_defs = self.upload()
        before_frames = self.frames()
        self.expect_refused(pkt, why)
        if self.upload() != before_defs:
            self.fail("a refused definition (%s) changed the definitions" % why)
        if before_frames is not None and self.frames() != before_frames:
            self.fail("a refused definition (%s) changed the frames collected" % why)

    def attached(self):
        with open(os.path.join(PARAMS, "attached")) as f:
            return f.read().split("\n")

    def step_start(self):
        r, console = self.send("QTStart")
        bad = any(d[2] for d in self.defs.values())
        # a pointer at a number that is no watch
        bad |= any(self.defs.get(t, (0, ""))[1] != "watch" for t in self.arms)
        if r == "OK":
            if bad:
                self.fail("QTStart accepted a return probe off a function's entry, "
                          "a watch no debug register takes, or a pointer at no watch")
            self.busy = True
            self.count("start.ok")
            for line in self.attached():
                if line.strip():
                    kind = line.split()[-1]
                    self.kinds[kind] = self.kinds.get(kind, 0) + 1
            # hits now, whatever the steps until the next QTStop take: the
            # background workload sleeps between its rounds
            self.workload_burst(everything=True)
            return
        if not re.match(r"E[0-9a-fA-F]{2}$", r) or not console:
            self.fail("QTStart: %r with console %r" % (r, console))
        if not any(START_REFUSALS.search(c) for c in console):
            self.fail("QTStart refused for an unexpected reason: %r" % console)
        if any(l.strip() for l in self.attached()):
            self.fail("a refused QTStart left probes attached: %r" % self.attached())
        self.busy = False
        self.count("start.refused")

    def step_stop(self):
        console = self.expect_ok("QTStop", "QTStop")
        self.busy = False
        self.count("stop")
        running, f = self.status()
        if running:
            self.fail("the trace runs after QTStop")
        n, created = int(f["tframes"], 16), int(f["tcreated"], 16)
        if n > created:
            self.fail("more frames (%d) than created (%d)" % (n, created))
        self.count("frames", n)
        for num, d in self.defs.items():
            r, _ = self.send("qTP:%x:%x" % (num, d[0]))
            m = re.match(r"V([0-9a-f]+):([0-9a-f]+)(?::([0-9a-f]+))?", r)
            if not m:
                self.fail("qTP of tracepoint %d: %r" % (num, r))
            self.count("hits", int(m.group(1), 16))
            self.count("eval_errors", int(m.group(3) or "0", 16))
        for i in sorted({0, n - 1, self.rng.randrange(max(n, 1))}):
            if i < 0 or i >= n:
                continue
            r, _ = self.send("QTFrame:%x" % i)
            m = re.match(r"F([0-9a-f]+)T([0-9a-f]+)$", r)
            if not m or int(m.group(1), 16) != i:
                self.fail("QTFrame:%x -> %r of %d frames" % (i, r, n))
            if int(m.group(2), 16) not in self.defs:
                self.fail("frame %d of tracepoint %s, not defined" % (i, m.group(2)))
            g, _ = self.send("g")
            if not re.match(r"[0-9a-fx]+$", g):
                self.fail("'g' of frame %d: %r" % (i, g[:100]))
        self.send("QTFrame:ffffffff")
        for c in console:
            if "evaluation error" in c:
                self.count("stop.with_eval_errors")

    def step_init(self):
        self.expect_ok("QTinit", "QTinit")
        self.reset_model()
        self.count("init")
        _, f = self.status()
        if int(f["tframes"], 16) != 0:
            self.fail("frames left after QTinit: %r" % f)
        # the variables a session declares before its tracepoints
        for _ in range(self.rng.randrange(5)):
            self.step_tsv()

    def step_misc(self):
        rng = self.rng
        r = rng.randrange(7)
        if r == 0 and self.defs and self.busy:
            n = rng.choice(list(self.defs))
            self.expect_ok("QT%s:%x:%x" % (rng.choice(("Enable", "Disable")), n,
                                           self.defs[n][0]), "QTEnable/QTDisable")
        elif r == 1 and not self.busy:
            if rng.randrange(2):
                self.expect_ok("QTBuffer:circular:%d" % rng.randrange(2), "QTBuffer:circular")
            else:
                self.expect_ok("QTBuffer:size:%s" % rng.choice(("-1", "2000", "10000", "100000",
                                                                "400000")), "QTBuffer:size")
        elif r == 2:
            # gdb goes away and comes back
            disconn = rng.randrange(2)
            self.expect_ok("QTDisconnected:%d" % disconn, "QTDisconnected")
            self.conn.close()
            self.connect()
            running, f = self.status()
            if self.busy and not disconn:
                if running:
                    self.fail("the trace survived a disconnect without disconnected tracing")
                self.busy = False
            self.count("reconnect")
        elif r == 3:
            self.status()
        else:
            self.workload_burst()

    def workload_burst(self, everything=False):
        """Calls into gtp_test's function, a file read, or fork + exec."""
        r = self.rng.randrange(3)
        if everything or r == 0:
            with open("/proc/gtp_test", "w") as f:
                f.write("%d\n" % (1 + self.rng.randrange(50)))
        if everything or r == 1:
            with open("/proc/version") as f:
                f.read()
        if everything or r == 2:
            subprocess.run(["sh", "-c", "true"], check=True)
        self.count("burst")

    def step(self):
        rng = self.rng
        r = rng.randrange(100)
        if r < 8 and not self.busy and len(self.tsvs) < 12:
            self.step_tsv()
        elif r < 42 and not self.busy and len(self.defs) < 8:
            self.step_define()
        elif r < 52:
            self.step_refuse()
        elif r < 64:
            self.step_start()
        elif r < 74:
            self.step_stop()
        elif r < 79:
            self.step_init()
        else:
            self.step_misc()

    def run(self, steps):
        self.reset_model()
        self.connect()
        try:
            self.step_init()
            for _ in range(steps):
                self.step()
            self.expect_ok("QTStop", "QTStop")
            self.expect_ok("QTinit", "QTinit")
            self.expect_ok("QTBuffer:size:-1", "QTBuffer:size")
            self.expect_ok("QTBuffer:circular:0", "QTBuffer:circular")
            self.expect_ok("QTDisconnected:0", "QTDisconnected")
        finally:
            self.conn.close()
