# SPDX-License-Identifier: GPL-2.0
"""The gdb half of tests/source/coverage.py: runs inside gdb (`gdb -x
covgdb.py`), takes its parameters from $GTP_COVERAGE (JSON) and writes
what it found to the file named there (JSON), for coverage.py to print.

Steps, each timed:
  1. symbols: the kernel's DWARF (gtp-load-vmlinux, then target remote
     /proc/gtp), or in offline mode the file alone (`file`, no target);
  2. lines: for each function, lines of its own source file drawn at
     random (a generator seeded by the seed and the function's name),
     kept if they have an IS-STMT row in the function's own code; a
     line's locations are the ones `trace FILE:LINE` gives inside the
     function (gdb's linespec rule, line_locations());
  3. variables: at each location, the symbols `collect $locals` and
     `collect $args` take (gdb's add_local_symbols: the locals of the
     innermost block up to the innermost function, inlined or not; the
     arguments in the block at the real function's entry), each compiled
     on its own the way `actions` checks a `collect NAME` at that address:
     collected, optimized out there (no location at this pc), without a
     location anywhere, a constant (the DWARF holds its value), or refused
     with gdb's message;
  4. tstart (not offline): one tracepoint per location with `collect
     $locals` and `collect $args`; one tstart for all of them, and only if
     that fails one tstart per line, so that a failure is its line's;
  5. hits: the lines whose tstart succeeded, armed together while
     workload.py runs; the frames of each location that was hit say which
     collected variables show a value (not <unavailable>), and whether
     those found optimized out read <optimized out>.
"""
from __future__ import annotations

import bisect
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, Iterator, List, Optional, Tuple

import gdb

# symbol classes gdb's iterate_over_block_locals hands to `collect $locals`
LOCAL_CLASSES = (gdb.SYMBOL_LOC_CONST, gdb.SYMBOL_LOC_LOCAL, gdb.SYMBOL_LOC_REGISTER,
                 gdb.SYMBOL_LOC_STATIC, gdb.SYMBOL_LOC_COMPUTED,
                 gdb.SYMBOL_LOC_OPTIMIZED_OUT)

# a directory of our own for the files gdb sources and logs to
SCRATCH = ""

# An internal error in gdb's bytecode compiler (gdb 13: "expression has min
# height < 0" for a location with an empty DW_OP_piece) ends the command
# with "Command aborted." (KeyboardInterrupt) once load_symbols() has told
# gdb to go on; gdb prints its message on its own stderr.
INTERNAL_ERROR = "gdb internal-error (its message is on stderr)"


class CoverageError(Exception):
    """Something the run cannot go on without (no such function, no
    symbols): the message says what."""


def log(msg: str) -> None:
    """Progress on stderr (stdout is gdb's, and noisy)."""
    sys.stderr.write("coverage: %s\n" % msg)
    sys.stderr.flush()


def run(cmd: str) -> str:
    """A gdb command's output."""
    return gdb.execute(cmd, to_string=True)


def write_text(text: str) -> str:
    """The path of a scratch file holding text (the same file each time)."""
    path = os.path.join(SCRATCH, "cmds.gdb")
    with open(path, "w") as f:
        f.write(text)
    return path


def source_text(text: str) -> str:
    """Run gdb commands that read their own body (`actions`): gdb.execute
    of gdb 13 cannot feed them lines, a sourced file can."""
    return run("source " + write_text(text))


def logged(cmd: str) -> Tuple[Optional[str], str]:
    """Run cmd with what gdb prints going to a file: (None, what it
    printed) if it succeeded, else (its error, what it printed).  to_string
    output is lost with an error, and leaves out gtp's console lines."""
    path = os.path.join(SCRATCH, "out.log")
    for arg in ("file " + path, "overwrite on", "redirect on", "enabled on"):
        run("set logging " + arg)
    err = None
    try:
        gdb.execute(cmd)
    except gdb.error as e:
        err = gdb_message(e)
    except KeyboardInterrupt:
        err = INTERNAL_ERROR
    finally:
        run("set logging enabled off")
    with open(path) as f:
        return err, f.read()


