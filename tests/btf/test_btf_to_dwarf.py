#!/usr/bin/env python3
"""Host unit tests of gtp-kernel-symbols' BTF parser and DWARF/ELF writer.

Input: the BTF of Debian's 6.1 kernel (the vmlinuz's .BTF, xz-compressed
inside the bzImage) and of one of its modules (a .ko's .BTF, split against
vmlinux's).  The generated file is read back by this host's gdb, which must
see what BTF says.  Skipped (not failed) where that kernel is not installed.

    python3 tests/btf/test_btf_to_dwarf.py
"""
import lzma
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "gdb-scripts"))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import tap  # noqa: E402
from gtpgdb import btf as B, dwarfgen, ksyms, symfile  # noqa: E402

# Debian's default kernel of this release, as the guest harness picks it
# (named by package: a point release changes the ABI number).
KVER = subprocess.run(["bash", "-c", '. "$1/tests/vm/kernels" && kv_default', "kv", REPO],
                      stdout=subprocess.PIPE, check=True).stdout.decode().strip()
VMLINUZ = "/boot/vmlinuz-" + KVER
MODULE = "/lib/modules/%s/kernel/fs/9p/9p.ko" % KVER


def elf_section(data, want):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    stroff, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 24)
    for i in range(shnum):
        h = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        name = data[stroff + h[0]:data.index(b"\0", stroff + h[0])].decode()
        if name == want:
            return data[h[4]:h[4] + h[5]]
    return None


_cache = {}


def vmlinux_btf():
    if "vm" not in _cache:
        if not os.path.exists(VMLINUZ):
            raise unittest.SkipTest("no " + VMLINUZ)
        with open(VMLINUZ, "rb") as f:
            z = f.read()
        elf = lzma.LZMADecompressor().decompress(z[z.find(b"\xfd7zXZ\0"):])
        _cache["vm"] = B.Btf(elf_section(elf, ".BTF"))
    return _cache["vm"]


def module_btf():
    if not os.path.exists(MODULE):
        raise unittest.SkipTest("no " + MODULE)
    with open(MODULE, "rb") as f:
        return B.Btf(elf_section(f.read(), ".BTF"), vmlinux_btf(), "9p")


class TestBtf(unittest.TestCase):
    def test_vmlinux(self):
        vm = vmlinux_btf()
        self.assertGreater(vm.count, 50000)
        lh = vm.find(B.STRUCT, "list_head")
        self.assertEqual(len(lh), 1)
        self.assertEqual(vm.size_of(lh[0]), 16)
        self.assertEqual([m[0] for m in vm.members(lh[0])], ["next", "prev"])
        fn = vm.find(B.FUNC, "vfs_read")[0]
        self.assertEqual(vm.type_str(vm.type_ref(fn), "vfs_read"),
                         "ssize_t vfs_read(struct file *, char *, size_t, loff_t *)")

    def test_split_module(self):
        vm, mod = vmlinux_btf(), module_btf()
        self.assertEqual(mod.first, vm.count)
        self.assertEqual(mod.str_base, len(vm.strings))
        # a module type referring to vmlinux's types and strings
        fn = mod.find(B.FUNC, "v9fs_file_open")
        self.assertEqual(len(fn), 1)
        params = mod.params(mod.type_ref(fn[0]))
        self.assertEqual([mod.type_str(t) for _, t in params], ["struct inode *", "struct file *"])

    def test_bad_input(self):
        with self.assertRaises(B.BtfError):
            B.Btf(b"\0" * 32)
        vm = vmlinux_btf()
        raw = bytearray(struct.pack("<HBBIIIII", B.MAGIC, 1, 0, 24, 0, 12, 12, 1))
        raw += struct.pack("<III", 0, 31 << 24, 0) + b"\0"
        with self.assertRaisesRegex(B.BtfError, "unknown BTF kind 31"):
            B.Btf(bytes(raw), None, "x")
        del vm


