#!/usr/bin/env python3
"""gtp-ctl plot (docs/histograms.md), rendered by a real browser. Runs on the host.

1. Boots the guest (tests/vm/run) to record a real trace with stock gdb and
   the real module (guest_trace.py: $rdi, $cpu_id, $clock of the Fig. 11
   loop, 300 calls on CPU 0 then 200 on CPU 1), carried back base64.
2. gtp-ctl plot draws it (SVG and HTML); headless Chromium takes a
   screenshot of each.
3. The PNG is decoded (png.py: zlib + struct) and the pixels are checked:
   both panels' axis lines, one bar per power-of-two bucket whose height
   is the bucket's count computed here from the workload, and the two CPU
   lanes with CPU 0's frames before CPU 1's.

Prints TAP (tests/lib/tap.py).  GTP_PLOT_TFILE=FILE skips step 1 and uses
a trace file guest_trace.py wrote earlier.
"""
import base64
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "gdb-scripts"))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
import png  # noqa: E402
import tap  # noqa: E402
from gtpctl import plot  # noqa: E402  (layout constants only)

CHROMIUM = ("--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
            "--disable-background-networking --disable-component-update "
            "--disable-sync").split()


def hexrgb(s):
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


BAR = hexrgb(plot.BAR_COLOUR)
TP1 = hexrgb(plot.TP_COLOURS[0])


