# SPDX-License-Identifier: GPL-2.0
"""gtpctl/plot.py - gtp-ctl plot: one picture of a trace, as SVG or HTML.

Two panels on a fixed pixel grid (so a browser draws exactly these
pixels; every shape is axis-aligned with integer coordinates and
shape-rendering="crispEdges"):

  timeline   one lane per CPU (--cpu KEY, default $cpu_id when the frames
             collected it), frames placed by time (--time KEY, default
             $clock, else $rdtsc, else the frame number); a mark per pixel
             column that holds frames, coloured by tracepoint
  histogram  the power-of-two (or --linear) buckets of KEY as vertical bars
             of BAR_COLOUR, height proportional to the count, the tallest
             HIST_H pixels; <unavailable> frames as a grey bar at the right

The constants below are the layout; tests/hist/test_hist_plot.py reads the
rendered screenshot with them.
"""
from __future__ import annotations

import argparse
import html
from typing import Optional

from . import keys, source, summary
from .cmd_summary import EPILOG
from .summary import UNAVAILABLE
from .trace import Frame, Trace, TraceError

WIDTH, HEIGHT = 1000, 660
LEFT, RIGHT = 90, 970                 # plot area, both panels
TL_TOP, TL_BOTTOM = 50, 250           # timeline panel
HIST_TOP, HIST_BOTTOM = 330, 590      # histogram panel (bars stand on HIST_BOTTOM)
HIST_H = HIST_BOTTOM - HIST_TOP - 20  # tallest bar
AXIS_COLOUR = "#000000"
BAR_COLOUR = "#1f77b4"
UNAVAIL_COLOUR = "#999999"
TP_COLOURS = ("#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
              "#17becf", "#bcbd22")


def _esc(s):
    return html.escape(str(s), quote=True)


def _default_key(trace, names):
    for n in names:
        if trace.tsv_number(n) is not None:
            return "$" + n
    return None


def _rect(x, y, w, h, fill, title=None):
    t = "<title>%s</title>" % _esc(title) if title else ""
    return ('<rect x="%d" y="%d" width="%d" height="%d" fill="%s">%s</rect>'
            % (x, y, max(w, 1), max(h, 1), fill, t))


def _text(x, y, s, anchor="start", size=12, extra=""):
    return ('<text x="%d" y="%d" font-family="sans-serif" font-size="%d" '
            'text-anchor="%s" %s>%s</text>' % (x, y, size, anchor, extra, _esc(s)))


def _axes(top, bottom):
    return ['<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
            % (LEFT, bottom, RIGHT, bottom, AXIS_COLOUR),
            '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
            % (LEFT, top, LEFT, bottom, AXIS_COLOUR)]


