# SPDX-License-Identifier: GPL-2.0
"""tstart never fails because one variable cannot be collected.

gdb checks `collect EXPR` when the action is entered: it compiles EXPR
to an agent expression at every location of the tracepoint and refuses
the line.  `collect $locals` and `collect $args` are only expanded at
tstart, location by location (the symbols of the blocks from the
location up to the first function block, an inlined function's at an
inlined site; the arguments of the function the code belongs to), and
one symbol gdb cannot translate ("DWARF operator DW_OP_entry_value
cannot be translated to an agent expression") aborts the whole tstart.
On an optimized kernel that is most mid-function lines.

So hook-tstart, for every tracepoint with collect actions, expands
$locals and $args per location as gdb will, compiles each item at each
location, and when something would fail replaces the tracepoint's
action text, for this tstart, by the same list without the items that
fail (a $locals or $args becomes the names that compile at every
location, since all locations share one text), one line per dropped
item saying where and why.  At an inlined site, $args also takes the
inlined function's parameters: gdb collects the containing function's,
but tdump shows the inlined frame's.  hookpost-tstart, or the next prompt when
tstart failed, puts the user's text back, so `info tracepoints`, `tdump`
and `save tracepoints` show what the user wrote.  Other action lines,
$regs, $_ret, $_sdata and trace state variables are left as they are.

How an item is compiled at one location: gdb 13's Python sees no
tracepoints (gdb.breakpoints() leaves them out, there is no
BP_TRACEPOINT) and `maint agent -at` takes a linespec, not an address.
`commands N` on a tracepoint runs gdb's own action check at every
location of N and fails with gdb's reason, which is exactly the question
for an item that must go into N's one text; so each item is tried on the
user's tracepoint itself.  Only when it fails and N has several
locations, a scratch `trace *ADDR` per location says at which: that
costs a tracepoint number each ($bpnum and $tpnum are put back), and
never reaches the target (gtp does not take tracepoints during a run, so
gdb downloads none before tstart).
"""
from __future__ import annotations

import re
from typing import Optional

import gdb

_MARK = "gtpgdb.collectable"
_PRE = 'python __import__("gtpgdb.collectable").collectable.before_tstart()'
_POST = 'python __import__("gtpgdb.collectable").collectable.after_tstart()'

# Symbol classes gdb's $locals takes (iterate_over_block_locals).
_LOCAL_CLASSES = (gdb.SYMBOL_LOC_CONST, gdb.SYMBOL_LOC_LOCAL,
                  gdb.SYMBOL_LOC_REGISTER, gdb.SYMBOL_LOC_STATIC,
                  gdb.SYMBOL_LOC_COMPUTED, gdb.SYMBOL_LOC_OPTIMIZED_OUT)

# `info tracepoints`: a tracepoint's row, a location's row, an action.
_HEAD = re.compile(r"^(\d+)\s+(?:fast |static )?tracepoint\s")
_ADDR = re.compile(r"^\d+\s+.*?\s(0x[0-9a-fA-F]+)\s")
_LOC = re.compile(r"^(\d+\.\d+)\s+\S+\s+(0x[0-9a-fA-F]+)")
_ACTION_INDENT = " " * 8

_COLLECT = re.compile(r"^(col(?:l(?:e(?:c(?:t)?)?)?)?)(/\S*)?(?:\s+|$)(.*)$")
# gdb's own words for a symbol it skips at tstart rather than failing
# (collect_symbol), as its entry-time check words them.
_OPTIMIZED = re.compile(r"^`(.*)' (?:has been optimized out, cannot use|"
                        r"is optimized away and cannot be collected\.)$")
_CONST = re.compile(r"^constant `(.*)' \(value (.*)\) will not be collected\.$")


class Location:
    def __init__(self, label: str, addr: int) -> None:
        self.label = label
        self.addr = addr

    def where(self) -> str:
        sal = gdb.find_pc_line(self.addr)
        if sal.symtab is not None and sal.line:
            return "%s:%d" % (sal.symtab.filename, sal.line)
        return "0x%x" % self.addr


class Tracepoint:
    def __init__(self, number: int) -> None:
        self.number = number
        self.locations: list[Location] = []
        self.actions: list[str] = []

    def name(self, loc: Location) -> str:
        """How a message names LOC: `tracepoint 3 location 3.2 (f.c:4)`."""
        if len(self.locations) == 1:
            return "tracepoint %d (%s)" % (self.number, loc.where())
        return "tracepoint %d location %s (%s)" % (self.number, loc.label,
                                                   loc.where())