def guest_trace(path):
    p = subprocess.run([os.path.join(REPO, "tests/vm/run"), "--", "python3",
                        os.path.join(HERE, "guest_trace.py")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=1800)
    out = p.stdout.decode(errors="replace")
    m = re.search(r"GTP-TFILE-BEGIN\r?\n(.*?)GTP-TFILE-END", out, re.S)
    if p.returncode != 0 or not m:
        raise AssertionError("the guest did not produce a trace (%d):\n%s"
                             % (p.returncode, out[-4000:]))
    with open(path, "wb") as f:
        f.write(base64.b64decode(re.sub(r"\s+", "", m.group(1))))


def screenshot(url, png_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        raise AssertionError("chromium is not installed (make deps installs it)")
    prof = tempfile.mkdtemp(prefix="gtp-chromium-")
    try:
        p = subprocess.run([browser] + CHROMIUM + [
            "--user-data-dir=" + prof, "--screenshot=" + png_path,
            "--window-size=%d,%d" % (plot.WIDTH, plot.HEIGHT), url],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    if not os.path.exists(png_path):
        raise AssertionError("chromium wrote no screenshot:\n%s" % p.stdout.decode()[-3000:])
    with open(png_path, "rb") as f:
        return png.decode(f.read())


def expected_buckets(values):
    """bpftrace log2 buckets, as [(lo, count)] from the lowest to the highest."""
    counts = {}
    for v in values:
        lo = 0 if v == 0 else 1 << (v.bit_length() - 1)
        counts[lo] = counts.get(lo, 0) + 1
    return sorted(counts.items())


def dark(px):
    return max(px) < 80


def check_axes(rows, top, bottom):
    span = range(plot.LEFT + 5, plot.RIGHT - 5)
    row = max((sum(dark(rows[y][x]) for x in span), y) for y in range(bottom - 2, bottom + 3))
    assert row[0] >= len(span) * 0.95, "no x axis at y=%d (%d dark pixels)" % (bottom, row[0])
    col = max((sum(dark(rows[y][x]) for y in range(top + 5, bottom - 5)), x)
              for x in range(plot.LEFT - 2, plot.LEFT + 3))
    assert col[0] >= (bottom - top - 10) * 0.95, "no y axis at x=%d" % plot.LEFT


def check_bars(rows, values):
    want = expected_buckets(values)
    peak = max(n for _, n in want)
    # columns of the histogram panel holding bar-coloured pixels, grouped
    heights = {}
    for x in range(plot.LEFT + 3, plot.RIGHT):
        n = sum(rows[y][x] == BAR for y in range(plot.HIST_TOP, plot.HIST_BOTTOM))
        if n:
            heights[x] = n
    bars, cur = [], None
    for x in sorted(heights):
        if cur and x == cur[-1][0] + 1:
            cur.append((x, heights[x]))
        else:
            cur = [(x, heights[x])]
            bars.append(cur)
    assert len(bars) == len(want), "%d bars drawn, %d buckets expected (%s)" % (
        len(bars), len(want), want)
    for bar, (lo, n) in zip(bars, want):
        h = max(hh for _, hh in bar)
        exp = round(n * plot.HIST_H / peak)
        assert abs(h - exp) <= 1, "bucket %d (%d frames): bar %d px high, expected %d" % (
            lo, n, h, exp)
        assert len(bar) >= 5, "bucket %d: bar only %d px wide" % (lo, len(bar))


def check_lanes(rows):
    lane_h = (plot.TL_BOTTOM - plot.TL_TOP - 10) // 2
    spans = []
    for lane in range(2):
        y0 = plot.TL_TOP + 5 + lane * lane_h
        xs = [x for y in range(y0, y0 + lane_h) for x in range(plot.LEFT, plot.RIGHT + 1)
              if rows[y][x] == TP1]
        assert xs, "no frames drawn in lane %d" % lane
        spans.append((min(xs), max(xs)))
    assert spans[0][1] < spans[1][0], "CPU 0's frames (x %s) should all come before " \
        "CPU 1's (x %s)" % (spans[0], spans[1])


# What the tests hand on, in file order: the trace file, then the
# screenshots ({"svg"|"html": (width, height, rows)}).
WORK = os.path.join(REPO, "build", "hist")
TFILE = os.environ.get("GTP_PLOT_TFILE") or os.path.join(WORK, "plot.tf")
VALUES = list(range(1, 301)) + list(range(1, 201))
SHOTS = {}


def test_a_real_trace_from_the_guest():
    if os.environ.get("GTP_PLOT_TFILE"):
        os.stat(TFILE)          # given: step 1 is skipped, the file must exist
        return
    os.makedirs(WORK, exist_ok=True)
    guest_trace(TFILE)


def draw(ext):
    os.makedirs(WORK, exist_ok=True)
    out = os.path.join(WORK, "plot." + ext)
    ctl = os.path.join(REPO, "gdb-scripts", "gtp-ctl")
    subprocess.run([ctl, "plot", out, "rdi", "-f", TFILE], check=True,
                   stdout=subprocess.DEVNULL, timeout=300)
    SHOTS[ext] = screenshot("file://" + out, os.path.join(WORK, "plot-%s.png" % ext))


def test_plot_svg_rendered_by_chromium():
    draw("svg")


def test_plot_html_rendered_by_chromium():
    draw("html")


def test_screenshots_axes_bars_at_bucket_heights_two_cpu_lanes():
    for ext, (w, h, rows) in SHOTS.items():
        assert (w, h) == (plot.WIDTH, plot.HEIGHT), "%s: screenshot %dx%d" % (ext, w, h)
        check_axes(rows, plot.TL_TOP, plot.TL_BOTTOM)
        check_axes(rows, plot.HIST_TOP, plot.HIST_BOTTOM)
        check_bars(rows, VALUES)
        check_lanes(rows)
    assert len(SHOTS) == 2, "only %s rendered" % sorted(SHOTS)


def test_pixel_check_rejects_a_picture_without_bars():
    # the checker must be able to fail: a picture with no bars fails it
    w, h, rows = SHOTS["svg"]
    rows = [[(255, 255, 255) if px == BAR else px for px in r] for r in rows]
    try:
        check_bars(rows, VALUES)
    except AssertionError:
        return
    raise AssertionError("check_bars accepted a picture without bars")


if __name__ == "__main__":
    sys.exit(tap.main(globals()))
