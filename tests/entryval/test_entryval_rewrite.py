#!/usr/bin/env python3
"""Host unit tests of gdb-scripts/gtpgdb/entryval.py: DW_OP_entry_value
rewritten into a read of the module's entry-value window.

tests/entryval/ev.c, built by this host's gcc -O2 -g (DWARF 5 and 4; an
executable, one linked with --emit-relocs, an object file), has a function
whose six arguments are DW_OP_entry_value(DW_OP_regN) at its return.
This host's gdb (and trixie's 16 and 18 when installed) must refuse to
compile them into agent expressions before the patch and compile
`const8 K; trace_quick 8; ref64` after it.  Then the
same on Debian's 6.1 vmlinux (build/dbg/vmlinux-KVER, `make dbg-vmlinux`;
skipped without it).

    python3 tests/entryval/test_entryval_rewrite.py
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "gdb-scripts"))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import tap  # noqa: E402
from gtpgdb import entryval as E  # noqa: E402

SRC = os.path.join(REPO, "tests", "entryval", "ev.c")
KVER = subprocess.run(["bash", "-c", '. "$1/tests/vm/kernels" && kv_default', "kv", REPO],
                      stdout=subprocess.PIPE, check=True).stdout.decode().strip()
VMLINUX = os.path.join(REPO, "build", "dbg", "vmlinux-" + KVER)

ARGS = {"a": 5, "b": 4, "c": 1, "d": 2, "e": 8, "f": 9}    # DWARF register numbers
REFUSED = r"DWARF operator DW_OP_(GNU_)?entry_value cannot be translated to an agent expression"


def _gdbs():
    """This host's gdb, and trixie's 16 and 18 when make deps-matrix
    installed them (tests/vm/trixie-gdb)."""
    out = [["gdb"]]
    for v in ("16", "18"):
        argv = [os.path.join(REPO, "tests", "vm", "trixie-gdb"), v]
        try:
            subprocess.run(argv + ["--version"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True, timeout=60)
            out.append(argv)
        except (OSError, subprocess.SubprocessError):
            pass
    return out


GDBS = _gdbs()


def gdb(path, *cmds, argv0=("gdb",)):
    argv = list(argv0) + ["-nx", "-q", "-batch", path]
    for c in cmds:
        argv += ["-ex", c]
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=300).stdout.decode()


def agent(k):
    """gdb's `maint agent` for a read of the entry value at K."""
    return r"0\s+const8 %d\n\s*2\s+trace_quick 8\n\s*4\s+ref64\n" % k


def ranges(scope, var):
    """[(start address, expression text)] of var's ranges in `info scope`."""
    m = re.search(r"^Symbol %s is multi-location:\n(.*?)^, length" % var, scope, re.M | re.S)
    assert m, (var, scope)
    return [(int(r.group(1), 16), r.group(2)) for r in
            re.finditer(r"Range (0x[0-9a-f]+)-0x[0-9a-f]+: (.*?)(?=Range 0x|\Z)",
                        m.group(1), re.S)]


def gdb_each(path, cmds, argv0=("gdb",)):
    """gdb's output for each of cmds."""
    out = gdb(path, *[c for cmd in cmds for c in (cmd, "echo =====\\n")], argv0=argv0)
    return out.split("=====\n")[:len(cmds)]


def diff_ops(old, new):
    """[(position, old bytes, new bytes)] of each 3-byte rewrite where old
    and new differ (they may be adjacent); a run of another length is
    returned whole, and fails the callers' checks."""
    runs, i, n = [], 0, min(len(old), len(new))
    while i < n:
        if old[i] != new[i]:
            j = i
            while j < n and old[j] != new[j]:
                j += 1
            if (j - i) % 3:
                runs.append((i, bytes(old[i:j]), bytes(new[i:j])))
            else:
                runs += [(k, bytes(old[k:k + 3]), bytes(new[k:k + 3])) for k in range(i, j, 3)]
            i = j
        i += 1
    return runs