def tracepoints() -> list[Tracepoint]:
    """Every tracepoint with its locations and action lines, from `info
    tracepoints` (the only view gdb 13 gives of them).  A nested line
    (while-stepping) keeps its extra indentation."""
    out = gdb.execute("info tracepoints", to_string=True)
    tps: list[Tracepoint] = []
    for line in out.splitlines():
        m = _HEAD.match(line)
        if m:
            tps.append(Tracepoint(int(m.group(1))))
            a = _ADDR.match(line)
            if a:
                tps[-1].locations.append(Location(m.group(1), int(a.group(1), 16)))
            continue
        if not tps:
            continue
        m = _LOC.match(line)
        if m:
            tps[-1].locations.append(Location(m.group(1), int(m.group(2), 16)))
        elif line.startswith(_ACTION_INDENT):
            tps[-1].actions.append(line[len(_ACTION_INDENT):])
    return tps


def split_items(text: str) -> list[str]:
    """A collect line's comma-separated items, commas inside brackets or
    quotes left alone."""
    items, depth, quote, cur = [], 0, None, ""
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
            continue
        cur += c
    items.append(cur.strip())
    return [i for i in items if i]


def _kind(item: str) -> str:
    """'locals', 'args', 'keep' (gdb's other pseudo-symbols, by the same
    prefixes gdb matches) or 'expr'."""
    low = item.lower()
    if low.startswith("$loc"):
        return "locals"
    if low.startswith("$arg"):
        return "args"
    if low.startswith(("$reg", "$_ret", "$_sdata")):
        return "keep"
    return "expr"


def _is_var(sym: gdb.Symbol) -> bool:
    return sym.addr_class != gdb.SYMBOL_LOC_TYPEDEF


def _function_block(b: Optional[gdb.Block]) -> Optional[gdb.Block]:
    """The block of the function (never an inlined one) b is in."""
    while b is not None and not (b.is_static or b.is_global):
        up = b.superblock
        if up is None or up.is_static or up.is_global:
            return b
        b = up
    return None


class Symbol:
    """One symbol $locals or $args stands for at one location, and the
    text that names it there (None when an inner symbol hides it)."""

    def __init__(self, sym: gdb.Symbol, text: Optional[str]) -> None:
        self.sym = sym
        self.text = text


def locals_at(addr: int) -> list[Symbol]:
    """What gdb's `collect $locals` collects at addr: the locals of each
    block from addr's up to and including the first function block."""
    out: list[Symbol] = []
    seen: set[str] = set()
    b = gdb.block_for_pc(addr)
    while b is not None and not (b.is_static or b.is_global):
        for s in b:
            if s.addr_class in _LOCAL_CLASSES and not s.is_argument:
                out.append(Symbol(s, None if s.name in seen else s.name))
        seen.update(s.name for s in b if _is_var(s))
        if b.function is not None:
            break
        b = b.superblock
    return out


def args_at(addr: int) -> list[Symbol]:
    """What gdb's `collect $args` collects at addr: the arguments of the
    (not inlined) function addr is in.  A name gdb looks up at an
    inlined site stops at the inlined function, and one in an inner
    block may hide an argument: those are named FUNCTION::NAME."""
    inner = gdb.block_for_pc(addr)
    fb = _function_block(inner)
    if fb is None or fb.function is None:
        return []
    hidden: set[str] = set()
    inlined = False
    b = inner
    while b is not None and b.superblock is not None and not b.superblock.is_static:
        # a block inside the function's own one
        hidden.update(s.name for s in b if _is_var(s))
        inlined = inlined or b.function is not None
        b = b.superblock
    out = []
    for s in fb:
        if s.is_argument:
            plain = not inlined and s.name not in hidden
            out.append(Symbol(s, s.name if plain else "%s::%s" % (fb.function.name, s.name)))
    return out


def _set_actions(number: int, lines: list[str]) -> None:
    """Give tracepoint NUMBER these action lines; gdb checks each at
    every location and raises gdb.error with its reason."""
    gdb.execute("commands %d\n%s\nend" % (number, "\n".join(lines + [""])),
                to_string=True)