class TestArgs(unittest.TestCase):
    def locs(self, name):
        vm = vmlinux_btf()
        proto = vm.type_ref(vm.find(B.FUNC, name)[0])
        return [w for _, _, _, w in dwarfgen.arg_locations(vm, proto)]

    def test_registers_then_stack(self):
        self.assertEqual(self.locs("vfs_read"), ["rdi", "rsi", "rdx", "rcx"])
        # 7 integer arguments: the 7th on the stack above the return address
        self.assertEqual(self.locs("do_trap"),
                         ["rdi", "rsi", "rdx", "rcx", "r8", "r9", "stack+8"])

    def test_struct_by_value(self):
        # struct membuf (16 bytes) by value: two registers
        self.assertEqual(self.locs("genregs_get"), ["rdi", "rsi", "rdx:rcx"])


class TestKsyms(unittest.TestCase):
    def test_hidden_addresses_refused(self):
        with tempfile.NamedTemporaryFile("w", suffix=".kallsyms") as f:
            f.write("0000000000000000 T _text\n0000000000000000 t vfs_read\n")
            f.flush()
            with self.assertRaisesRegex(ksyms.KsymsError, "run gdb as root"):
                ksyms.read(f.name)

    def test_function_ends(self):
        syms = [(0x1000, "T", "a"), (0x1000, "T", "a_alias"), (0x1040, "d", "x"),
                (0x2000, "t", "b")]
        self.assertEqual(ksyms.functions(syms),
                         [("a", 0x1000, 0x1040), ("a_alias", 0x1000, 0x1040),
                          ("b", 0x2000, 0x3000)])


class TestThroughGdb(unittest.TestCase):
    """The generated file, as this host's gdb reads it."""

    @classmethod
    def setUpClass(cls):
        vm = vmlinux_btf()
        funcs = sorted(vm.str_at(vm.name_off[j]) for j, k in enumerate(vm.kind) if k == B.FUNC)
        base = 0xffffffff81000000
        kern = [(base, "T", "_text")]
        kern += [(base + 0x100 * (i + 1), "t", n) for i, n in enumerate(funcs)]
        kern.append((base + 0x100 * (len(funcs) + 1), "T", "_etext"))
        owners = {None: kern, "9p": [(0xffffffffc0000000, "t", "v9fs_file_open"),
                                     (0xffffffffc0000100, "t", "v9fs_x_notrace")]}
        cls.addr = dict((n, a) for a, _, n in kern)
        t0 = time.time()
        data, cls.stats = cls._build(owners, vm)
        cls.secs = time.time() - t0
        fd, cls.path = tempfile.mkstemp(suffix=".elf")
        os.write(fd, data)
        os.close(fd)
        print("\n# %d functions (%d with arguments), %d types: made in %.2fs, %d bytes"
              % (cls.stats.funcs, cls.stats.described, cls.stats.types, cls.secs, len(data)),
              file=sys.stderr)

    @staticmethod
    def _build(owners, vm):
        # 9p's BTF from its .ko instead of /sys/kernel/btf
        mod = module_btf()
        orig = symfile.read_btf
        symfile.read_btf = lambda d, name, base=None: mod if name == "9p" else orig(d, name, base)
        try:
            return symfile.build(owners, "/nonexistent", ["9p"], vmlinux=vm)
        finally:
            symfile.read_btf = orig

    @classmethod
    def tearDownClass(cls):
        os.unlink(cls.path)

    def gdb(self, *cmds):
        argv = ["gdb", "-nx", "-q", "-batch", "-ex", "set architecture i386:x86-64",
                "-ex", "add-symbol-file " + self.path]
        for c in cmds:
            argv += ["-ex", c]
        t0 = time.time()
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             timeout=300).stdout.decode()
        return out, time.time() - t0

    def test_types(self):
        vm = vmlinux_btf()
        out, secs = self.gdb("print sizeof(struct task_struct)", "ptype struct file",
                             "ptype struct sk_buff", "print sizeof(union bpf_attr)",
                             "print (enum pid_type)1", "ptype struct p9_fid")
        print("# gdb: types read and printed in %.2fs" % secs, file=sys.stderr)
        ts = vm.find(B.STRUCT, "task_struct")[0]
        self.assertRegex(out, r"(?m)^\$1 = %d$" % vm.size_of(ts))
        self.assertRegex(out, r"(?m)^    struct path f_path;$")
        self.assertRegex(out, r"(?m)^    __u8 cloned : 1;$")            # bitfield
        self.assertRegex(out, r"(?m)^\$2 = %d$" % vm.size_of(vm.find(B.UNION, "bpf_attr")[0]))
        self.assertRegex(out, r"(?m)^\$3 = PIDTYPE_TGID$")
        self.assertRegex(out, r"(?m)^type = struct p9_fid \{$")       # vmlinux's, via 9p's

    def test_enum_signedness(self):
        # kind_flag 1: signed values (rpm_status starts at -1 in 6.1);
        # 0: unsigned, where a value may use the sign bit
        vm = vmlinux_btf()
        want = []
        for j, k in enumerate(vm.kind):
            if k == B.ENUM and vm.vlen[j]:
                p = vm.pos[j]
                v = vm.words[p + 1]
                if vm.kflag[j] and v >> 31:
                    want.append((vm.str_at(vm.words[p]), v - (1 << 32)))
                elif not vm.kflag[j] and v >> 31:
                    want.append((vm.str_at(vm.words[p]), v))
        signed = [w for w in want if w[1] < 0][:3]
        unsigned = [w for w in want if w[1] > 0][:3]
        self.assertTrue(signed and unsigned, want)
        # widened, so that the enum type's signedness shows
        out, _ = self.gdb(*["print (long long)%s" % n for n, _ in signed + unsigned])
        got = [int(v) for v in re.findall(r"(?m)^\$\d+ = (-?\d+)$", out)]
        self.assertEqual(got, [v for _, v in signed + unsigned], out)

    def test_arguments(self):
        out, _ = self.gdb("info scope vfs_read", "info scope do_trap", "info scope v9fs_file_open",
                          "maint agent -at vfs_read, file->f_path.dentry->d_iname[0]",
                          "info symbol 0x%x" % (self.addr["vfs_read"] + 4))
        self.assertRegex(out, r"Symbol count is a variable in \$rdx, length 8\.")
        # do_trap's 7th argument: above the return address
        self.assertRegex(out, r"Symbol addr is a complex DWARF expression:\s+0: "
                         r"DW_OP_breg7 8 \[\$rsp\]")
        self.assertRegex(out, r"Symbol file is a variable in \$rsi, length 8\.")
        self.assertRegex(out, r"(?m)^\s+\d+\s+reg 5$")
        self.assertRegex(out, r"vfs_read \+ 4 in section \.text")
        self.assertNotRegex(out, r"Couldn't find|Error|No symbol")

    def test_anonymous_union_lifted(self):
        # struct file's first member is an anonymous union (6.1): its
        # members are reachable by gdb's bytecode compiler
        out, _ = self.gdb("maint agent -at vfs_read, file->f_iocb_flags")
        self.assertNotRegex(out, r"Couldn't find")
        self.assertRegex(out, r"(?m)^\s+\d+\s+trace$")

    def test_symtab(self):
        out, _ = self.gdb("info symbol 0xffffffffc0000104", "info address v9fs_x_notrace")
        self.assertRegex(out, r"v9fs_x_notrace \+ 4 in section \.text\.9p")