class TestOps(unittest.TestCase):
    """The rewrite and the expression decoder on bytes."""

    def test_window(self):
        # one DW_OP_const1u byte each, inside the module's window, 8 apart
        ks = [E.ev_addr(r) for r in E.EV_REGS]
        self.assertEqual(sorted(ks), [0x18, 0x20, 0x30, 0x38, 0x50, 0x58])
        self.assertTrue(all(E.EV_BASE <= k and k + 8 <= E.EV_END and k < 0x100 for k in ks))

    def test_rewrite_forms(self):
        # DW_OP_entry_value(DW_OP_reg5); DW_OP_stack_value
        self.assertEqual(E._rewrite(bytes.fromhex("a301559f"), 0), (bytes.fromhex("083806"), 5))
        # DW_OP_GNU_entry_value(DW_OP_reg9)
        self.assertEqual(E._rewrite(bytes.fromhex("f301599f"), 0), (bytes.fromhex("085806"), 9))
        # DW_OP_entry_value(DW_OP_breg4 0): one byte longer, a DW_OP_nop
        self.assertEqual(E._rewrite(bytes.fromhex("a30274009f"), 0),
                         (bytes.fromhex("08300696"), 4))
        # left alone: rbx (not an argument register), a breg with an
        # offset, a longer block
        for other in ("a301539f", "a30275089f", "a3037500069f"):
            self.assertIsNone(E._rewrite(bytes.fromhex(other), 0), other)

    def test_decode(self):
        ev = E._entry_values
        d = bytes.fromhex("a301559f")
        self.assertEqual(ev(d, 0, len(d), 8, 4), [0])
        # DW_OP_breg7 -8 (SLEB), DW_OP_deref, DW_OP_GNU_entry_value(reg4),
        # DW_OP_plus, DW_OP_stack_value
        d = bytes.fromhex("7778" "06" "f30154" "22" "9f")
        self.assertEqual(ev(d, 0, len(d), 8, 4), [3])
        # a block holding an a3 byte is skipped whole: DW_OP_implicit_value 2 {a3 01}
        d = bytes.fromhex("9e02a301")
        self.assertEqual(ev(d, 0, len(d), 8, 4), [])
        # DW_OP_addr's 8 bytes, then DW_OP_entry_value
        d = bytes.fromhex("03" "a3015500000000a3" "a30155")
        self.assertEqual(ev(d, 0, len(d), 8, 4), [9])
        # an operator unknown (0x01), an operand past the end: not decoded
        self.assertIsNone(ev(bytes.fromhex("01a30155"), 0, 4, 8, 4))
        self.assertIsNone(ev(bytes.fromhex("0c0000"), 0, 3, 8, 4))