def gdb_message(e: gdb.error) -> str:
    """gdb's own message, without the "FILE:N: Error in sourced command
    file:" line a sourced file puts before it."""
    lines = [x for x in str(e).splitlines() if "Error in sourced command file" not in x]
    return " ".join(lines).strip()


# -- 1. symbols -------------------------------------------------------------

def load_symbols(cfg: dict) -> None:
    """The kernel's DWARF at the running kernel's addresses, and the
    target (coverage.py had gdb source gtp.py first); or the file alone
    (offline: no target, no KASLR slide)."""
    run("set pagination off")
    run("set confirm off")
    run("set width 0")
    # an internal error in gdb's bytecode compiler is one variable's
    # refusal (check_collect), not the end of the run
    for arg in ("quit no", "corefile no", "backtrace off"):
        run("maint set internal-error " + arg)
    if cfg["offline"]:
        run("file " + cfg["vmlinux"])
        return
    log(run("gtp-load-vmlinux " + cfg["vmlinux"]).strip())
    run("target remote /proc/gtp")
    # the hot functions fill the default 4 MB before the workload ends
    run("set trace-buffer-size %d" % cfg["buffer"])


# -- 2. lines ---------------------------------------------------------------

def outermost_function(pc: int) -> Optional[gdb.Block]:
    """The block of the real (not inlined) function pc is in."""
    b = gdb.block_for_pc(pc)
    top = None
    while b is not None and not b.is_static and not b.is_global:
        if b.function is not None:
            top = b
        b = b.superblock
    return top


def function_symbol(name: str) -> gdb.Symbol:
    """The function's DWARF symbol (global or file-static)."""
    sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    if sym is None or sym.addr_class != gdb.SYMBOL_LOC_BLOCK:
        raise CoverageError("%s: no such function in the DWARF" % name)
    return sym


def entry_of(sym: gdb.Symbol) -> int:
    return int(sym.value().address)


def in_function(pc: int, entry: int) -> bool:
    """pc is code of the function entered at entry (its inlined callees
    included, a cold part too; not another function between its parts)."""
    top = outermost_function(pc)
    return top is not None and entry_of(top.function) == entry


def stmt_pcs(lt: gdb.LineTable, line: int, entry: int) -> List[int]:
    """The addresses of line's IS-STMT rows inside the function (LineTable.line
    is gdb's find_pcs_for_symtab_line, which skips the other rows)."""
    return [e.pc for e in lt.line(line) or () if in_function(e.pc, entry)]


def line_locations(pcs: List[int]) -> List[int]:
    """Where `trace FILE:LINE` puts a line's locations in the function:
    gdb's linespec (create_sals_line_offset) takes every IS-STMT row of
    the line, then keeps the first address of each innermost block (a
    loop's line scattered over two ranges is one location).  gdb's own
    decode_line gives the same, at 0.1 s a line on the host for FILE
    lookups over every compile unit."""
    kept, blocks = [], set()
    for pc in pcs:
        b = gdb.block_for_pc(pc)
        key = (b.start, b.end) if b is not None else pc
        if key not in blocks:
            blocks.add(key)
            kept.append(pc)
    return kept


def is_trap(pc: int) -> bool:
    """A BUG()'s or WARN()'s ud2 (a line of its own in the line table):
    kprobes refuse to probe it, whatever the tracepoint collects."""
    try:
        return gdb.selected_inferior().read_memory(pc, 2).tobytes() == b"\x0f\x0b"
    except gdb.MemoryError:
        return False


def pick_lines(func: str, seed: int, count: int) -> List[dict]:
    """count statement lines of func, drawn with a generator of its own
    (seed and name), so that changing the function list leaves the other
    functions' lines as they were: the lines of its own file with a row
    in its span, shuffled, the first count of them that have an IS-STMT
    row in the function itself, and no location on a trap."""
    sym = function_symbol(func)
    entry = entry_of(sym)
    fblock = outermost_function(entry)
    lt = sym.symtab.linetable()
    lines = sorted({e.line for e in lt if fblock.start <= e.pc < fblock.end and e.line > 0})
    random.Random("%d/%s" % (seed, func)).shuffle(lines)
    picked = []
    for line in lines:
        pcs = stmt_pcs(lt, line, entry)
        if pcs and not any(is_trap(pc) for pc in pcs):
            picked.append({"func": func, "file": sym.symtab.filename, "line": line,
                           "locs": [{"pc": pc} for pc in line_locations(pcs)]})
            if len(picked) == count:
                break
    return picked


