#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/abi/test_abi.py - the Python side agrees with the C side.

gdb-scripts/gtpctl/abi.py holds what gtp-ctl and gdb's commands share with
the module; the module's sources are the truth.  This parses them (dkms.conf,
module/main.c, module/core/{collect,static_data,ax,stream,ring,tsv}.h,
ax_error_name() in module/core/trace.c and builtin_names[] in
module/core/tsv.c) and compares: the version, the special frame addresses,
enum ax_error and its names, the built-in trace state variables' names,
the stream records' magic, version, types and the byte layout of struct gtp_stream_rec and
struct ring_record.  The parsers are checked on altered copies too, so a
change on either side fails here.  Host only, standard library.
"""
import os
import re
import struct
import sys
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "gdb-scripts"))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import tap  # noqa: E402
from gtpctl import abi  # noqa: E402

# C type -> (struct code, size); the kernel's fixed-size types only
CTYPES = {"u8": ("B", 1), "u16": ("H", 2), "u32": ("I", 4), "u64": ("Q", 8),
          "s8": ("b", 1), "s16": ("h", 2), "s32": ("i", 4), "s64": ("q", 8)}


def src(path):
    with open(os.path.join(REPO, path)) as f:
        return f.read()


def c_define(text, name):
    m = re.search(r"^#define\s+%s\s+(\S+)" % name, text, re.M)
    if not m:
        raise AssertionError("no #define %s" % name)
    return int(m.group(1).rstrip("ULul"), 0)


def c_enum(text, name):
    """[(enumerator, value)] of enum name (implicit values counted)."""
    m = re.search(r"enum\s+%s\s*\{(.*?)\};" % name, text, re.S)
    if not m:
        raise AssertionError("no enum %s" % name)
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    out, v = [], 0
    for item in filter(None, (i.strip() for i in body.split(","))):
        ident, _, val = item.partition("=")
        if val.strip():
            v = int(val.strip(), 0)
        out.append((ident.strip(), v))
        v += 1
    return out


def c_struct_format(text, name):
    """The struct module format of struct name: '<' and one code per field,
    refused when natural alignment would put padding between fields (then
    '<' would not be the C layout).  Returns (format, sizeof)."""
    m = re.search(r"struct\s+%s\s*\{(.*?)\};" % name, text, re.S)
    if not m:
        raise AssertionError("no struct %s" % name)
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    fmt, off, align = "<", 0, 1
    for decl in filter(None, (d.strip() for d in body.split(";"))):
        ctype, field = decl.split()
        code, size = CTYPES[ctype]
        if off % size:
            raise AssertionError("struct %s: padding before %s" % (name, field))
        fmt += code
        off += size
        align = max(align, size)
    return fmt, (off + align - 1) // align * align


def ax_error_names(ax_h, trace_c):
    """enum ax_error in order, each worded as ax_error_name() words it
    (AX_ERR_NONE, which it never names: "none")."""
    m = re.search(r"ax_error_name\(u32 err\)\s*\{(.*?)\n\}", trace_c, re.S)
    if not m:
        raise AssertionError("no ax_error_name() in module/core/trace.c")
    cases = dict(re.findall(r'case\s+(AX_ERR_\w+):\s*return\s+"([^"]*)";', m.group(1)))
    default = re.search(r'default:\s*return\s+"([^"]*)";', m.group(1)).group(1)
    names = []
    for i, (ident, v) in enumerate(c_enum(ax_h, "ax_error")):
        assert v == i, "enum ax_error: %s = %d is not dense" % (ident, v)
        names.append("none" if ident == "AX_ERR_NONE" else cases.get(ident, default))
    return tuple(names)


class Version(unittest.TestCase):
    def test_one_version(self):
        dkms = re.search(r'^PACKAGE_VERSION="(.*)"', src("dkms.conf"), re.M).group(1)
        mod = re.search(r'^MODULE_VERSION\("(.*)"\);', src("module/main.c"), re.M).group(1)
        self.assertEqual(dkms, mod, "dkms.conf and MODULE_VERSION")
        self.assertEqual(abi.VERSION, dkms, "gtpctl/abi.py VERSION and dkms.conf")

    def test_pyproject_takes_it(self):
        py = src("gdb-scripts/pyproject.toml")
        self.assertRegex(py, r'(?m)^dynamic = \["version"\]$')
        self.assertRegex(py, r'(?m)^version = \{attr = "gtpctl\.abi\.VERSION"\}$')


class Addresses(unittest.TestCase):
    def test_kstack(self):
        self.assertEqual(abi.KSTACK_ADDR,
                         c_define(src("module/core/fbuild.h"), "GTP_KSTACK_ADDR"))

    def test_sdata(self):
        self.assertEqual(abi.SDATA_ADDR,
                         c_define(src("module/core/static_data.h"), "GTP_SDATA_ADDR"))


class Blocks(unittest.TestCase):
    def test_rsub(self):
        self.assertEqual(abi.RSUB_BLOCK,
                         c_define(src("module/core/regs.h"), "GTP_RSUB_BLOCK"))


class AxErrors(unittest.TestCase):
    def test_names(self):
        self.assertEqual(abi.AX_ERRORS, ax_error_names(src("module/core/ax.h"),
                                                       src("module/core/trace.c")))

    def test_lookup(self):
        self.assertEqual(abi.ax_error_name(2), "division by zero")
        self.assertEqual(abi.ax_error_name(99), "error 99")

    def test_parser_sees_a_change(self):
        # a new error in the middle of the enum shifts every later one
        ax = src("module/core/ax.h").replace("AX_ERR_DIV0,", "AX_ERR_NEW,\n\tAX_ERR_DIV0,")
        self.assertNotEqual(abi.AX_ERRORS, ax_error_names(ax, src("module/core/trace.c")))
        tc = src("module/core/trace.c").replace('"division by zero"', '"div by 0"')
        self.assertNotEqual(abi.AX_ERRORS, ax_error_names(src("module/core/ax.h"), tc))


def builtin_tsv_names(tsv_h, tsv_c):
    """builtin_names[] of module/core/tsv.c in enum gtp_builtin_tsv order
    (GTP_TSV_USER, not a built-in, and the GTP_TSV_NR_BUILTIN count left
    out); a built-in without a name fails."""
    m = re.search(r"builtin_names\[GTP_TSV_NR_BUILTIN\]\s*=\s*\{(.*?)\};", tsv_c, re.S)
    if not m:
        raise AssertionError("no builtin_names[] in module/core/tsv.c")
    names = dict(re.findall(r'\[(GTP_TSV_\w+)\]\s*=\s*"([^"]*)"', m.group(1)))
    out = []
    for ident, _ in c_enum(tsv_h, "gtp_builtin_tsv"):
        if ident in ("GTP_TSV_USER", "GTP_TSV_NR_BUILTIN"):
            continue
        if ident not in names:
            raise AssertionError("builtin_names[] has no name for %s" % ident)
        out.append(names[ident])
    return tuple(out)


class BuiltinTsvs(unittest.TestCase):
    def test_names(self):
        self.assertEqual(abi.BUILTIN_TSVS, builtin_tsv_names(src("module/core/tsv.h"),
                                                             src("module/core/tsv.c")))

    def test_knobs_are_builtins(self):
        self.assertLessEqual(set(abi.BUILTIN_KNOBS), set(abi.BUILTIN_TSVS))

    def test_parser_sees_a_change(self):
        h = src("module/core/tsv.h").replace("GTP_TSV_KRET_NS,", "GTP_TSV_KRET_NS,\n\tGTP_TSV_NEW,")
        c = src("module/core/tsv.c").replace('= "kret_ns",', '= "kret_ns",\n\t[GTP_TSV_NEW] = "new",')
        self.assertNotEqual(abi.BUILTIN_TSVS, builtin_tsv_names(h, c))
        c = src("module/core/tsv.c").replace('"current_task_pid"', '"task_pid"')
        self.assertNotEqual(abi.BUILTIN_TSVS, builtin_tsv_names(src("module/core/tsv.h"), c))


class Stream(unittest.TestCase):
    def setUp(self):
        self.h = src("module/core/stream.h")

    def test_constants(self):
        self.assertEqual(abi.STREAM_MAGIC, c_define(self.h, "GTP_STREAM_MAGIC"))
        self.assertEqual(abi.STREAM_VERSION, c_define(self.h, "GTP_STREAM_VERSION"))
        self.assertEqual([("GTP_STREAM_DEFS", abi.STREAM_DEFS),
                          ("GTP_STREAM_PACKET", abi.STREAM_PACKET),
                          ("GTP_STREAM_END", abi.STREAM_END)],
                         c_enum(self.h, "gtp_stream_type"))

    def test_record_layout(self):
        fmt, size = c_struct_format(self.h, "gtp_stream_rec")
        self.assertEqual(abi.STREAM_REC.format, fmt)
        self.assertEqual(abi.STREAM_REC.size, size)

    def test_ring_record(self):
        ring = src("module/core/ring.h")
        fmt, size = c_struct_format(ring, "ring_record")
        self.assertEqual(abi.RING_REC.format, fmt)
        self.assertEqual(abi.RING_REC.size, size)
        self.assertEqual(abi.RING_REC_DATA, c_define(ring, "RING_REC_DATA"))
        self.assertEqual(abi.RING_REC_PAD, c_define(ring, "RING_REC_PAD"))

    def test_parser_sees_a_change(self):
        wider = self.h.replace("u32 run;", "u64 run;")
        self.assertRaisesRegex(AssertionError, "padding", c_struct_format, wider,
                               "gtp_stream_rec")
        swapped = self.h.replace("u16 type;\n\tu16 cpu;", "u32 type;")
        self.assertNotEqual(abi.STREAM_REC.format,
                            c_struct_format(swapped, "gtp_stream_rec")[0])
        self.assertEqual(struct.calcsize(abi.STREAM_REC.format), 48)


if __name__ == "__main__":
    sys.exit(tap.main(globals(), all_skipped=0))