class TestThroughGdb(unittest.TestCase):
    """ev.c's six arguments, as this host's gdb compiles them."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gtp-entryval-")
        cls.files = {}
        for dwarf in (5, 4):
            for kind, flags in (("exe", []), ("relocs", ["-Wl,--emit-relocs"]),
                                ("obj", ["-c"])):
                out = os.path.join(cls.tmp, "ev%d-%s" % (dwarf, kind))
                subprocess.run(["gcc", "-O2", "-g", "-gdwarf-%d" % dwarf] + flags +
                               ["-o", out, SRC], check=True)
                cls.files[dwarf, kind] = out
        print("# gdb: %s" % ", ".join(" ".join(os.path.basename(w) for w in g) for g in GDBS),
              file=sys.stderr)
        with open(SRC) as f:
            cls.line = next(i + 1 for i, t in enumerate(f) if "a..f: entry values" in t)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def patched(self, key, guess=False):
        src = self.files[key]
        dst = src + (".guess" if guess else ".ev")
        return dst, E.patch_file(src, dst, guess)

    def check(self, key):
        src = self.files[key]
        dst, st = self.patched(key)
        want = "offsets from .debug_info" if key[1] != "exe" else "guessed cut"
        self.assertEqual(st.how, ["%s: %s" % (".debug_loclists" if key[0] == 5 else
                                             ".debug_loc", want)])
        # every argument register's entry value, and nothing else
        self.assertTrue(all(st.patched[r] >= 1 for r in ARGS.values()), st.as_dict())
        self.assertEqual((st.other_ev, st.unknown, st.unparsed), (0, 0, 0))
        with open(src, "rb") as f:
            old = f.read()
        with open(dst, "rb") as f:
            new = f.read()
        self.assertEqual(len(old), len(new))
        runs = diff_ops(old, new)
        self.assertEqual(len(runs), st.total())
        for p, o, n in runs:
            reg = o[2] - 0x50
            self.assertEqual((o[0] in (0xa3, 0xf3), o[1], n), (True, 1, bytes(
                (0x08, E.ev_addr(reg), 0x06))), (key, hex(p), o, n))
        # before: gdb refuses each argument; after: a read of 8 bytes at K
        cmds = ["maint agent -at ev.c:%d, %s" % (self.line, v) for v in ARGS]
        for argv0 in GDBS:
            before, after = gdb_each(src, cmds, argv0), gdb_each(dst, cmds, argv0)
            for (var, reg), b, a in zip(ARGS.items(), before, after):
                self.assertRegex(b, REFUSED, (key, var, argv0))
                self.assertRegex(a, agent(E.ev_addr(reg)), (key, var, argv0))

    def test_dwarf5_executable(self):
        self.check((5, "exe"))

    def test_dwarf5_emit_relocs(self):
        self.check((5, "relocs"))

    def test_dwarf5_object(self):
        self.check((5, "obj"))

    def test_dwarf4_executable(self):
        self.check((4, "exe"))

    def test_dwarf4_emit_relocs(self):
        self.check((4, "relocs"))

    def test_dwarf4_object(self):
        # a relocatable .debug_loc: its address pairs read (0, 0) until
        # relocated, and end no list
        self.check((4, "obj"))

    def test_guess_agrees(self):
        """Cut without .debug_info's offsets (a vmlinux since about 6.12),
        the lists give the same bytes."""
        for key in self.files:
            if key[1] != "exe":
                a, _ = self.patched(key)
                b, _ = self.patched(key, guess=True)
                with open(a, "rb") as f, open(b, "rb") as g:
                    self.assertEqual(f.read(), g.read(), key)

    def test_unknown_operator_left_whole(self):
        """An expression with an operator the table lacks is not touched,
        and counted; the others are patched as before."""
        with open(self.files[5, "obj"], "rb") as f:
            data = bytearray(f.read())
        ref = E.patch_image(bytearray(data))
        # a's last range: DW_OP_entry_value(DW_OP_reg5) DW_OP_stack_value;
        # its stack_value becomes 0x01, reserved
        p = data.find(bytes.fromhex("a301559f"))
        self.assertGreater(p, 0)
        data[p + 3] = 0x01
        st = E.patch_image(data)
        self.assertEqual(st.unknown, 1)
        self.assertEqual(st.patched[5], ref.patched[5] - 1)
        self.assertEqual(bytes(data[p:p + 4]), bytes.fromhex("a3015501"))
        self.assertIn("1 left as they were", st.brief())


class TestCopies(unittest.TestCase):
    """patched_copy(): made once next to the file, else in the cache,
    made again when the file changes, and why not when it cannot be."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gtp-entryval-")
        self.src = os.path.join(self.tmp, "dir", "ev")
        os.mkdir(os.path.dirname(self.src))
        subprocess.run(["gcc", "-O2", "-g", "-o", self.src, SRC], check=True)
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.tmp, "cache"))

    def tearDown(self):
        subprocess.run(["chmod", "-R", "u+w", self.tmp])
        shutil.rmtree(self.tmp)

    def run_copy(self, as_nobody=False, src=None):
        """patched_copy(src) in a child (as nobody if asked and root)."""
        code = ("import sys; sys.path.insert(0, %r)\n"
                "from gtpgdb import entryval as E\n"
                "try:\n"
                "    c, st = E.patched_copy(%r, lambda l: print('log', l))\n"
                "    print('copy', c, st.total())\n"
                "except E.EntryvalError as e:\n"
                "    print('error', e)\n" % (os.path.join(REPO, "gdb-scripts"), src or self.src))
        argv = [sys.executable, "-c", code]
        if as_nobody and os.geteuid() == 0:
            os.chmod(self.tmp, 0o755)
            os.chmod(self.src, 0o755)
            argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + argv
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              env=self.env, timeout=120).stdout.decode()

    def test_next_to_the_file_once(self):
        out = self.run_copy()
        self.assertRegex(out, r"(?m)^log writing %s\.gtp-ev" % re.escape(self.src))
        made = re.search(r"(?m)^copy %s\.gtp-ev ([1-9]\d*)$" % re.escape(self.src), out)
        self.assertTrue(made, out)
        # current: found, not made again
        out = self.run_copy()
        self.assertNotIn("log", out)
        self.assertRegex(out, r"(?m)^copy %s\.gtp-ev %s$" % (re.escape(self.src), made.group(1)))
        with open(self.src + ".gtp-ev.json") as f:
            self.assertIn("build_id", f.read())
        # the file changed: made again
        st = os.stat(self.src)
        os.utime(self.src, (st.st_atime, st.st_mtime + 10))
        self.assertRegex(self.run_copy(), r"(?m)^log writing ")

    def test_through_a_symlinked_directory(self):
        """The same file reached through a symlinked directory (a git
        worktree's build/dbg) finds the copy made through the other path,
        and does not make another."""
        made = re.search(r"(?m)^copy (\S+) ([1-9]\d*)$", self.run_copy())
        self.assertTrue(made)
        link = os.path.join(self.tmp, "link")
        os.symlink(os.path.dirname(self.src), link)
        out = self.run_copy(src=os.path.join(link, "ev"))
        self.assertNotIn("log", out)
        self.assertEqual(out.strip(), "copy %s %s" % made.groups())

    def test_in_the_cache(self):
        """A directory it cannot write to: the copy goes to the cache, by
        build id; neither writable: an error saying both whys."""
        os.chmod(os.path.dirname(self.src), 0o555)
        os.makedirs(self.env["XDG_CACHE_HOME"])
        os.chmod(self.env["XDG_CACHE_HOME"], 0o777)
        out = self.run_copy(as_nobody=True)
        m = re.search(r"^copy (\S+) [1-9]\d*$", out, re.M)
        self.assertTrue(m, out)
        self.assertRegex(m.group(1), r"^%s/gtp/[0-9a-f]{40}/ev\.gtp-ev$"
                         % re.escape(self.env["XDG_CACHE_HOME"]))
        shutil.rmtree(self.env["XDG_CACHE_HOME"])
        os.makedirs(self.env["XDG_CACHE_HOME"], 0o555)
        out = self.run_copy(as_nobody=True)
        self.assertRegex(out, r"(?m)^error no patched copy: %s is not writable; %s is not "
                         r"writable$" % (re.escape(os.path.dirname(self.src)),
                                         re.escape(self.env["XDG_CACHE_HOME"])))