# -- 3. variables -----------------------------------------------------------

def locals_at(pc: int) -> Iterator[gdb.Symbol]:
    """What `collect $locals` collects at pc (iterate_over_block_local_vars):
    the innermost block's symbols, then its superblocks', up to and
    including the innermost function's block."""
    b = gdb.block_for_pc(pc)
    while b is not None:
        for sym in b:
            if sym.addr_class in LOCAL_CLASSES and not sym.is_argument:
                yield sym
        if b.function is not None:
            return
        b = b.superblock


def visible_block(pc: int, name: str) -> Optional[gdb.Block]:
    """The block gdb's lookup of name at pc finds it in, if local
    (lookup_local_symbol: block by block up to the innermost function's,
    inlined or not: a caller's names are not visible in an inlined
    callee)."""
    b = gdb.block_for_pc(pc)
    while b is not None and not b.is_static:
        if any(s.name == name for s in b):
            return b
        if b.function is not None:
            return None
        b = b.superblock
    return None


# a location list's entry in `info scope`: "  Range 0xLO-0xHI: WHAT", WHAT
# going on over the next lines for a DWARF expression
RANGE = re.compile(r"Range (0x[0-9a-f]+)-(0x[0-9a-f]+): (.*)")
SYMBOL = re.compile(r"^Symbol (\S+) is (.*)")

# a location list: (low, high, what gdb says the location is), in order
Loclist = List[Tuple[int, int, str]]


def location_lists(entry: int) -> Dict[str, Optional[Loclist]]:
    """The location list of each symbol in scope at the function's entry
    (its arguments among them), from `info scope`; None for a symbol with
    one location for its whole scope."""
    lists: Dict[str, Optional[Loclist]] = {}
    cur: Optional[Loclist] = None
    try:
        text = run("info scope *%#x" % entry)
    except gdb.error:
        # gdb cannot describe one of them ("Corrupted DWARF2 expression"):
        # the arguments are checked by FUNC::NAME
        return lists
    for row in text.splitlines():
        m = SYMBOL.match(row)
        if m:
            cur = [] if m.group(2).startswith("multi-location") else None
            lists[m.group(1)] = cur
            continue
        if cur is None:
            continue
        m = RANGE.search(row)
        if m:
            cur.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
        elif cur and not row.startswith(","):
            lo, hi, what = cur[-1]
            cur[-1] = (lo, hi, what + "\n" + row.strip())
    return lists


