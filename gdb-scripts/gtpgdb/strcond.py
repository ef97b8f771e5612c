# SPDX-License-Identifier: GPL-2.0
"""String compares in tracepoint conditions: `trace F if $current_comm ==
"nginx"`, `$_streq(X, "lit")`, `$_memeq(X, "lit", N)` and `'c'`.

gdb cannot compile any of them to an agent expression ("Cannot translate
to agent expression"): its C parser makes a character literal such as
'c' a one-char string (a c_string_operation, as it does "lit"), and
ax-gdb.c has no bytecode for a string nor for a call of an internal
function ($_streq, $_memeq are Python or C code in gdb, never on the
target).  What gdb does compile is a load of an integer through a cast
pointer: `*(unsigned long long *)&(X)[8] == 0x...` is a ref64 and an
equal.  So the compare is rewritten, before gdb compiles it, into
little-endian 8/4/2/1-byte loads of X compared with the literal's bytes
(for $_streq its terminating NUL included), and 'c' into its value.

gdb accepts such a condition at `trace ... if` and `condition N` (it
parses it, with an internal function call in it) and compiles it only at
tstart, for QTDP.  gdb 13's Python does not see tracepoints, nor can it
change a command's arguments, so the rewrite happens in hook-tstart
(joined to collectable.py's): every tracepoint's condition is read from
`info tracepoints`, rewritten, set with `condition N`, and put back as
the user wrote it after tstart (hookpost-tstart, or the next prompt when
tstart failed), so `info tracepoints` and `save tracepoints` show the
user's text.  The target gets the rewritten text in QTDPsrc too: a gdb
connecting later re-creates the tracepoint with the word compares.

What is refused, with a gdb error that aborts the tstart (nothing
reaches the target): a non-literal string or count, a literal longer
than a char array X (checked with X's type, read from the symbols at the
tracepoint's function: $variables typed as 0, the function's arguments
and locals as a null pointer of their type), a count beyond the
literal's bytes, an X that is not a char array or char pointer.  Action
lines (teval, collect) are compiled by gdb as they are entered, before
any hook: there the rewrite cannot happen.
"""
from __future__ import annotations

import re
from typing import Optional

import gdb

from . import collectable

_MARK = "gtpgdb.strcond"
# The hook's lines: a command, not a `python' line, so that a refusal is
# one gdb error (a GdbError out of `python' prints a traceback).
_PRE = "gtp-tstart-conditions"
_POST = 'python __import__("gtpgdb.strcond").strcond.after_tstart()'

# The current task's name: task_struct's comm through gtp's built-in.
COMM = "((struct task_struct *)$current_task)->comm"

# `info tracepoints`: a tracepoint's row and its condition's.
_HEAD = re.compile(r"^(\d+)\s+(?:fast |static )?tracepoint\s")
_COND = re.compile(r"^\s+trace only if (.*)$")

# Tokens the scan steps over whole: string and character literals (with
# an optional L/u/U/u8 prefix, refused), and $names.
_TOKEN = re.compile(r"""(?P<pre>\b(?:u8|[LuU]))?(?P<lit>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
                    r"""|(?P<var>\$[A-Za-z_]\w*)""")
_CALL = re.compile(r"\s*\(")
_CMP = re.compile(r"\s*(==|!=)\s*")
_ESC = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11,
        "e": 27, "\\": 92, "'": 39, '"': 34, "?": 63}
# an identifier that is not a member name (after . or ->) nor a $name
_IDENT = re.compile(r"(?<![\w$.])(?<!->)\b([A-Za-z_]\w*)\b")
_C_WORDS = {"struct", "union", "enum", "sizeof", "unsigned", "signed", "char",
            "short", "int", "long", "const", "volatile", "void", "float",
            "double", "_Bool"}
_WORDS = ((8, "unsigned long long"), (4, "unsigned int"), (2, "unsigned short"),
          (1, "unsigned char"))


def literal(tok: str) -> bytes:
    """The bytes of C string or character literal tok (quotes included),
    gdb's host charset taken as UTF-8."""
    body, out, i = tok[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        i += 1
        if c != "\\":
            out += c.encode()
            continue
        c = body[i]
        i += 1
        if c == "x":
            m = re.match(r"[0-9a-fA-F]+", body[i:])
            if not m:
                raise gdb.GdbError("gtp: \\x with no hex digits in %s" % tok)
            out.append(int(m.group(0), 16) & 0xff)
            i += len(m.group(0))
        elif c in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i - 1:])
            out.append(int(m.group(0), 8) & 0xff)
            i += len(m.group(0)) - 1
        elif c in _ESC:
            out.append(_ESC[c])
        else:
            raise gdb.GdbError("gtp: unknown escape \\%s in %s" % (c, tok))
    return bytes(out)