class TestModule(unittest.TestCase):
    """gtp_test.ko as built for the default kernel (what gtp-load-module
    patches in its copy): relocatable DWARF 5."""

    def test_module(self):
        for path in (os.path.join(REPO, "build", "kmod", KVER, "tracepoints", "gtp_test.ko"),
                     os.path.join(REPO, "tracepoints", "gtp_test.ko")):
            if os.path.exists(path):
                break
        else:
            raise unittest.SkipTest("no gtp_test.ko built for %s" % KVER)
        with open(path, "rb") as f:
            old = f.read()
        new, guessed = bytearray(old), bytearray(old)
        st = E.patch_image(new)
        E.patch_image(guessed, guess=True)
        print("# %s: %s" % (path, st.summary()), file=sys.stderr)
        self.assertEqual(st.how, [".debug_loclists: offsets from .debug_info"])
        self.assertGreater(st.total(), 0)
        self.assertEqual(len(diff_ops(old, new)), st.total())
        self.assertEqual(new, guessed)


class TestVmlinux(unittest.TestCase):
    """Debian's 6.1 vmlinux: the copy gtp-load-vmlinux loads."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(VMLINUX):
            raise unittest.SkipTest("no %s (make dbg-vmlinux)" % VMLINUX)
        t0 = time.time()
        cls.copy, cls.st = E.patched_copy(VMLINUX)
        print("# %s: %s (%.1fs)" % (cls.copy, cls.st.summary(), time.time() - t0),
              file=sys.stderr)

    def test_counts(self):
        st = self.st
        self.assertGreater(st.total(), 100000)
        self.assertTrue(all(n > 0 for n in st.patched.values()), st.as_dict())
        self.assertEqual((st.unknown, st.unparsed), (0, 0))

    def test_scope(self):
        """vfs_read's arguments mid-function: where gdb showed
        DW_OP_entry_value and refused to compile them, the copy has
        DW_OP_const1u K and gdb compiles a read of 8 bytes at K."""
        scope = gdb(self.copy, "info scope vfs_read")
        orig = gdb(VMLINUX, "info scope vfs_read")
        found = []
        for var in ("file", "buf", "count", "pos"):
            was = dict(ranges(orig, var))
            for start, expr in ranges(scope, var):
                m = re.search(r"DW_OP_const1u (\d+)\n", expr)
                if m:
                    self.assertIn("DW_OP_entry_value", was[start], (var, hex(start)))
                    found.append((var, int(m.group(1)), start))
        self.assertGreaterEqual(len(found), 4, scope)
        # a line of vfs_read where one of them is an entry value (most
        # lines also have inlined copies elsewhere, which maint agent
        # may pick instead): each range's first line, tried
        lines = gdb_each(self.copy, ["info line *%#x" % s for _, _, s in found])
        cands = []
        for (var, k, start), out in zip(found, lines):
            m = re.search(r'^Line (\d+) of "(\S+)" starts at address (0x[0-9a-f]+) '
                          r'<vfs_read\+\d+>', out, re.M)
            if m and int(m.group(3), 16) == start:
                cands.append((var, k, start, "%s:%s" % (m.group(2), m.group(1))))
        cmds = ["maint agent -at %s, %s" % (at, var) for var, _, _, at in cands]
        after = gdb_each(self.copy, cmds)
        hit = [(c, i) for i, c in enumerate(cands) if "Scope: %#x\n" % c[2] in after[i]]
        self.assertTrue(hit, (cands, after))
        (var, k, start, at), i = hit[0]
        before = gdb_each(VMLINUX, [cmds[i]])[0]
        print("# vfs_read's %s at %s (%#x): refused, then a read at %#x" % (var, at, start, k),
              file=sys.stderr)
        self.assertRegex(before, REFUSED)
        self.assertRegex(after[i], agent(k))

    def test_only_the_ops(self):
        """The copy is the file but for the rewritten operators (build id,
        .gdb_index and all), and a guess without .debug_info's offsets
        patches the same ones."""
        with open(VMLINUX, "rb") as f:
            def read(off, size):
                f.seek(off)
                return f.read(size)
            head = E._ElfHead(read)
            _, off, size = head.find(".debug_loclists")
            self.assertTrue(head.find(".gdb_index"))
            bid = head.build_id()
            old = read(off, size)
            outside = hashlib.sha1(read(0, off))
            f.seek(off + size)
            for chunk in iter(lambda: f.read(1 << 24), b""):
                outside.update(chunk)
        with open(self.copy, "rb") as f:
            copied = hashlib.sha1(f.read(off))
            new = bytearray(f.read(size))
            for chunk in iter(lambda: f.read(1 << 24), b""):
                copied.update(chunk)
        self.assertEqual(outside.hexdigest(), copied.hexdigest())
        runs = diff_ops(old, new)
        self.assertEqual(len(runs), self.st.total())
        self.assertTrue(all(o[:2] == b"\xa3\x01" and o[2] - 0x50 in E.EV_REGS and
                            n == bytes((8, E.ev_addr(o[2] - 0x50), 6)) for _, o, n in runs))
        # the guess, on the section alone
        t0 = time.time()
        st = E.Stats()
        guessed = bytearray(old)
        E._patch_section(head, ".debug_loclists", guessed, 0, st, guess=True)
        print("# guessed cut: %s (%.1fs)" % (st.summary(), time.time() - t0), file=sys.stderr)
        self.assertEqual(guessed, new)
        with open(self.copy, "rb") as f:
            self.assertEqual(E._ElfHead(lambda o, s: (f.seek(o), f.read(s))[1]).build_id(),
                             bid)


if __name__ == "__main__":
    sys.exit(tap.main(globals(), all_skipped=0))