class Args:
    """The arguments `collect $args` takes at a function's locations, each
    checked by name at the location, or where gdb would not find that name
    there (inside an inlined callee: a caller's names are out of scope;
    FUNC::NAME would work, at the cost of a failed lookup, which searches
    every compile unit for a source file of that name: 1.2 s in the TCG
    guest), at a stand-in address: one in the same entry of the argument's
    location list (same DWARF expression, so gdb compiles it the same way)
    where the name is in scope, or in another entry with the same
    expression.  Candidates are the addresses of the function's own
    line-table rows in those entries' ranges: where code of the
    function's own file starts, after an inlined callee's."""

    def __init__(self, pc: int):
        fn = outermost_function(pc).function
        self.fn = fn
        self.fname = fn.name
        self.entry = entry_of(fn)
        self.block = gdb.block_for_pc(self.entry)
        self.syms = [s for s in self.block if s.is_argument]
        self._lists: Optional[Dict[str, Optional[Loclist]]] = None

    def rows(self) -> List[int]:
        if self.entry not in ROWS:
            top = outermost_function(self.entry)
            ROWS[self.entry] = sorted({e.pc for e in self.fn.symtab.linetable()
                                       if top.start <= e.pc < top.end})
        return ROWS[self.entry]

    def visible(self, pc: int, name: str) -> bool:
        b = visible_block(pc, name)
        return b is not None and b.function is not None and \
            (b.start, b.end) == (self.block.start, self.block.end)

    def loclist(self, name: str) -> Optional[Loclist]:
        if self._lists is None:
            self._lists = LISTS.setdefault(self.entry, location_lists(self.entry))
        return self._lists.get(name, [])

    def stand_in(self, pc: int, name: str) -> Tuple[str, int]:
        """("at", Q): check name at Q instead; ("optimized-out", 0): no
        entry of its location list covers pc; ("slow", 0): no Q found."""
        ll = self.loclist(name)
        if ll is None:
            spans = [(self.entry, self.block.end)]
        else:
            cover = [e for e in ll if e[0] <= pc < e[1]]
            if not cover:
                return ("optimized-out", 0) if ll else ("slow", 0)
            spans = [(lo, hi) for lo, hi, what in ll if what == cover[0][2]]
            spans.sort(key=lambda r: r != cover[0][:2])
        rows = self.rows()
        for lo, hi in spans:
            for q in [lo] + rows[bisect.bisect_right(rows, lo):bisect.bisect_left(rows, hi)]:
                if self.visible(q, name):
                    return "at", q
        return "slow", 0

    def check(self, tp: int, pc: int, sym: gdb.Symbol) -> Tuple[str, str]:
        if self.visible(pc, sym.name):
            return check_collect(tp, sym.name)
        how, q = self.stand_in(pc, sym.name)
        if how == "optimized-out":
            return how, ""
        if how == "slow":
            return check_collect(tp, "%s::%s" % (self.fname, sym.name))
        tq = new_tracepoint(q)
        try:
            return check_collect(tq, sym.name)
        finally:
            run("delete %d" % tq)


# function entry -> location_lists(entry); -> its line-table addresses
LISTS: Dict[int, Dict[str, Optional[Loclist]]] = {}
ROWS: Dict[int, List[int]] = {}


def new_tracepoint(pc: int) -> int:
    run("trace *%#x" % pc)
    return int(gdb.parse_and_eval("$tpnum"))


def check_collect(tp: int, expr: str) -> Tuple[str, str]:
    """`collect EXPR` as the actions of tracepoint tp: gdb compiles it at
    the tracepoint's address to check it (validate_actionline), exactly as
    tstart will."""
    text = "actions %d\ncollect %s\nend\n" % (tp, expr)
    try:
        source_text(text)
    except gdb.error as e:
        msg = gdb_message(e)
        if "has been optimized out" in msg:
            return "optimized-out", ""
        if "is optimized away" in msg:
            # the name gdb finds is a symbol without a location
            return "no-location", ""
        return "refused", msg
    except KeyboardInterrupt:
        return "refused", INTERNAL_ERROR
    return "collected", ""


def by_class(sym: gdb.Symbol) -> Optional[Tuple[str, str]]:
    """What the symbol's class alone says: a constant (collect_symbol: "will
    not be collected", its value is in the DWARF), or no location at all
    ("has been optimized out of existence": mostly the abstract copy of an
    inlined function's local, beside the concrete one a block inside
    holds)."""
    if sym.addr_class == gdb.SYMBOL_LOC_CONST:
        return "constant", ""
    if sym.addr_class == gdb.SYMBOL_LOC_OPTIMIZED_OUT:
        return "no-location", ""
    return None


def scope_vars(tp: int, pc: int) -> List[dict]:
    """Every variable `collect $locals` and `collect $args` take at pc, in
    the order they take them, with what gdb makes of each.  A local that
    an inner block's local of the same name hides cannot be named on its
    own (gdb finds the inner one): unless its class says it all, it is
    "shadowed", left to its line's tstart, which compiles it."""
    out = []
    seen = set()
    for sym in locals_at(pc):
        st = by_class(sym)
        if st is None:
            st = ("shadowed", "") if sym.name in seen else check_collect(tp, sym.name)
        seen.add(sym.name)
        out.append({"name": sym.name, "role": "local", "status": st[0], "reason": st[1]})
    args = Args(pc)
    for sym in args.syms:
        st = by_class(sym) or args.check(tp, pc, sym)
        out.append({"name": sym.name, "role": "arg", "status": st[0], "reason": st[1]})
    return out