class Compiler:
    """Compiles collect items as gdb's action check does, on one
    tracepoint; results are remembered."""

    def __init__(self, tp: Tracepoint, fmt: str) -> None:
        self.tp = tp
        self.fmt = fmt
        self.all: dict[str, Optional[str]] = {}
        self.one: dict[tuple[int, str], Optional[str]] = {}
        self.scratch: dict[int, int] = {}

    def everywhere(self, item: str) -> Optional[str]:
        """None if item compiles at every location, else gdb's reason at
        the first where it does not."""
        if item not in self.all:
            try:
                _set_actions(self.tp.number, ["collect%s %s" % (self.fmt, item)])
                self.all[item] = None
            except gdb.error as e:
                self.all[item] = str(e)
        return self.all[item]

    def at(self, loc: Location, item: str) -> Optional[str]:
        """None if item compiles at loc, else gdb's reason."""
        err = self.everywhere(item)
        if err is None or len(self.tp.locations) == 1:
            return err
        key = (loc.addr, item)
        if key not in self.one:
            try:
                n = self._scratch(loc.addr)
            except gdb.error:
                # which location is then unknown, not whether it fails
                return err
            try:
                _set_actions(n, ["collect%s %s" % (self.fmt, item)])
                self.one[key] = None
            except gdb.error as e:
                self.one[key] = str(e)
        return self.one[key]

    def _scratch(self, addr: int) -> int:
        if addr not in self.scratch:
            if not self.scratch:
                self.saved = {v: gdb.convenience_variable(v) for v in ("bpnum", "tpnum")}
            out = gdb.execute("trace *0x%x" % addr, to_string=True)
            m = re.search(r"racepoint (\d+) at", out)
            if not m:
                raise gdb.error("cannot place a scratch tracepoint at 0x%x: %s"
                                % (addr, out.strip()))
            self.scratch[addr] = int(m.group(1))
        return self.scratch[addr]

    def close(self) -> None:
        for n in self.scratch.values():
            try:
                gdb.execute("delete %d" % n, to_string=True)
            except gdb.error:
                pass
        if self.scratch:
            for v, val in self.saved.items():
                gdb.set_convenience_variable(v, val)
        self.scratch = {}


def _skipped(err: str) -> Optional[str]:
    """gdb's own line for a symbol it skips at tstart (optimized out, a
    constant), or None when err is a failure."""
    m = _OPTIMIZED.match(err)
    if m:
        return "%s has been optimized out of existence." % m.group(1)
    m = _CONST.match(err)
    if m:
        return "constant %s (value %s) will not be collected." % m.groups()
    return None


class Plan:
    """The action text of one tracepoint for this tstart, and what to
    say about it."""

    def __init__(self, tp: Tracepoint) -> None:
        self.tp = tp
        self.lines: list[str] = []
        self.notes: list[str] = []
        self.fails = False
        self.rewrite = False  # $args at an inlined site: add its parameters

    def drop(self, loc: Location, text: str, err: str) -> None:
        self.notes.append("gtp: %s: not collecting `%s': %s" % (self.tp.name(loc), text, err))


def inline_args_at(addr: int) -> list[Symbol]:
    """The parameters of the inlined function addr is in (innermost), or
    none.  gdb's `collect $args` leaves them out (it takes the containing
    function's), but `tdump` and `info args` in that frame show them."""
    b = gdb.block_for_pc(addr)
    while b is not None and b.superblock is not None and not b.superblock.is_static:
        if b.function is not None:
            return [Symbol(s, s.name) for s in b if s.is_argument]
        b = b.superblock
    return []


def _expand(tp: Tracepoint, item: str) -> list[tuple[Location, Symbol]]:
    """(location, symbol) for each symbol a $locals or $args item stands
    for, location by location."""
    fn = locals_at if _kind(item) == "locals" else args_at
    return [(loc, s) for loc in tp.locations for s in fn(loc.addr)]


def _plan_names(plan: Plan, cc: Compiler, pairs: list[tuple[Location, Symbol]]) -> list[str]:
    """The names that replace $locals/$args: those that compile at every
    location.  Notes, for the others, where and why; gdb's own line for
    one it would itself have skipped at every location it is in."""
    tp = plan.tp
    keep: list[str] = []
    order: list[str] = []
    home: dict[str, list[Location]] = {}
    for loc, s in pairs:
        if s.text is None:
            if s.sym.addr_class == gdb.SYMBOL_LOC_OPTIMIZED_OUT:
                plan.notes.append("%s has been optimized out of existence." % s.sym.name)
            else:
                plan.drop(loc, s.sym.name, "hidden by an inner `%s'" % s.sym.name)
            continue
        if s.text not in home:
            order.append(s.text)
            home[s.text] = []
        home[s.text].append(loc)
    for text in order:
        if cc.everywhere(text) is None:
            keep.append(text)
            continue
        errs = [(loc, cc.at(loc, text)) for loc in tp.locations]
        # At tstart gdb compiles a symbol only where it stands for it.
        if any(e is not None and _skipped(e) is None for loc, e in errs if loc in home[text]):
            plan.fails = True
        # (a location unknown: the first one, with gdb's reason)
        gone = [(loc, e) for loc, e in errs if e is not None] or \
            [(tp.locations[0], cc.everywhere(text))]
        collected = any(e is None for loc, e in errs if loc in home[text])
        if collected or any(_skipped(e) is None for _, e in gone):
            loc, e = next((x for x in gone if _skipped(x[1]) is None), gone[0])
            plan.drop(loc, text, e)
        else:
            plan.notes.extend(_skipped(e) for loc, e in gone if loc in home[text])
    return keep