def _closing(text: str, start: int) -> int:
    """Index of the ')' matching the '(' at text[start]."""
    depth, i = 0, start
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m and m.group("lit"):
            i = m.end()
            continue
        if text[i] in "([":
            depth += 1
        elif text[i] in ")]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise gdb.GdbError("gtp: unbalanced parentheses in: %s" % text)


def _string_arg(arg: str, what: str) -> bytes:
    m = _TOKEN.fullmatch(arg.strip())
    if not m or not m.group("lit") or not m.group("lit").startswith('"') or m.group("pre"):
        raise gdb.GdbError("gtp: %s: the string must be one plain \"literal\", not `%s' "
                           "(the target compares fixed bytes)" % (what, arg.strip()))
    return literal(m.group("lit"))


class Scope:
    """Types in the scope of a tracepoint's location, for a char array's
    size: gdb 13's Python evaluates only at global scope, so a $variable
    becomes 0 and an argument or local of the function (found in the
    location's blocks) a null pointer of its type; sizeof and member
    access never read memory."""

    def __init__(self, addrs: list[int]) -> None:
        self.blocks = [b for b in (self._block(a) for a in addrs) if b is not None]

    @staticmethod
    def _block(addr: int) -> Optional[gdb.Block]:
        try:
            return gdb.block_for_pc(addr)
        except RuntimeError:
            return None

    def _local(self, name: str) -> Optional[gdb.Type]:
        """The type of the function's argument or local NAME (a static
        one is typed at global scope as it is)."""
        for b in self.blocks:
            sym = gdb.lookup_symbol(name, b)[0]
            if sym is not None and (sym.is_argument or sym.is_variable) and \
                    sym.addr_class != gdb.SYMBOL_LOC_STATIC:
                return sym.type
        return None

    def typed(self, expr: str) -> str:
        """expr with $names and the function's symbols as typed nulls."""
        out = re.sub(r"\$[A-Za-z_]\w*", "0", expr)

        def local(m: re.Match) -> str:
            if m.group(1) in _C_WORDS:
                return m.group(0)
            t = self._local(m.group(1))
            if t is None:
                return m.group(0)
            return "(*(%s *)0)" % t if t.code != gdb.TYPE_CODE_ARRAY else \
                "(*(%s (*)[%d])0)" % (t.target(), t.range()[1] + 1)
        return _IDENT.sub(local, out)

    def bytes_of(self, expr: str, what: str) -> Optional[int]:
        """The size of char array expr, None for a char pointer; refuses
        anything else.  `whatis' and sizeof evaluate without reading
        memory (a null pointer's member has a type, not a value)."""
        typed = self.typed(expr)
        try:
            shown = gdb.execute("whatis %s" % typed, to_string=True)
            shown = shown.split("=", 1)[-1].strip()
            if shown.endswith(("]", "*")):
                elem = int(gdb.parse_and_eval("sizeof((%s)[0])" % typed))
                size = int(gdb.parse_and_eval("sizeof(%s)" % typed))
        except gdb.error as e:
            raise gdb.GdbError("gtp: %s: cannot tell the type of `%s': %s" % (what, expr, e))
        if not shown.endswith(("]", "*")) or elem != 1:
            raise gdb.GdbError("gtp: %s: `%s' is of type %s, not a char array or char pointer"
                               % (what, expr, shown))
        return size if shown.endswith("]") else None


