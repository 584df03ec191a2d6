#!/usr/bin/env python3
"""The svg output, drawn by the real tools and rendered by a real renderer.

Each case makes one picture with a binary (bigread on a file with a planted
cliff, io_profile, iobench run), with a json output of the same run beside
it, then:
  - parses the SVG as XML;
  - renders it to PNG with rsvg-convert (Debian librsvg2-bin) and checks the
    picture is not blank: the pixel values vary and enough pixels are not
    background;
  - checks what is drawn against the records: the cliff line's x against the
    x axis' tick marks and cliff_offset_bytes, the median line's y against
    robust_median_bytes_per_s, one line per io_profile sweep with one point
    per I/O size, one latency curve per phase.

usage: test_svg.py --bin-dir DIR --plugin-dir DIR --vclock LIB --work DIR
                   [--sanitize] CASE
Exit 77 (skip) when rsvg-convert is not installed.
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import fail, must as check  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
MIB = 1 << 20


def run(cmd, env=None, cwd=None):
    p = subprocess.run(cmd, capture_output=True, env=iob.env(env), cwd=cwd, timeout=120)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode()[-2000:]))
    return p


def check_not_blank(svg, work):
    png = os.path.join(work, os.path.basename(svg) + ".png")
    p = subprocess.run(["rsvg-convert", "-o", png, svg], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0 and os.path.getsize(png) > 0, "rsvg-convert renders %s (%s)" % (svg, p.stderr.decode()))
    w, h, bpp, rows = iob.png_pixels(png)
    grey = []
    for row in rows:
        for x in range(0, w * bpp, bpp):
            grey.append((row[x] + row[x + 1] + row[x + 2]) // 3)
    mean = sum(grey) / len(grey)
    var = sum((g - mean) ** 2 for g in grey) / len(grey)
    inked = sum(1 for g in grey if g < 200) / len(grey)
    check(w >= 400 and h >= 300, "picture is %dx%d" % (w, h))
    check(var > 100, "pixel variance %.1f is not that of a blank picture" % var)
    check(inked > 0.01, "%.2f%% of the pixels are drawn" % (100 * inked))


def load_svg(path):
    text = open(path, encoding="utf-8").read()
    check(text.startswith("<?xml") and "<script" not in text and "href" not in text,
          "%s is a self-contained SVG document" % path)
    return ET.fromstring(text)


def lines(root, cls):
    return [e for e in root.iter(NS + "line") if e.get("class") == cls]


def axis_scale(ticks, attr):
    """Pixel position as a linear function of value, from the tick lines."""
    pts = sorted({(float(t.get("data-value")), float(t.get(attr))) for t in ticks})
    check(len(pts) >= 2, "an axis has at least two ticks")
    (v0, p0), (v1, p1) = pts[0], pts[-1]
    for v, p in pts:  # every tick on one straight line: the axis is linear
        check(abs(p0 + (v - v0) * (p1 - p0) / (v1 - v0) - p) < 0.02, "tick %g at %.2f on the scale" % (v, p))
    return lambda v: p0 + (v - v0) * (p1 - p0) / (v1 - v0)


def records(path, kind):
    return [r for r in json.load(open(path))["records"] if r["kind"] == kind]


def case_bigread(o):
    data = os.path.join(o.work, "cliff.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(48 * MIB))
    svg, js = os.path.join(o.work, "bigread.svg"), os.path.join(o.work, "bigread.json")
    env = {"LD_PRELOAD": o.vclock, "IOBENCH_NO_TSC": "1", "IOBTEST_VCLOCK_CPU": "none",
           "IOB_SLOWAFTER_RATE": str(200 * MIB), "IOB_SLOWAFTER_BYTES": str(29 * MIB),
           "IOB_SLOWAFTER_JITTER": "0.05"}
    if o.sanitize:
        env["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
    run([os.path.join(o.bin_dir, "bigread"), "--plugin-dir", o.plugin_dir, "-b", "slowafter", data, "1M",
         "-o", "svg=%s,json=%s" % (svg, js)], env=env)
    phase = records(js, "phase")[0]
    check(phase["cliff"] is True and phase["cliff_offset_bytes"] == 29 * MIB,
          "the records find the planted cliff at 29 MiB")
    root = load_svg(svg)
    xscale = axis_scale(lines(root, "xtick"), "x1")
    yscale = axis_scale(lines(root, "ytick"), "y1")
    cliff = lines(root, "cliff")
    check(len(cliff) == 1, "one cliff line")
    c = cliff[0]
    check(int(float(c.get("data-offset-bytes"))) == phase["cliff_offset_bytes"], "the cliff line names its offset")
    x = float(c.get("x1"))
    check(abs(x - xscale(phase["cliff_offset_bytes"])) < 0.02 and float(c.get("x2")) == x,
          "the cliff line sits at x %.2f, where the axis puts %d bytes" % (x, phase["cliff_offset_bytes"]))
    med = lines(root, "median")
    check(len(med) == 1, "one robust median line")
    y = float(med[0].get("y1"))
    check(abs(y - yscale(phase["robust_median_bytes_per_s"])) < 0.02,
          "the median line sits at y %.2f, where the axis puts the robust median" % y)
    blocks = records(js, "block")
    poly = [e for e in root.iter(NS + "polyline") if e.get("class") == "speed"]
    check(len(poly) == 1, "one speed line")
    pts = [tuple(map(float, p.split(","))) for p in poly[0].get("points").split()]
    check(len(pts) == len(blocks), "one point per block (%d)" % len(blocks))
    for (px, py), b in zip(pts, blocks):
        if abs(px - xscale(b["offset_bytes"])) > 0.02 or abs(py - yscale(b["speed_bytes_per_s"])) > 0.02:
            fail("block %d drawn at %.2f,%.2f" % (b["index"], px, py))
    check(True, "every block at its offset and speed")
    check_not_blank(svg, o.work)


def case_io_profile(o):
    svg, js = os.path.join(o.work, "io_profile.svg"), os.path.join(o.work, "io_profile.json")
    run([os.path.join(o.bin_dir, "io_profile"), "-s", "-l", "1M", "-M", "4096", "-n", "50",
         "--remove", "-d", o.work, "-o", "svg=%s,json=%s" % (svg, js)])
    phases = records(js, "phase")
    sizes = sorted({p["block_size_bytes"] for p in phases})
    root = load_svg(svg)
    for cls in ("throughput", "iops"):
        poly = [e for e in root.iter(NS + "polyline") if e.get("class") == cls]
        check(len(poly) == 2, "%s: two lines, write and read" % cls)
        for p in poly:
            check(len(p.get("points").split()) == len(sizes), "%s: a point per I/O size (%d)" % (cls, len(sizes)))
    texts = [t.text for t in root.iter(NS + "text")]
    check("write" in texts and "read" in texts, "the legend names write and read")
    check(any(t and "log2" in t for t in texts) and any(t and "MiB/s" in t for t in texts), "axes state units")
    # the x axis is log2: the ticks of 2^k are equally spaced
    ticks = sorted({(float(t.get("data-value")), float(t.get("x1"))) for t in lines(root, "xtick")})
    check(len({v for v, _ in ticks}) == len(ticks), "both panels put each size at one x")
    gaps = {round(b[1] - a[1], 1) for a, b in zip(ticks, ticks[1:])}
    check(len(ticks) >= 3 and len(gaps) == 1, "log2 ticks equally spaced %s" % gaps)
    check_not_blank(svg, o.work)


def latency_run(o, name, text):
    """Run the profile `text` with svg and json outputs: (the svg's path,
    the phase records that measured a latency)."""
    prof = iob.write(os.path.join(o.work, name + ".ini"), text)
    svg, js = os.path.join(o.work, name + ".svg"), os.path.join(o.work, name + ".json")
    run([os.path.join(o.bin_dir, "iobench"), "--plugin-dir", o.plugin_dir, "run", prof, "--dir", o.work,
         "--output", "svg=%s,json=%s" % (svg, js)])
    return svg, [p for p in records(js, "phase") if p["lat_ns"] and p["lat_ns"]["count"]]


def case_iobench(o):
    svg, phases = latency_run(o, "iobench", "[a]\nsize = 4M\nblock_size = 64K\nphases = write,read\n"
                              "[b]\nsize = 2M\nblock_size = 4K\naccess = rand\nphases = write,read\n")
    root = load_svg(svg)
    poly = [e for e in root.iter(NS + "polyline") if e.get("class") == "latency"]
    check(len(poly) == len(phases) == 4, "one latency curve per phase (%d)" % len(phases))
    yticks = lines(root, "ytick")
    vals = sorted({float(t.get("data-value")) for t in yticks})  # every panel has the same axis
    check(all(abs(b / a - 10) < 1e-9 for a, b in zip(vals, vals[1:])), "y ticks are decades (log scale)")
    texts = [t.text or "" for t in root.iter(NS + "text")]
    check("percentile (scale of nines: 90, 99, 99.9 equally spaced)" in texts
          and "latency per I/O (log10 scale)" in texts, "axis labels")
    check("Latency percentiles: job a" in texts and "Latency percentiles: job b" in texts, "a panel per job")
    check(texts.count("write 64 KiB") == 1 and texts.count("read 4 KiB") == 1, "the legends name the phases")
    check_series_named(root, "latency", 2)
    check_not_blank(svg, o.work)


PANEL_TOP, PANEL_H = 56, 380


def panel_of(y):
    return int((y - PANEL_TOP) // PANEL_H)


def check_series_named(root, cls, panels):
    """Every curve of class cls has a legend line of its own in its panel,
    and no two curves of a panel share a colour and a dash pattern: nothing
    is left unnamed ("(more, not named)") or drawn alike."""
    texts = " ".join(t.text or "" for t in root.iter(NS + "text"))
    check("more, not named" not in texts, "no series is left unnamed")
    curves, legends = {}, {}
    for e in root.iter(NS + "polyline"):
        if e.get("class") != cls:
            continue
        ys = [float(p.split(",")[1]) for p in e.get("points").split()]
        k = panel_of(min(ys))
        check(panel_of(max(ys)) == k, "a %s curve stays in its panel" % cls)
        curves.setdefault(k, []).append((e.get("stroke"), e.get("stroke-dasharray")))
    for e in lines(root, "legend"):
        legends.setdefault(panel_of(float(e.get("y1"))), []).append((e.get("stroke"), e.get("stroke-dasharray")))
    check(len(curves) == panels, "%d panels of %s curves (%d)" % (panels, cls, len(curves)))
    for k, styles in curves.items():
        check(len(set(styles)) == len(styles), "panel %d: %d curves in %d distinct styles" % (k, len(styles),
                                                                                          len(set(styles))))
        check(sorted(styles, key=str) == sorted(legends.get(k, []), key=str),
              "panel %d: a legend line in each curve's style" % k)


def case_many(o):
    """A job of 27 phases (9 block sizes, write, read and verify): a panel
    per phase (small multiples), each curve named in a style of its own;
    beside a job of one phase."""
    svg, phases = latency_run(o, "many", "[sweep]\nsize = 1M\nblock_size = 4K\nblock_size_max = 1M\n"
                              "phases = write,read,verify\n[one]\nsize = 1M\nblock_size = 2K\nphases = write\n")
    check(len(phases) == 28, "28 phases with a latency (%d)" % len(phases))
    root = load_svg(svg)
    check(len([e for e in root.iter(NS + "polyline") if e.get("class") == "latency"]) == 28, "28 curves")
    texts = [t.text or "" for t in root.iter(NS + "text")]
    for title in ("Latency percentiles: job sweep, write", "Latency percentiles: job sweep, read",
                  "Latency percentiles: job sweep, verify", "Latency percentiles: job one"):
        check(title in texts, "title " + title)
    for ph in ("write", "read", "verify"):
        for size in ("4 KiB", "8 KiB", "16 KiB", "32 KiB", "64 KiB", "128 KiB", "256 KiB", "512 KiB", "1 MiB"):
            check(texts.count("%s %s" % (ph, size)) == 1, "legend %s %s" % (ph, size))
    check_series_named(root, "latency", 4)
    check_not_blank(svg, o.work)


def case_hostile(o):
    """A directory and a file whose names hold bytes XML 1.0 cannot carry
    (a C0 control, a lone surrogate ED A0 80, U+FFFE, U+FFFF, an overlong
    C0 AF, a stray 0x9b, a C1 CSI) and XML's own < & > ' ": bigread's
    picture names the file in its title, and still parses with a strict XML
    parser (python's, and xmllint where installed) and renders."""
    bad = b"d\x01\xed\xa0\x80\xef\xbf\xbe\xef\xbf\xbf\xc0\xaf\x9b\xc2\x9b<&>'\""
    wd = os.path.join(os.fsencode(o.work), bad)
    os.mkdir(wd)
    data = os.path.join(wd, b"f" + bad + b".dat")
    with open(data, "wb") as f:
        f.write(os.urandom(4 * MIB))
    svg = os.path.join(o.work, "hostile.svg")
    env = dict(os.environ, LD_PRELOAD=o.vclock, IOBENCH_NO_TSC="1", IOBTEST_VCLOCK_CPU="none",
               IOB_SLOWAFTER_RATE=str(200 * MIB))
    env.pop("IOBENCH_PLUGIN_PATH", None)
    if o.sanitize:
        env["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
    p = subprocess.run([os.fsencode(os.path.join(o.bin_dir, "bigread")), b"--plugin-dir", os.fsencode(o.plugin_dir),
                        b"-b", b"slowafter", data, b"256K", b"-o", os.fsencode("svg=" + svg)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=120)
    check(p.returncode == 0, "bigread read a file named with hostile bytes (%d %r)" % (p.returncode, p.stderr[-500:]))
    raw = open(svg, "rb").read()
    for seq in (b"\x01", b"\xed\xa0\x80", b"\xef\xbf\xbe", b"\xef\xbf\xbf", b"\xc0\xaf", b"\x9b"):
        check(seq not in raw, "%r is not in the picture" % seq)
    raw.decode("utf-8")  # strict
    root = ET.fromstring(raw)
    check(True, "python's XML parser accepts the picture")
    want = "d\ufffd" + "\ufffd" * 3 + "\ufffd" * 2 + "\ufffd" * 2 + "\ufffd" + "\ufffd<&>'\""
    titles = [t.text or "" for t in root.iter(NS + "text") if (t.text or "").startswith("Speed per block")]
    check(len(titles) == 1 and want in titles[0], "the title names the file, U+FFFD for each bad byte: %r" % titles)
    if shutil.which("xmllint"):
        x = subprocess.run(["xmllint", "--noout", svg], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(x.returncode == 0, "xmllint accepts the picture (%s)" % x.stderr.decode(errors="replace")[-500:])
    else:
        print("note: xmllint not installed (Debian libxml2-utils): python's parser only")
    check_not_blank(svg, o.work)


def case_intervals(o):
    """iobench with log_interval: throughput and IOPS per interval against
    time, each point where its record says, above the latency panel.  The
    read is paced (slowafter, real clock: its length does not matter here)."""
    data = os.path.join(o.work, "r.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(4 << 20))
    prof = os.path.join(o.work, "iv.ini")
    with open(prof, "w") as f:
        f.write("[paced]\nfilename = r.dat\nbackend = slowafter\nsize = 4M\nblock_size = 64K\nphases = read\n"
                "log_interval = 200ms\n")
    svg, js = os.path.join(o.work, "intervals.svg"), os.path.join(o.work, "intervals.json")
    env = dict(os.environ, IOB_SLOWAFTER_RATE=str(4 << 20))
    run([os.path.join(o.bin_dir, "iobench"), "--plugin-dir", o.plugin_dir, "run", prof, "--dir", o.work,
         "--output", "svg=%s,json=%s" % (svg, js)], env=env)
    iv = records(js, "interval")
    root = load_svg(svg)
    check(len(iv) >= 5, "intervals were logged (%d)" % len(iv))
    for cls, key, top in (("interval-bw", "bw_bytes_per_s", 56), ("interval-iops", "ops_per_s", 56 + 380)):
        poly = [e for e in root.iter(NS + "polyline") if e.get("class") == cls]
        check(len(poly) == 1, "one %s line" % cls)
        pts = [tuple(map(float, p.split(","))) for p in poly[0].get("points").split()]
        check(len(pts) == len(iv), "%s: a point per interval (%d, %d)" % (cls, len(pts), len(iv)))
        panel = lambda t: top <= float(t.get("y1")) <= top + 380
        ymap = axis_scale([t for t in lines(root, "ytick") if panel(t)], "y1")
        xmap = axis_scale([t for t in lines(root, "xtick") if top <= float(t.get("y1")) <= top + 380], "x1")
        for (px, py), r in zip(pts, iv):
            check(abs(px - xmap(r["time_s"])) < 0.6 and abs(py - ymap(r[key])) < 0.6,
                  "%s: interval %d at (%.2f, %.2f), its record says (%.2f, %.2f)" %
                  (cls, r["interval"], px, py, xmap(r["time_s"]), ymap(r[key])))
    texts = " ".join(t.text or "" for t in root.iter(NS + "text"))
    check("Throughput per interval: job paced" in texts and "MiB/s" in texts and "IOPS" in texts
          and "read 64 KiB" in texts and "time since the phase began (s)" in texts,
          "titles, axis labels and legend")
    check_series_named(root, "interval-bw", 1)
    check_series_named(root, "interval-iops", 1)
    check(len([e for e in root.iter(NS + "polyline") if e.get("class") == "latency"]) == 1,
          "the latency panel below")
    check_not_blank(svg, o.work)
    if o.keep:
        shutil.copy(svg, o.keep)


def main():
    o = iob.arguments("--bin-dir", "--plugin-dir", "--vclock", "--work", optional={
        "--sanitize": {"action": "store_true"}, "--keep": {"help": "copy the picture here (docs/pictures)"},
        "case": {"choices": ["bigread", "io_profile", "iobench", "intervals", "many", "hostile"]}})
    if not shutil.which("rsvg-convert"):
        iob.skip("rsvg-convert not installed (Debian librsvg2-bin; tools/deps.sh installs it)")
    o.work = iob.case_dir(o.work, o.case)
    globals()["case_" + o.case](o)
    shutil.rmtree(o.work, ignore_errors=True)


if __name__ == "__main__":
    main()