def classify_lines(lines: List[dict]) -> None:
    """Each location's variables, through a scratch tracepoint there."""
    for ln in lines:
        for loc in ln["locs"]:
            tp = new_tracepoint(loc["pc"])
            loc["vars"] = scope_vars(tp, loc["pc"])
            run("delete %d" % tp)


# -- 4. tstart --------------------------------------------------------------

def define(lines: List[dict]) -> Dict[int, dict]:
    """A tracepoint with `collect $locals` and `collect $args` at every
    location of lines; tracepoint number -> location."""
    tps = {}
    text = []
    for ln in lines:
        for loc in ln["locs"]:
            tp = new_tracepoint(loc["pc"])
            tps[tp] = loc
            text.append("actions %d\ncollect $locals\ncollect $args\nend\n" % tp)
    source_text("".join(text))
    return tps


def gtp_said(out: str) -> List[str]:
    """gtp's lines on gdb's console (which tracepoint, and what of it)."""
    return [x.strip() for x in out.splitlines() if x.startswith("gtp:")]


def tstart(said: Optional[List[str]] = None) -> Optional[str]:
    """None if tstart succeeded (what gtp said added to said), else gdb's
    message after what gtp said about it."""
    err, out = logged("tstart")
    if err is None:
        if said is not None:
            said += gtp_said(out)
        return None
    return " ".join(gtp_said(out) + [err])


def tstart_each(lines: List[dict]) -> None:
    """One tstart per line (after a tstart of all of them failed): the
    failure is that line's."""
    for ln in lines:
        define([ln])
        err = tstart()
        if err is None:
            run("tstop")
        ln["tstart"] = err or ""
        run("delete tracepoints")


# -- 5. hits ----------------------------------------------------------------

def shows_value(v: gdb.Value) -> bool:
    """A value gdb can print with nothing <unavailable> in it (hex: a
    char * is not followed into memory the frame did not collect)."""
    try:
        s = v.format_string(format="x", raw=True)
    except gdb.error:
        return False
    return "<unavailable>" not in s and "<optimized out>" not in s


def outer_frame(f: gdb.Frame) -> gdb.Frame:
    """The real function's frame under f's inlined ones."""
    while f.type() == gdb.INLINE_FRAME and f.older() is not None:
        f = f.older()
    return f


# how many frames of a location to look at, for a collected variable that
# did not show a value in the first: a hit in a call entered before tstart
# has no entry values (its entry was not recorded), and a kernel thread's
# wake-up from a sleep that began before tstart is often the first hit
FRAMES_PER_LOCATION = 8


def read_var(sym: gdb.Symbol, frame: gdb.Frame) -> str:
    """"value", "optimized-out" or "none" (unavailable, or an error)."""
    try:
        val = sym.value(frame)
    except gdb.error:
        return "none"
    if val.is_optimized_out:
        return "optimized-out"
    return "value" if shows_value(val) else "none"


def frame_syms(pc: int) -> List[Tuple[gdb.Symbol, gdb.Frame]]:
    """The variables of scope_vars(pc), in its order, each with the frame
    to read it in: the locals the innermost (inlined) function's, the
    arguments the real function's."""
    inner = gdb.selected_frame()
    outer = outer_frame(inner)
    return [(s, inner) for s in locals_at(pc)] + [(s, outer) for s in Args(pc).syms]


