# SPDX-License-Identifier: GPL-2.0
"""gtpctl - gtp without gdb (python3 standard library only).

The `gtp-ctl` launcher next to this package runs main.main() in a
checkout; installed (gdb-scripts/pyproject.toml, package gtptrace-tools)
`gtp-ctl` is that console entry point.  One module per concept:

  main.py        argparse front end; every subcommand module registers
                 itself (SUBCOMMANDS) with register(subparsers), imported
                 only when one of its commands runs (COMMANDS)
  trace.py       a trace in memory: tracepoint definitions, trace state
                 variables, frames and their R/M/V blocks
  tfile.py       reading gdb's trace file format (tsave)
  remote.py      gdb's remote protocol on /proc/gtp (no gdb needed)
  keys.py        the key language: what a frame's value is, without DWARF
  summary.py     histograms, counts, statistics (shared with gdb's gtp-hist)
  cmd_summary.py the hist, count and stats subcommands
  cmd_target.py  the stdio, status and stop subcommands (the live target)
  bridge.py      stdio's one change to gdb's stream: drop gdb's resends
  plot.py        the plot subcommand: an SVG timeline and histogram
  ksyms.py       kernel addresses as symbol+offset through /proc/kallsyms
  kallsyms.py    /proc/kallsyms parsed, ELF build ids (shared with gtpgdb)
  abi.py         what the module and the Python side agree on: version,
                 special frame addresses, ax_error names, stream records
                 (checked against the C sources by make check-abi)
  axreloc.py     the kernel addresses inside actions and bytecode
  session.py     a session file: read, write, bind to this boot
  cmd_session.py the save-session and start subcommands
  cmd_frames.py  the save (trace file) and dump (text) subcommands
  ctf.py         writing a CTF 1.8 trace (metadata, streams, packets)
  stream_defs.py what /proc/gtp_stream says: records, DEFS, opening it
  stream_ctf.py  a run's frames as a CTF trace (events, lost frames)
  streamer.py    the record stream -> one CTF trace per run
  copier.py      the stream's hot path: records moved to a spool, not decoded
  converter.py   the spool (or a --from-file) -> CTF; progress, summary
  relayd.py      LTTng's relay daemon protocol, the sending side
  relay_trace.py the CTF traces being written, sent to relayd (--relayd)
  cmd_stream.py  the stream subcommand: the reading and converting processes
  cmd_fleet.py   the fleet subcommand: one session on N hosts, one relayd
  fleet_host.py  fleet's host end (`gtp-ctl fleet host`, over ssh)
  fleet_wire.py  what the two ends say: JSON lines on the ssh channel
  fleet_clock.py a host's clock against the controller's, and the bound
"""