def timeline(trace: Trace, frames: list[Frame], tkey: keys.Key,
             ckey: Optional[keys.Key]) -> list[str]:
    """SVG elements of the timeline panel."""
    pts = []
    for f in frames:
        t = tkey(f)
        c = ckey(f) if ckey else 0
        if t is UNAVAILABLE:
            continue
        pts.append((t, "?" if c is UNAVAILABLE else c, f.tpnum))
    out = _axes(TL_TOP, TL_BOTTOM)
    out.append(_text(LEFT, TL_TOP - 12, "timeline: %d frame(s) by %s%s" % (
        len(pts), tkey.text, (", one lane per " + ckey.text) if ckey else ""), size=14))
    if not pts:
        out.append(_text((LEFT + RIGHT) // 2, (TL_TOP + TL_BOTTOM) // 2,
                         "no frame has %s" % tkey.text, "middle"))
        return out
    lanes = sorted({c for _, c, _ in pts}, key=lambda c: (isinstance(c, str), c))
    t0 = min(p[0] for p in pts)
    t1 = max(p[0] for p in pts)
    span = max(t1 - t0, 1)
    lane_h = (TL_BOTTOM - TL_TOP - 10) // len(lanes)
    tps = sorted({p[2] for p in pts})
    cols = {}
    for t, c, tp in pts:
        x = LEFT + 2 + int((t - t0) * (RIGHT - LEFT - 4) / span)
        cols.setdefault((c, tp), set()).add(x)
    for li, lane in enumerate(lanes):
        y = TL_TOP + 5 + li * lane_h
        out.append(_text(LEFT - 8, y + lane_h // 2 + 4, "cpu %s" % lane if ckey else "all",
                         "end"))
        if li:
            out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#dddddd"/>'
                       % (LEFT + 1, y - 2, RIGHT, y - 2))
        for tp in tps:
            xs = sorted(cols.get((lane, tp), ()))
            colour = TP_COLOURS[tps.index(tp) % len(TP_COLOURS)]
            i = 0
            while i < len(xs):
                j = i
                while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
                    j += 1
                out.append(_rect(xs[i], y + 2, xs[j] - xs[i] + 1, lane_h - 6, colour))
                i = j + 1
    for k in range(5):
        x = LEFT + k * (RIGHT - LEFT) // 4
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>'
                   % (x, TL_BOTTOM, x, TL_BOTTOM + 5, AXIS_COLOUR))
        out.append(_text(x, TL_BOTTOM + 18, "+%d" % (span * k // 4),
                         ("start", "middle", "middle", "middle", "end")[k], 11))
    legend = ", ".join("tracepoint %d" % tp for tp in tps)
    out.append(_text(RIGHT, TL_BOTTOM + 34, "%s since the first frame; colours: %s"
                     % (tkey.text, legend), "end", 11))
    for i, tp in enumerate(tps):
        out.append(_rect(RIGHT - 12 - 14 * (len(tps) - 1 - i), TL_TOP - 24, 10, 10,
                         TP_COLOURS[i % len(TP_COLOURS)], "tracepoint %d" % tp))
    return out


def histogram(col: summary.Collector, key_text: str,
              linear: Optional[summary.Linear]) -> list[str]:
    rows = summary.hist_rows(col, linear)
    bars = [(label, n, BAR_COLOUR) for label, n, _ in rows]
    if col.unavailable:
        bars.append((summary.UNAVAILABLE_LABEL, col.unavailable, UNAVAIL_COLOUR))
    out = _axes(HIST_TOP, HIST_BOTTOM)
    out.append(_text(LEFT, HIST_TOP - 12, "histogram of %s: %d frame(s), %d unavailable"
                     % (key_text, col.total, col.unavailable), size=14))
    if not bars:
        return out
    peak = max(n for _, n, _ in bars)
    slot = (RIGHT - LEFT - 10) // len(bars)
    bw = max(1, slot * 4 // 5)
    rotate = slot < 70
    for i, (label, n, colour) in enumerate(bars):
        h = int(round(n * HIST_H / peak))
        x = LEFT + 10 + i * slot + (slot - bw) // 2
        if n:
            out.append(_rect(x, HIST_BOTTOM - 1 - h, bw, h, colour, "%s: %d" % (label, n)))
        out.append(_text(x + bw // 2, HIST_BOTTOM - 4 - h, str(n), "middle", 10))
        lx, ly = x + bw // 2, HIST_BOTTOM + 14
        if rotate:
            out.append(_text(lx, ly, label, "end", 10,
                             'transform="rotate(-40 %d %d)"' % (lx, ly)))
        else:
            out.append(_text(lx, ly, label, "middle", 10))
    out.append(_text(LEFT - 8, HIST_TOP + 24, str(peak), "end", 11))
    out.append(_text(LEFT - 8, HIST_BOTTOM, "0", "end", 11))
    return out


def render(trace: Trace, key_text: str, linear: Optional[summary.Linear] = None,
           tsel: Optional[str] = None, csel: Optional[str] = None,
           tp: Optional[int] = None) -> str:
    frames = [f for f in trace.frames if tp is None or f.tpnum == tp]
    if not frames:
        raise TraceError("%s holds no trace frames%s" % (
            trace.origin, " of tracepoint %d" % tp if tp is not None else ""))
    key = keys.Key(key_text, trace)
    tkey = keys.Key(tsel or _default_key(trace, ("clock", "rdtsc")) or "frame", trace)
    cname = csel or _default_key(trace, ("cpu_id",))
    ckey = keys.Key(cname, trace) if cname else None
    col = summary.Collector()
    for f in frames:
        col.add(key(f))
    body = ['<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>' % (WIDTH, HEIGHT)]
    body += timeline(trace, frames, tkey, ckey)
    body += histogram(col, key_text, linear)
    body.append(_text(WIDTH - 10, HEIGHT - 8, "gtp-ctl plot of %s" % trace.origin, "end", 10,
                      'fill="#666666"'))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d" shape-rendering="crispEdges">\n%s\n</svg>\n'
            % (WIDTH, HEIGHT, WIDTH, HEIGHT, "\n".join(body)))


def run(args: argparse.Namespace) -> None:
    linear = summary.linear_option(args.linear, TraceError)
    if not args.out.endswith((".svg", ".html", ".htm")):
        raise TraceError("%s: the output name must end in .svg or .html" % args.out)
    svg = render(source.load(args), args.key, linear, args.time, args.cpu, args.tp)
    if not args.out.endswith(".svg"):
        svg = ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>gtp trace</title>'
               '<style>html,body{margin:0;overflow:hidden}svg{display:block}</style>'
               '</head><body>\n%s</body></html>\n' % svg)
    try:
        with open(args.out, "w") as f:
            f.write(svg)
    except OSError as e:
        raise TraceError("cannot write %s: %s" % (args.out, e.strerror or e))
    print("gtp-ctl plot: wrote %s" % args.out)


def register(sub: argparse._SubParsersAction, formatter: type[argparse.HelpFormatter]) -> None:
    p = sub.add_parser("plot", help="draw a per-CPU timeline and a histogram (SVG/HTML)",
                       description="Draw the frames as a per-CPU timeline and KEY as a "
                       "histogram, into OUT (.svg or .html), readable in any browser.  "
                       "For the timeline, collect $cpu_id and $clock (tvariable "
                       "$cpu_id / $clock, then collect them in the actions).",
                       epilog=EPILOG, formatter_class=formatter)
    p.add_argument("out", metavar="OUT", help="output file, .svg or .html")
    p.add_argument("key", metavar="KEY", help="what the histogram shows (key language below)")
    p.add_argument("--linear", metavar="MIN,MAX,STEP", help="linear histogram buckets")
    p.add_argument("--time", metavar="KEY",
                   help="the timeline's time (default $clock, $rdtsc, else frame)")
    p.add_argument("--cpu", metavar="KEY", help="the timeline's lanes (default $cpu_id)")
    p.add_argument("--tp", type=int, metavar="N", help="only frames of tracepoint N")
    source.add_arguments(p)
    p.set_defaults(func=run)