def compare(expr: str, data: bytes) -> str:
    """An expression gdb compiles that is 1 when the len(data) bytes at
    &(expr)[0] are data: little-endian word loads, widest first."""
    if gdb.execute("show endian", to_string=True).find("little endian") < 0:
        raise gdb.GdbError("gtp: string compares are built for a little-endian target")
    terms, off = [], 0
    while off < len(data):
        size, ctype = next(w for w in _WORDS if w[0] <= len(data) - off)
        value = int.from_bytes(data[off:off + size], "little")
        terms.append("*(%s *)&(%s)[%d] == 0x%x" % (ctype, expr, off, value))
        off += size
    return "(%s)" % " && ".join(terms) if terms else "1"


def _streq(args: list[str], scope: Scope) -> str:
    what = "$_streq(%s)" % ", ".join(args)
    if len(args) != 2:
        raise gdb.GdbError("gtp: %s: takes two arguments" % what)
    lit = [i for i, a in enumerate(args) if _TOKEN.fullmatch(a.strip() or " ")
           and (_TOKEN.fullmatch(a.strip()).group("lit") or "").startswith('"')]
    if len(lit) != 1:
        raise gdb.GdbError("gtp: %s: one argument must be a string \"literal\", the "
                           "other the char array or pointer it is compared with" % what)
    data = _string_arg(args[lit[0]], what) + b"\0"
    expr = args[1 - lit[0]].strip()
    return _checked(expr, data, len(data), what, scope)


def _memeq(args: list[str], scope: Scope) -> str:
    what = "$_memeq(%s)" % ", ".join(args)
    if len(args) != 3:
        raise gdb.GdbError("gtp: %s: takes three arguments" % what)
    data = _string_arg(args[1], what) + b"\0"
    try:
        n = int(args[2].strip(), 0)
    except ValueError:
        raise gdb.GdbError("gtp: %s: the count must be an integer literal, not `%s'"
                           % (what, args[2].strip()))
    if not 0 <= n <= len(data):
        raise gdb.GdbError("gtp: %s: %d bytes, but the literal has %d with its NUL"
                           % (what, n, len(data)))
    return _checked(args[0].strip(), data[:n], n, what, scope)


def _checked(expr: str, data: bytes, n: int, what: str, scope: Scope) -> str:
    size = scope.bytes_of(expr, what)
    if size is not None and n > size:
        raise gdb.GdbError("gtp: %s: compares %d bytes, but `%s' has %d (%r is too long)"
                           % (what, n, expr, size, data.rstrip(b"\0").decode(errors="replace")))
    return compare(expr, data)


def rewrite(text: str, scope: Scope) -> str:
    """text with its string compares made word compares and its character
    literals integers; the same text when there is none."""
    out, i = [], 0
    while i < len(text):
        m = _TOKEN.search(text, i)
        if not m:
            break
        out.append(text[i:m.start()])
        i = m.end()
        if m.group("var") in ("$_streq", "$_memeq") and _CALL.match(text, i):
            open_ = _CALL.match(text, i).end() - 1
            close = _closing(text, open_)
            args = collectable.split_items(text[open_ + 1:close])
            fn = _streq if m.group("var") == "$_streq" else _memeq
            out.append(fn(args, scope))
            i = close + 1
        elif m.group("var") == "$current_comm":
            cmp_ = _CMP.match(text, i)
            lit = cmp_ and _TOKEN.match(text, cmp_.end())
            what = "$current_comm"
            if not lit or not lit.group("lit"):
                raise gdb.GdbError("gtp: $current_comm is only compared: "
                                   "$current_comm == \"NAME\" or != \"NAME\"")
            data = _string_arg(lit.group(0), "%s %s" % (what, cmp_.group(1))) + b"\0"
            expr = _checked(COMM, data, len(data), what + " " + cmp_.group(1), scope)
            out.append(expr if cmp_.group(1) == "==" else "!" + expr)
            i = lit.end()
        elif m.group("lit") and m.group("lit").startswith("'") and not m.group("pre"):
            data = literal(m.group("lit"))
            if len(data) != 1:
                out.append(m.group(0))
            else:
                # C's char is signed on x86: '\xff' is -1, as comm[0] loads it
                out.append("%d" % (data[0] - 256 if data[0] >= 128 else data[0]))
        else:
            out.append(m.group(0))
    out.append(text[i:])
    return "".join(out)