def plan(tp: Tracepoint) -> Plan:
    """The action text tp needs for tstart not to fail on one item
    (Plan.fails), found by trying items on tp itself: the caller sets
    tp's actions afterwards, whatever happens here."""
    p = Plan(tp)
    ccs: dict[str, Compiler] = {}
    try:
        for line in tp.actions:
            m = _COLLECT.match(line)
            if line.startswith(" ") or not m:
                p.lines.append(line)
                continue
            fmt = m.group(2) or ""
            cc = ccs.setdefault(fmt, Compiler(tp, fmt))
            items: list[str] = []
            for item in split_items(m.group(3)):
                kind = _kind(item)
                if kind == "keep":
                    items.append(item)
                elif kind == "expr":
                    err = cc.everywhere(item)
                    if err is None:
                        items.append(item)
                        continue
                    p.fails = True
                    loc = next((lc for lc in tp.locations if cc.at(lc, item) is not None),
                               tp.locations[0])
                    p.drop(loc, item, cc.at(loc, item) or err)
                else:
                    pairs = _expand(tp, item)
                    if _kind(item) == "args":
                        inl = [(lc, sym) for lc in tp.locations for sym in inline_args_at(lc.addr)]
                        # what tdump will show at an inlined site
                        p.rewrite = p.rewrite or bool(inl)
                        pairs += inl
                    for name in _plan_names(p, cc, pairs):
                        if name not in items:
                            items.append(name)
            if items:
                p.lines.append("%s%s %s" % (m.group(1), fmt, ", ".join(items)))
    finally:
        for cc in ccs.values():
            cc.close()
    return p


def before_tstart() -> None:
    """hook-tstart: replace the action text of each tracepoint that
    would make tstart fail.  Never raises: an exception here would
    abort the tstart it is there to save."""
    try:
        restore()
        tps = tracepoints()
    except Exception as e:  # noqa: BLE001 - the hook must not fail tstart
        gdb.write("gtp: not checking the tracepoints' collect actions: %s\n" % e)
        return
    for tp in tps:
        # Disabled tracepoints are downloaded, and compiled, too.
        if not tp.locations or not any(_COLLECT.match(a) for a in tp.actions):
            continue
        # Trying items changes tp's actions: from here on they are put
        # back after tstart whatever happens.
        _pending[tp.number] = tp.actions
        try:
            p = plan(tp)
            change = p.fails or p.rewrite
            for note in p.notes if change else []:
                gdb.write(note + "\n")
            _set_actions(tp.number, p.lines if change else tp.actions)
            if not change:
                del _pending[tp.number]
        except Exception as e:  # noqa: BLE001
            gdb.write("gtp: tracepoint %d: collect actions not checked: %s\n" % (tp.number, e))
            try:
                _set_actions(tp.number, tp.actions)
            except gdb.error:
                pass


class Saved:
    """What a hook-tstart changed on tracepoints for one tstart (number ->
    the user's text, here their action lines; strcond.py's conditions),
    and putting it back: at hookpost-tstart, or at the next prompt when
    tstart failed (no hookpost then) or was interrupted."""

    def __init__(self, what: str, put) -> None:
        self.what = what        # "actions", for the messages
        self.put = put          # put(number, text): gdb.error if it fails
        self.pending: dict = {}
        gdb.events.before_prompt.connect(self.on_prompt)

    def restore(self) -> None:
        while self.pending:
            number, text = self.pending.popitem()
            try:
                self.put(number, text)
            except gdb.error as e:
                if "No breakpoint number" not in str(e):
                    gdb.write("gtp: tracepoint %d: could not put back its %s: %s\n"
                              % (number, self.what, e))

    def after_tstart(self) -> None:
        """hookpost-tstart."""
        try:
            self.restore()
        except Exception as e:  # noqa: BLE001
            gdb.write("gtp: %s\n" % e)

    def on_prompt(self) -> None:
        if self.pending:
            self.after_tstart()


_saved = Saved("actions", _set_actions)
_pending = _saved.pending
restore = _saved.restore
after_tstart = _saved.after_tstart
_on_prompt = _saved.on_prompt


def _user_hook(name: str) -> Optional[str]:
    """The body of user command NAME, or None if it is not defined."""
    try:
        return gdb.execute("show user " + name, to_string=True)
    except gdb.error:
        return None


def register() -> None:
    bodies = {h: _user_hook(h) for h in ("hook-tstart", "hookpost-tstart")}
    theirs = [h for h, body in bodies.items() if body is not None and _MARK not in body]
    if theirs:
        gdb.write("gtp: you have your own %s: not installing gtp's, so a collect "
                  "item gdb cannot compile still makes tstart fail\n" % " and ".join(theirs))
        return
    gdb.execute("define hook-tstart\n%s\nend" % _PRE, to_string=True)
    gdb.execute("define hookpost-tstart\n%s\nend" % _POST, to_string=True)