class TestWithoutBtf(unittest.TestCase):
    """A kernel without BTF: every function by name, nothing else."""

    def test_functions_only(self):
        owners = {None: [(0xffffffff81000000, "T", "_text"),
                         (0xffffffff81000100, "T", "vfs_read"),
                         (0xffffffff81000200, "T", "_etext")],
                  "9p": [(0xffffffffc0000000, "t", "v9fs_file_open")]}
        data, st = symfile.build(owners, "/nonexistent", ["9p"])
        self.assertFalse(st.kernel_btf)
        self.assertEqual((st.types, st.described, st.no_btf), (0, 0, ["9p"]))
        fd, path = tempfile.mkstemp(suffix=".elf")
        try:
            os.write(fd, data)
            os.close(fd)
            out = subprocess.run(["gdb", "-nx", "-q", "-batch", "-ex",
                                  "set architecture i386:x86-64", "-ex",
                                  "add-symbol-file " + path, "-ex", "info address vfs_read",
                                  "-ex", "info symbol 0xffffffffc0000004",
                                  "-ex", "ptype struct file"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 timeout=120).stdout.decode()
        finally:
            os.unlink(path)
        self.assertRegex(out, r"Symbol \"vfs_read\" is at 0xffffffff81000100")
        self.assertRegex(out, r"v9fs_file_open \+ 4 in section \.text\.9p")
        self.assertRegex(out, r"No struct type named file\.")


if __name__ == "__main__":
    sys.exit(tap.main(globals(), all_skipped=0))