def frame_values(tp: int, loc: dict, tdump: bool) -> None:
    """The location's frames (the first, and up to FRAMES_PER_LOCATION
    while a collected variable has shown no value yet): how many of its
    collected variables show a value; which of those found optimized out
    read as a value all the same in the first (gdb would be wrong about
    them); the shadowed ones, read through their own symbols.  With tdump,
    the tdump of each frame where a collected variable showed no value."""
    seen: List[str] = []
    loc["frames"] = 0
    want = ("collected", "shadowed")
    while loc["frames"] < FRAMES_PER_LOCATION:
        run("tfind tracepoint %d" % tp)
        if int(gdb.parse_and_eval("$trace_frame")) < 0:
            break
        syms = frame_syms(loc["pc"])
        if not seen:
            seen = [read_var(sym, f) for sym, f in syms]
        else:
            seen = [s if s == "value" or v["status"] not in want else read_var(*sf)
                    for s, v, sf in zip(seen, loc["vars"], syms)]
        loc["frames"] += 1
        if all(s == "value" for s, v in zip(seen, loc["vars"]) if v["status"] in want):
            break
        if tdump:
            # what the frame holds, for coverage.py --tdump
            loc.setdefault("tdump", []).append(run("tdump"))
    pairs = list(zip(loc["vars"], seen))
    loc["values"] = sum(1 for v, s in pairs if v["status"] == "collected" and s == "value")
    loc["unavailable"] = [v["name"] for v, s in pairs
                          if v["status"] == "collected" and s != "value"]
    loc["optout_live"] = [v["name"] for v, s in pairs
                          if v["status"] in ("optimized-out", "no-location") and s == "value"]
    loc["shadowed_values"] = sum(1 for v, s in pairs
                                 if v["status"] == "shadowed" and s == "value")
    loc["shadowed_optout"] = sum(1 for v, s in pairs
                                 if v["status"] == "shadowed" and s == "optimized-out")


def run_workload(cfg: dict) -> float:
    t0 = time.time()
    subprocess.run(["python3", cfg["workload"]], check=True, timeout=300,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return time.time() - t0


def trace_workload(cfg: dict, tps: Dict[int, dict], result: dict) -> None:
    """With the trace started: run the workload, stop, read back each
    location's frames."""
    try:
        result["workload_s"] = round(run_workload(cfg), 1)
    finally:
        run("tstop")
    result["tstatus"] = run("tstatus")
    for tp, loc in tps.items():
        run("tfind none")
        frame_values(tp, loc, cfg.get("tdump", False))
        loc["hit"] = loc["frames"] > 0
    run("tfind none")
    run("delete tracepoints")


def start_and_trace(cfg: dict, lines: List[dict], result: dict, t: "Timer") -> None:
    """One tstart for every line; if it fails, one per line, then the
    lines that started, together.  Either way the workload runs under
    the last tstart."""
    said: List[str] = []
    result["gtp_said"] = said
    tps = define(lines)
    err = tstart(said)
    for ln in lines:
        ln["tstart"] = ""
    if err is not None:
        run("delete tracepoints")
        log("tstart of all %d lines failed (%s): one line at a time" % (len(lines), err))
        tstart_each(lines)
        tps = define([ln for ln in lines if not ln["tstart"]])
        err = tstart(said)
        if err is not None:
            raise CoverageError("tstart of the lines that started one by one failed: %s"
                                % err)
    t.lap("tstart")
    trace_workload(cfg, tps, result)
    t.lap("hits")


# -- the run ----------------------------------------------------------------

class Timer:
    def __init__(self, result: dict):
        self.t = time.time()
        self.result = result

    def lap(self, what: str) -> None:
        now = time.time()
        self.result["times"][what] = round(now - self.t, 1)
        log("%s: %.1fs" % (what, now - self.t))
        self.t = now


def main() -> None:
    global SCRATCH
    cfg = json.loads(os.environ["GTP_COVERAGE"])
    SCRATCH = tempfile.mkdtemp(prefix="gtp-cov-")
    result = {"times": {}, "seed": cfg["seed"], "vmlinux": cfg["vmlinux"],
              "offline": cfg["offline"], "gdb": gdb.VERSION}
    t = Timer(result)
    try:
        load_symbols(cfg)
        t.lap("symbols")
        lines = []
        for func in cfg["functions"]:
            lines += pick_lines(func, cfg["seed"], cfg["per_function"])
        result["lines"] = lines
        t.lap("lines")
        classify_lines(lines)
        t.lap("variables")
        if not cfg["offline"]:
            start_and_trace(cfg, lines, result, t)
    except (CoverageError, gdb.error) as e:
        result["error"] = str(e)
    with open(cfg["out"], "w") as f:
        json.dump(result, f)
    shutil.rmtree(SCRATCH)


main()
