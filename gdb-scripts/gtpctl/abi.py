# SPDX-License-Identifier: GPL-2.0
"""gtpctl/abi.py - what the module and the Python side must agree on, in
one place: the version, the address of a recorded kernel stack, the names
of agent-expression errors and of the built-in trace state variables, and
the records of /proc/gtp_stream.

The C side is the source: `make check-abi` (tests/abi/test_abi.py) parses
dkms.conf, module/main.c and the core's headers and fails when anything
here differs.  Standard library only (gtp-ctl runs on the target box).
"""
import struct

# dkms.conf PACKAGE_VERSION and MODULE_VERSION (module/main.c); also the
# version of the Python packages (gdb-scripts/pyproject.toml reads it).
VERSION = "0.2"

# GTP_KSTACK_ADDR (module/core/fbuild.h): `collect $kstack` records the
# return addresses, innermost first, as u64 words in an M block here.
KSTACK_ADDR = 0x4b53544b00000000    # "KSTK"
# GTP_USTACK_ADDR: `collect $ustack`, the user call stack, with the
# program's text start in the word before it
USTACK_ADDR = 0x5553544b00000000    # "USTK"
# GTP_SDATA_ADDR (module/core/static_data.h): a static event's arguments
# ($_sdata) as an M block here.
SDATA_ADDR = 0xfffffffffffff000
# GTP_RSUB_BLOCK (module/core/regs.h): the type byte of a frame block that
# holds only the registers an R action named: u32 mask (gdb's numbers),
# then their values in ascending order, 8 bytes each for 0..16 (rip
# always among them), 4 for 17..19.  /proc/gtp_stream hands it out as
# stored; qTBuffer (so gdb's tsave and gtp-ctl on /proc/gtp) serves an R
# block instead.
RSUB_BLOCK = 0x72                   # 'r'

# enum ax_error (module/core/ax.h) in order, each worded as the module's
# ax_error_name() (module/core/trace.c) words it at tstop.
AX_ERRORS = ("none", "unreadable memory", "division by zero",
             "step budget exhausted", "frame full", "register unavailable",
             "trace state variable refused", "internal error")


# The built-in trace state variables (builtin_names[], module/core/tsv.c),
# without the '$': a variable gdb defines under one of these names is read
# at the hit, not stored.  gtp_cpu_budget and gtp_budget_stop are knobs
# (their initial value sets the session's CPU budget), the rest plain
# values or marks.
# "watch_arm_N" (N a tracepoint number) is a family: builtin_tsv() knows it.
WATCH_ARM_PREFIX = "watch_arm_"
BUILTIN_TSVS = ("cpu_id", "current_task", "current_task_pid", "clock",
                "rdtsc", "hardirq_count", "softirq_count", "gtp_stop",
                "kret", "kstack", "gtp_cpu_budget", "gtp_budget_stop",
                "cgroup_id", "ns_pid", "ns_tgid", "caller", "kret_ns",
                "gtp_enable", "gtp_disable", "perf_cycles", "perf_instructions",
                "perf_cache_misses", "perf_page_faults", "perf_cpu_clock",
                "ustack", "watch", "awatch", "watch_val", "watch_prev",
                "watch_addr", WATCH_ARM_PREFIX)
BUILTIN_KNOBS = ("gtp_cpu_budget", "gtp_budget_stop")


def builtin_tsv(name: str) -> bool:
    """Is $name one of gtp's built-in variables?"""
    if name.startswith(WATCH_ARM_PREFIX):
        n = name[len(WATCH_ARM_PREFIX):]
        return n.isdigit() and not n.startswith("0") and int(n) <= 0x7fff
    return name in BUILTIN_TSVS


def ax_error_name(err: int) -> str:
    """The name of an enum ax_error value (as the module words it)."""
    if 0 <= err < len(AX_ERRORS):
        return AX_ERRORS[err]
    return "error %d" % err


# /proc/gtp_stream (module/core/stream.h)
STREAM_MAGIC = 0x53505447           # GTP_STREAM_MAGIC, "GTPS"
STREAM_VERSION = 3                  # GTP_STREAM_VERSION
STREAM_DEFS, STREAM_PACKET, STREAM_END = 1, 2, 3    # enum gtp_stream_type
# struct gtp_stream_rec: magic, type, cpu, len, run, ts_begin, ts_end, seq, lost
STREAM_REC = struct.Struct("<IHHIIQQQQ")
# struct ring_record (module/core/ring.h): ts, len, type; RING_REC_DATA
RING_REC = struct.Struct("<QII")
RING_REC_DATA = 1
RING_REC_PAD = 2