def conditions() -> list[tuple[int, str, list[int]]]:
    """(number, condition, location addresses) of each tracepoint with a
    condition, from `info tracepoints`."""
    conds: dict[int, str] = {}
    number = None
    for line in gdb.execute("info tracepoints", to_string=True).splitlines():
        h = _HEAD.match(line)
        if h:
            number = int(h.group(1))
            continue
        c = _COND.match(line)
        if c and number is not None and number not in conds:
            conds[number] = c.group(1).rstrip()
    return [(tp.number, conds[tp.number], [loc.addr for loc in tp.locations])
            for tp in collectable.tracepoints() if tp.number in conds]


def _needs(text: str) -> bool:
    return bool(re.search(r"\$_streq|\$_memeq|\$current_comm|'", text))


def _declare_current_task() -> None:
    """The rewrite of $current_comm reads gtp's built-in $current_task:
    gdb compiles it (getv) only when it is a trace state variable."""
    out = gdb.execute("info tvariables", to_string=True)
    if not re.search(r"^\$current_task\s", out, re.M):
        gdb.execute("tvariable $current_task", to_string=True)


def before_tstart() -> None:
    """hook-tstart: rewrite every condition gdb could not compile.  A
    refusal raises gdb.GdbError, which aborts the tstart, after putting
    back what was already rewritten."""
    restore()
    try:
        for number, cond, addrs in conditions():
            if not _needs(cond):
                continue
            try:
                new = rewrite(cond, Scope(addrs))
            except gdb.GdbError as e:
                raise gdb.GdbError("tracepoint %d: %s" % (number, e))
            if new == cond:
                continue
            if "$current_task" in new:
                _declare_current_task()
            _saved.pending[number] = cond
            _set_condition(number, new)
    except BaseException:
        restore()
        raise


def _set_condition(number: int, cond: str) -> None:
    gdb.execute("condition %d %s" % (number, cond), to_string=True)


_saved = collectable.Saved("condition", _set_condition)
restore = _saved.restore
after_tstart = _saved.after_tstart


def _body(hook: str) -> Optional[list[str]]:
    """The command lines of user command HOOK, or None if undefined."""
    try:
        text = gdb.execute("show user " + hook, to_string=True)
    except gdb.error:
        return None
    return [l.strip() for l in text.splitlines()[1:] if l.strip()]


class TstartConditions(gdb.Command):
    """Rewrite the string compares of tracepoint conditions for tstart.

Usage: gtp-tstart-conditions     (gtp's hook-tstart runs it)
Each condition's $current_comm == "NAME", $_streq(X, "LIT"),
$_memeq(X, "LIT", N) and 'c' become word compares gdb can compile;
hookpost-tstart puts back the text you wrote.  Fails, saying why, for a
compare it cannot rewrite."""

    def __init__(self) -> None:
        super().__init__("gtp-tstart-conditions", gdb.COMMAND_TRACEPOINTS)

    def invoke(self, arg: str, from_tty: bool) -> None:
        before_tstart()


def register() -> None:
    """Join gtp's hook-tstart and hookpost-tstart (collectable.py's, which
    registers first): this module's line first, so that a refusal stops
    tstart before collectable.py changes anything."""
    TstartConditions()
    for hook, line in (("hook-tstart", _PRE), ("hookpost-tstart", _POST)):
        body = _body(hook)
        if body is None or not any(collectable._MARK in l for l in body):
            gdb.write("gtp: %s is not gtp's: $current_comm, $_streq, $_memeq and "
                      "'c' in conditions are not rewritten\n" % hook)
            return
        body = [l for l in body if _MARK not in l and l != _PRE]
        gdb.execute("define %s\n%s\nend" % (hook, "\n".join([line] + body)), to_string=True)
