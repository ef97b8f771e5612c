# SPDX-License-Identifier: GPL-2.0
"""gtpgdb - gtp's commands and functions for stock gdb.

Loaded by `source gdb-scripts/gtp.py` (which puts gdb-scripts/ on
sys.path and imports this package once), or with the gtptrace-tools
package installed by `source /usr/share/gtptrace/gtp.py`.  One module per concept, each
registering its commands with register():

  module.py   gtp-load-module, gtp-ksym, $gtp_ksym(): symbols of the
              running kernel and its modules without vmlinux debug info
  static.py   gtp-markers, gtp-strace: the kernel's TRACE_EVENTs as gdb
              static tracepoints
  hist.py     gtp-hist, gtp-count, gtp-stats, $gtp_stat(): look at a
              trace rather than read it (shares gtpctl/summary.py with
              gtp-ctl)
  kernsyms.py gtp-kernel-symbols: kernel and module functions, types and
              arguments from kallsyms and BTF, no debug info needed
              (btf.py, ksyms.py, dwarfgen.py, elfgen.py, symfile.py)
  vmlinux.py  gtp-load-vmlinux: the kernel's own DWARF (a -dbg vmlinux
              whose build id matches) at the KASLR slide, from its copy
              whose entry values gdb can collect (entryval.py)
  connect.py  gtp-connect: all those symbols, then target remote, whatever
              an earlier session left on the target (leftover.py)
  kstack.py   gtp-kstack: the kernel call stack a frame recorded
              (collect $kstack)
  ustack.py   gtp-ustack: the user call stack a frame recorded (collect
              $ustack), named from the program's file
  collectable.py  hook-tstart: tstart never fails because gdb cannot
              compile one collect item (drops it, says so, and puts the
              user's actions back after tstart)
  strcond.py  $current_comm == "NAME", $_streq, $_memeq and 'c' in
              tracepoint conditions: rewritten into word compares gdb
              can compile, in the same hook-tstart
  errsites.py gtp-trace-errno: a tracepoint on each check that makes a
              function return -ERRNO, found in its machine code
  where.py    gtp-where: a trace frame's file:line, and the callers of
              inlined code
  tracemany.py  gtp-trace-many: a tracepoint on each kernel function
              whose name matches a regular expression
  percpu.py   gtp-percpu: a per-CPU variable's ($p_NAME) value on each
              CPU (gtpctl/pcpu.py)
  watch.py    gtp-watch: a watch tracepoint, each access to a kernel
              variable on a hardware breakpoint ($watch, $awatch)

What a command needs and the others do not is loaded at its first use
(lazy.py), so that sourcing gtp.py stays cheap: a session runs a few
commands, and the tests start gdb hundreds of times.
"""
try:
    import gdb  # noqa: F401
except ImportError:
    # Imported outside gdb (the host's unit tests of btf.py, dwarfgen.py,
    # elfgen.py, entryval.py): those need no gdb, and nothing is registered.
    gdb = None

if gdb is not None:
    from . import (collectable, connect, errsites, hist, kernsyms, kstack,
                   module, percpu, static, strcond, tracemany, ustack, vmlinux,
                   watch, where)

    # strcond joins collectable's hook-tstart: it registers after it.
    for _m in (module, static, hist, vmlinux, kernsyms, connect, kstack,
               ustack, collectable, strcond, errsites, where, tracemany,
               percpu, watch):
        _m.register()
