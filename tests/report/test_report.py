#!/usr/bin/env python3
"""`iobench report` and the html output, made by the real binaries.

Cases (one ctest each, label "report"):
  kinds     a result of each kind - iobench (repeats, intervals, steady state), bigread,
            io_profile, iotest, fio's JSON, a comparison of two iobench runs -
            made into a page; the page parses as well-formed HTML, has one
            script (its own) and no URL but data: or #, and its tables hold
            the records' figures (data-v against the JSON, row by row); the
            page the html output writes at the end of the run has the same
            tables as the report of its JSON.
  escape    a result whose job names, notes, host, command line and error
            hold <script>, </style>, quotes, &, control characters and bad
            UTF-8: the page stays inert (one script element, its own), well
            formed, and shows each string as text.
  bad       bad input: not a result, cut short, another schema, empty, a FIFO,
            the output over an input (same name, a hard link, a symbolic
            link): exit 2, one line naming the file, no file created and an
            existing one unchanged; 80 results cut or with a byte changed give
            a page or that refusal, never a crash.
  size      a 10,000-block bigread result and an hour of 1 s intervals: each
            page under 2 MB, its lines thinned to at most 2000 points and the
            page says so; in 40,000 blocks (kept in buckets past 16384) a
            planted dip and peak are still drawn where the axis puts them.
  memory    the peak RSS of report over a 64 MiB result is within 4 MiB of
            that over a 4 MiB one (the result is read as a stream; GNU time
            measures it; skipped, 77, without /usr/bin/time).
  browser   each kind of page loaded in headless Chromium (--dump-dom,
            --screenshot): no console message, no URL but data: or # in the
            DOM, the DOM's tables hold the records' figures, the screenshot is
            not blank; the comparison page prints to PDF (letter or A4 pages).
            With --pictures DIR, the screenshots are kept there.
            Skipped (77) without chromium.

usage: test_report.py --bin-dir DIR --work DIR [--pictures DIR] [--sanitize] CASE
"""
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import fail, must as check  # noqa: E402

MIB = 1 << 20
VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}
SVG_VOID = {"line", "rect", "circle", "polyline", "path", "polygon"}


def run(cmd, cwd=None, expect=0, env=None):
    p = subprocess.run(cmd, capture_output=True, cwd=cwd, env=iob.env(env), timeout=300)
    if expect is not None and p.returncode != expect:
        fail("%s exited %d: %s" % (" ".join(map(str, cmd)), p.returncode, p.stderr.decode(errors="replace")[-2000:]))
    return p


class Page(HTMLParser):
    """A light tree of the page: tables by id (rows of cells: class, data-v,
    text), every element's tag and attributes, and well-formedness."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.elements, self.errors = [], [], []
        self.tables, self.table, self.row, self.cell = {}, None, None, None
        self.text = []
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if tag == "script":
            self.scripts += 1
        if tag == "table":
            self.table = self.tables.setdefault(a.get("id", ""), [])
        elif tag == "tr" and self.table is not None:
            self.row = []
            self.table.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = {"class": a.get("class", ""), "v": a.get("data-v"), "text": ""}
            self.row.append(self.cell)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag not in VOID and tag not in SVG_VOID:
            self.errors.append("self-closed <%s/>" % tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()
        if tag in ("td", "th"):
            self.cell = None
        elif tag == "tr":
            self.row = None
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell["text"] += data


def parse(path):
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")  # strict: the page is UTF-8
    check(text.startswith("<!DOCTYPE html>"), "%s starts with <!DOCTYPE html>" % os.path.basename(path))
    bad = [c for c in text if ord(c) < 32 and c not in "\n\t" or 0x7f <= ord(c) <= 0x9f]
    check(not bad, "no control character in the page (%r)" % bad[:5])
    p = Page()
    p.feed(text)
    p.close()
    check(not p.errors and not p.stack, "well-formed: every element closed in order (%s %s)" % (p.errors[:3], p.stack))
    check(p.scripts == 1, "one script element, the page's own (%d)" % p.scripts)
    check_no_urls(p.elements, text)
    p.raw = text
    return p


def check_no_urls(elements, text):
    urls = []
    for tag, a in elements:
        for k, v in a.items():
            if k in ("src", "href", "xlink:href", "action", "formaction", "poster", "srcset", "data", "background"):
                if not (v or "").startswith(("data:", "#")):
                    urls.append((tag, k, v))
    check(not urls, "no URL but data: or # in an attribute (%s)" % urls[:3])
    check("url(" not in text and "@import" not in text, "no url( or @import in a style")


def body_rows(page, tid):
    t = page.tables.get(tid)
    check(t is not None, "the page has the table %s" % tid)
    return t[1:]  # the first row is the head


def cell(row, cls):
    for c in row:
        if cls in c["class"].split():
            return c
    fail("no cell of class %s in %s" % (cls, row))


def same(a, b):
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def check_value(c, want, what):
    if want is None:
        check(c["v"] is None and c["text"] == "-", "%s: not measured, shown as -" % what)
    else:
        check(c["v"] is not None and same(float(c["v"]), float(want)), "%s: %s in the page, %s in the JSON" %
              (what, c["v"], want))


def check_phases(page, phases):
    """The phases table: one row per phase record, in order, with its figures."""
    rs = body_rows(page, "phases")
    check(len(rs) == len(phases), "%d phase rows for %d phase records" % (len(rs), len(phases)))
    for r, p in zip(rs, phases):
        name = "%s %s" % (p["job"], p["phase"])
        check(cell(r, "job")["text"] == p["job"] and cell(r, "phase")["text"] == p["phase"], name + ": named")
        check_value(cell(r, "bw"), p.get("bw_bytes_per_s"), name + " MiB/s")
        check_value(cell(r, "iops"), p.get("ops_per_s"), name + " IOPS")
        lat = p.get("lat_ns") or {}
        pct = lat.get("percentiles") or {}
        if lat.get("count"):
            check_value(cell(r, "p50"), pct.get("50"), name + " p50")
            check_value(cell(r, "p99"), pct.get("99"), name + " p99")
            check_value(cell(r, "max"), lat.get("max"), name + " max")


def records(path, kind):
    return [r for r in json.load(open(path))["records"] if r["kind"] == kind]


def report(o, inputs, out, expect=0):
    return run([os.path.join(o.bin_dir, "iobench"), "report"] + inputs + ["-o", out], expect=expect)


# ---- making results of each kind -------------------------------------------------


def make_iobench(o, name="ib", repeat=3):
    prof = os.path.join(o.work, name + ".ini")
    with open(prof, "w") as f:
        f.write("[seq]\nsize = 2M\nblock_size = 64K\nphases = write,read\nrepeat = %d\nlog_interval = 10ms\n"
                "runtime = 40ms\ntime_based = true\n"
                "[rand]\nsize = 1M\nblock_size = 4K\naccess = rand\nphases = write,read\n"
                "[steady]\nsize = 1M\nblock_size = 64K\nphases = write,read\nsteady_state = bw\nsteady_window = 2\n"
                "steady_max_rounds = 3\nsteady_round = 8\n" % repeat)
    js, ht = os.path.join(o.work, name + ".json"), os.path.join(o.work, name + ".run.html")
    d = os.path.join(o.work, name + ".d")
    os.makedirs(d, exist_ok=True)
    run([os.path.join(o.bin_dir, "iobench"), "run", prof, "--dir", d, "--output", "json=%s,html=%s" % (js, ht)])
    return js, ht


def make_bigread(o, blocks=64, bs="64K"):
    data = os.path.join(o.work, "br%d.dat" % blocks)
    size = blocks * (64 * 1024 if bs == "64K" else 4096)
    with open(data, "wb") as f:
        f.write(os.urandom(size))
    js, ht = os.path.join(o.work, "br%d.json" % blocks), os.path.join(o.work, "br%d.run.html" % blocks)
    run([os.path.join(o.bin_dir, "bigread"), data, bs, "-o", "json=%s,html=%s" % (js, ht)])
    os.unlink(data)
    return js, ht


def make_io_profile(o):
    js = os.path.join(o.work, "iop.json")
    d = os.path.join(o.work, "iop.d")
    os.makedirs(d, exist_ok=True)
    run([os.path.join(o.bin_dir, "io_profile"), "-s", "-l", "1M", "-M", "4096", "-n", "50", "--remove", "-d", d,
         "-o", "json=" + js])
    return js, None


def make_iotest(o):
    d = os.path.join(o.work, "iot.d")
    os.makedirs(d, exist_ok=True)
    js = os.path.join(o.work, "iot.json")
    run([os.path.join(o.bin_dir, "iotest"), "-s", "2", "-b", "64", "-p", "01", "-a", "--format",
         "iotest,json=" + js, os.path.join(d, "x")])
    return js, None


def make_fio(o):
    if not shutil.which("fio"):
        return None, None
    js = os.path.join(o.work, "fio.json")
    run(["fio", "--name=fio-job", "--filename=" + os.path.join(o.work, "fio.dat"), "--size=2M", "--bs=4k",
         "--rw=randrw", "--output-format=json", "--output=" + js])
    os.unlink(os.path.join(o.work, "fio.dat"))
    return js, None


def make_files(o):
    """A files job (workload = files, docs/metadata.md): every phase, 2 streams, and its html output."""
    prof = os.path.join(o.work, "files.ini")
    d = os.path.join(o.work, "files.d")
    os.makedirs(d, exist_ok=True)
    with open(prof, "w") as f:
        f.write("[small]\nworkload = files\ndir = %s\nfiles = 120\nthreads = 2\ntree_depth = 1\ntree_branch = 3\n"
                "file_bytes = 16\nmeta_phases = mkdir,dirstat,create,write,stat,open,read,remove,rmdir\n" % d)
    js, ht = os.path.join(o.work, "files.json"), os.path.join(o.work, "files.run.html")
    run([os.path.join(o.bin_dir, "iobench"), "run", prof, "--output", "json=%s,html=%s" % (js, ht)])
    check(os.listdir(d) == [], "the files job removed what it made")
    return js, ht


def check_meta(p, metas):
    """The files jobs' table: a row per meta record, in order, its counts, rate and one operation's
    latency percentiles; the ops/s chart: a bar per record at its rate; a latency curve per record."""
    rs = body_rows(p, "meta")
    check(len(rs) == len(metas) == 9, "%d meta rows for %d meta records" % (len(rs), len(metas)))
    for r, m in zip(rs, metas):
        name = "%s %s" % (m["job"], m["phase"])
        check(cell(r, "job")["text"] == m["job"] and cell(r, "phase")["text"] == m["phase"], name + ": named")
        check_value(cell(r, "streams"), m["streams"], name + " streams")
        check_value(cell(r, "ops"), m["ops"], name + " operations")
        check_value(cell(r, "secs"), m["elapsed_s"], name + " time")
        check_value(cell(r, "iops"), m["ops_per_s"], name + " ops/s")
        pct = m["lat_ns"]["percentiles"]
        for cls, rank in (("p50", "50"), ("p90", "90"), ("p99", "99"), ("p99_9", "99.9")):
            check_value(cell(r, cls), pct[rank], "%s %s" % (name, cls))
        check_value(cell(r, "max"), m["lat_ns"]["max"], name + " max")
        check(cell(r, "status")["text"] == m["status"], name + " status")
    check(metas[2]["ops"] == 240 and metas[0]["ops"] == 8 and metas[1]["ops"] == 8,
          "the counts: 240 files, 8 directories made and stat'ed")
    check([m["phase"] for m in metas][:3] == ["mkdir", "dirstat", "create"], "the phases in order: %s" %
          [m["phase"] for m in metas])
    bars = re.findall(r'<rect class="bar" data-phase="([^"]*)" data-ops-per-s="([^"]*)"', p.raw)
    check([b[0] for b in bars] == [m["phase"] for m in metas], "a bar per phase, in order (%s)" % bars)
    check(all(same(float(b[1]), m["ops_per_s"]) for b, m in zip(bars, metas)), "each bar at its phase's ops/s")
    check('id="fig-meta"' in p.raw and 'id="fig-latency"' in p.raw, "the ops/s chart and the latency picture")
    check(p.raw.count('class="latency"') == len(metas), "a latency curve per phase (%d)" % p.raw.count('class="latency"'))
    check('id="phases"' not in p.raw, "no empty data phases table")


def fio_phases(js):
    d = json.load(open(js))
    out = []
    for j in d["jobs"]:
        for dname in ("read", "write", "trim"):
            x = j[dname]
            if x["io_bytes"] > 0:
                lat = x["clat_ns"]
                pc = {("%g" % float(k)): v for k, v in (lat.get("percentile") or {}).items()}
                out.append({"job": j["jobname"], "phase": dname, "bw_bytes_per_s": x["bw_bytes"],
                            "ops_per_s": x["iops"],
                            "lat_ns": {"count": lat["N"], "max": lat["max"], "percentiles": pc}})
    return out


def kinds(o):
    """(name, result files, page, phase records, html output's page or None)."""
    out = []
    js, ht = make_iobench(o)
    out.append(("iobench", [js], records(js, "phase"), ht))
    js, ht = make_bigread(o)
    out.append(("bigread", [js], records(js, "phase"), ht))
    js, _ = make_io_profile(o)
    out.append(("io_profile", [js], records(js, "phase"), None))
    js, _ = make_iotest(o)
    out.append(("iotest", [js], records(js, "phase"), None))
    js, ht = make_files(o)
    out.append(("files", [js], records(js, "phase"), ht))
    js, _ = make_fio(o)
    if js:
        out.append(("fio", [js], fio_phases(js), None))
    else:
        print("note: fio not installed: no fio page")
    base, _ = make_iobench(o, "base")
    new, _ = make_iobench(o, "new")
    out.append(("compare", [base, new], records(new, "phase"), None))
    return out


def check_kind(o, name, inputs, phases, page_path):
    p = parse(page_path)
    if name == "files":
        check_meta(p, records(inputs[0], "meta"))
    else:
        check_phases(p, phases)
    if name == "iobench":
        reps = records(inputs[0], "repeats")
        rs = body_rows(p, "repeats")
        check(len(rs) == len(reps) == 2, "a repeats row per repeats record (%d)" % len(rs))
        for r, x in zip(rs, reps):
            check_value(cell(r, "bw"), x["bw_mean_bytes_per_s"], "repeats mean MiB/s")
            check_value(cell(r, "bw_lo"), x["bw_ci_low_bytes_per_s"], "repeats interval low")
            check_value(cell(r, "bw_hi"), x["bw_ci_high_bytes_per_s"], "repeats interval high")
        check('id="fig-intervals"' in p.raw and 'class="interval-bw"' in p.raw, "the interval pictures")
        check('id="fig-latency"' in p.raw and 'class="latency"' in p.raw, "the latency curves")
        st = records(inputs[0], "steady")
        rs = body_rows(p, "steady")
        check(len(rs) == len(st) == 2, "a steady row per steady record (%d)" % len(rs))
        for r, x in zip(rs, st):
            check_value(cell(r, "mean"), x.get("window_mean_bytes_per_s"), "steady window mean")
            check(cell(r, "reached")["text"] == ("yes" if x["reached"] else "no"), "steady reached or not")
        check('id="fig-steady"' in p.raw and 'class="steady-window"' in p.raw, "the steady-state picture")
    if name == "bigread":
        ph = phases[0]
        r = body_rows(p, "series")[0]
        check_value(cell(r, "blocks"), ph["blocks"], "blocks")
        check_value(cell(r, "smed"), ph["speed_median_bytes_per_s"], "median block speed")
        check_value(cell(r, "rmed"), ph["robust_median_bytes_per_s"], "robust median block speed")
        check('id="fig-series"' in p.raw and 'class="speed"' in p.raw and 'class="median"' in p.raw,
              "the block speed picture with its median")
    if name == "io_profile":
        check('id="fig-profile"' in p.raw and p.raw.count('class="throughput"') == 2, "the size sweep: two lines")
    if name == "compare":
        c = run([os.path.join(o.bin_dir, "iobench"), "compare", inputs[0], inputs[1], "--json",
                 os.path.join(o.work, "cmp.json")], expect=None)
        check(c.returncode in (0, 1), "iobench compare runs (%d)" % c.returncode)
        want = json.load(open(os.path.join(o.work, "cmp.json")))["comparisons"]
        rs = body_rows(p, "comparison")
        check(len(rs) == len(want) > 0, "a comparison row per phase and figure (%d)" % len(rs))
        for r, w in zip(rs, want):
            check(cell(r, "verdict")["text"].startswith(w["verdict"]), "verdict %s" % w["verdict"])
            check_value(cell(r, "change"), w["change"], "change")
    facts = {r[0]["text"]: r[1]["text"] for r in p.tables["facts"]}
    d = json.load(open(inputs[-1]))
    if name != "fio":
        check(facts["Host"] == d["host"] and facts["Tool"] == d["tool"] and facts["Kernel"] == d["kernel"] and
              facts["Command line"] == d["source"] and facts["Started"] == d["started"],
              "run facts: host, tool, kernel, command line, start time")
        notes = d.get("notes") or []
        if notes:
            check(p.raw.index('id="notes"') < p.raw.index('id="facts"'), "the notes come first")
            for n in notes:
                check(n in "".join(p.text), "the note is on the page: %s" % n[:60])
    else:
        check(facts["Tool"] == "fio" and facts["Version"] == d["fio version"], "fio and its version")
    return p


def phases_text(page):
    return [[c["text"] for c in r] for r in page.tables.get("phases", []) + page.tables.get("meta", [])]


def case_kinds(o):
    for name, inputs, phases, run_page in kinds(o):
        out = os.path.join(o.work, name + ".html")
        report(o, inputs, out)
        print("-- %s: %d bytes" % (name, os.path.getsize(out)))
        p = check_kind(o, name, inputs, phases, out)
        if run_page:
            q = parse(run_page)
            check(phases_text(p) == phases_text(q), "%s: the run's html output has the report's phase table" % name)
            strip = lambda t: re.sub(r'<tr><th scope="row">Result file</th>.*?</tr>\n', "", t)
            check(strip(p.raw) == strip(q.raw), "%s: the report is the html output's page, byte for byte" % name)


# ---- hostile strings ---------------------------------------------------------------

HOSTILE = ["<script>alert(1)</script>", "</style><script>alert(2)</script>", "\"quoted\" 'single'", "a & b &amp;",
           "ctl\x01\x07\x1b[31mred\x7f\u0085", "</title></table></svg><img src=x onerror=alert(3)>",
           "<!-- comment -->", "]]><![CDATA["]


def case_escape(o):
    js, _ = make_iobench(o, "esc", repeat=1)
    d = json.load(open(js))
    names = {}
    for i, r in enumerate(d["records"]):
        if "job" in r and isinstance(r["job"], str):
            names.setdefault(r["job"], HOSTILE[len(names) % len(HOSTILE)] + " job%d" % len(names))
            r["job"] = names[r["job"]]
        if r["kind"] == "phase":
            r["file"] = HOSTILE[1]
            r["fs_type"] = HOSTILE[0]
            r["device"] = HOSTILE[5]
    d["host"], d["source"], d["kernel"] = HOSTILE[0] + "HOSTBYTES", HOSTILE[3] + HOSTILE[1], HOSTILE[4]
    d["notes"] = HOSTILE[:]
    d["status"], d["error"] = "error", HOSTILE[5]
    bad = os.path.join(o.work, "hostile.json")
    with open(bad, "w") as f:
        json.dump(d, f)
    # and bytes JSON may not carry as text: invalid UTF-8 in a name
    raw = open(bad, "rb").read().replace(b"HOSTBYTES", b"host\xed\xa0\x80\xc0\xaf\xff")
    with open(bad, "wb") as f:
        f.write(raw)
    out = os.path.join(o.work, "hostile.html")
    report(o, [bad], out)
    p = parse(out)
    text = "".join(p.text)
    tags = [t for t, _ in p.elements]
    check(tags.count("script") == 1 and "img" not in tags, "no element from a string: one script, no img")
    check(tags.count("style") == 1 and tags.count("title") == 1, "one style, one title")
    check(not any(k.startswith("on") for _, a in p.elements for k in a), "no event handler attribute")
    for s in HOSTILE:
        if "\x01" in s:
            check("ctl\ufffd\ufffd\ufffd[31mred\ufffd\ufffd" in text, "control characters shown as U+FFFD")
        else:
            check(s in text, "shown as text: %r" % s)
    check(HOSTILE[0] + "host" + "\ufffd" * 6 in text, "invalid UTF-8 bytes (a surrogate, an overlong form, "
          "a stray byte) shown as U+FFFD")
    check(HOSTILE[5] in text and 'id="error"' in p.raw, "the error line is shown, as text")
    rows_ = body_rows(p, "phases")
    check(sorted({cell(r, "job")["text"] for r in rows_}) == sorted(names.values()),
          "the job names in the table, as given")
    # the html output at the end of a run escapes the same way: a profile
    # whose file name holds <script>, & and quotes (the run's source)
    prof = os.path.join(o.work, "p<script>alert(4)<&'\"x.ini")
    with open(prof, "w") as f:
        f.write("[a]\nsize = 1M\nblock_size = 64K\nphases = write,read\n")
    out2 = os.path.join(o.work, "esc2.html")
    run([os.path.join(o.bin_dir, "iobench"), "run", prof, "--dir", o.work, "--output", "html=" + out2])
    p2 = parse(out2)
    facts = {r[0]["text"]: r[1]["text"] for r in p2.tables["facts"]}
    check("p<script>alert(4)<&'\"x.ini" in facts["Command line"] and [t for t, _ in p2.elements].count("script") == 1,
          "the html output shows the profile's name p<script>alert(4)<&'\"x.ini as text")


# ---- bad input -----------------------------------------------------------------------


def refused(o, inputs, out, what, name):
    existed = os.path.exists(out)
    before = open(out, "rb").read() if existed else None
    p = report(o, inputs, out, expect=None)
    err = p.stderr.decode(errors="replace").strip().splitlines()
    check(p.returncode == 2, "%s: exit 2 (%d)" % (what, p.returncode))
    check(len(err) == 1 and name in err[0], "%s: one line naming %s: %s" % (what, name, err))
    if existed:
        check(open(out, "rb").read() == before, "%s: the existing output is unchanged" % what)
    else:
        check(not os.path.exists(out), "%s: no output file made" % what)


def case_bad(o):
    good, _ = make_bigread(o, 16)
    text = open(good, "rb").read()
    w = lambda n, b: (open(os.path.join(o.work, n), "wb").write(b), os.path.join(o.work, n))[1]
    out = os.path.join(o.work, "bad.html")
    refused(o, [w("notjson.json", b"hello, world\n")], out, "not JSON", "notjson.json")
    refused(o, [w("other.json", b'{"name":"x","records":{}}')], out, "JSON that is no result", "other.json")
    refused(o, [w("plain.json", b'{"a":[1,2,3]}')], out, "an object that is no result", "plain.json")
    refused(o, [w("cut.json", text[:len(text) // 2])], out, "a result cut short", "cut.json")
    refused(o, [w("cut2.json", text[:-3])], out, "a result missing its last bytes", "cut2.json")
    refused(o, [w("empty.json", b"")], out, "an empty file", "empty.json")
    refused(o, [w("schema3.json", text.replace(b'"schema":2', b'"schema":3'))], out, "schema 3", "schema3.json")
    refused(o, [w("trail.json", text + b"{}")], out, "text after the document", "trail.json")
    refused(o, [w("badrec.json", text.replace(b'{"kind":"block"', b'[{"kind":"block"', 1))], out,
            "a record that is no object", "badrec.json")
    fifo = os.path.join(o.work, "fifo.json")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    refused(o, [fifo], out, "a FIFO", "fifo.json")
    refused(o, [good, w("cut3.json", text[:100])], out, "a bad second file", "cut3.json")
    # the output over an input: the same name, a hard link, a symbolic link
    copy = w("in.json", text)
    refused(o, [copy], copy, "output = input", "in.json")
    link = os.path.join(o.work, "hard.html")
    if os.path.exists(link):
        os.unlink(link)
    os.link(copy, link)
    refused(o, [copy], link, "output a hard link of the input", "in.json")
    sym = os.path.join(o.work, "sym.html")
    if os.path.lexists(sym):
        os.unlink(sym)
    os.symlink(copy, sym)
    refused(o, [copy], sym, "output a symbolic link to the input", "sym.html")
    check(open(copy, "rb").read() == text, "the input is unchanged")
    # an existing page is not touched by a refused report
    old = w("old.html", b"old page\n")
    refused(o, [os.path.join(o.work, "cut.json")], old, "an existing output, bad input", "cut.json")
    # damaged results: cut anywhere, or a byte changed: a page (exit 0) or
    # one line and nothing (exit 2), never a crash
    import random
    rnd = random.Random(30)
    cuts = sorted(rnd.sample(range(1, len(text)), 40))
    flips = [(rnd.randrange(len(text)), rnd.choice(b'{}[]",:0\\ an\x00\xff')) for _ in range(40)]
    damaged = [text[:c] for c in cuts] + [text[:i] + bytes([b]) + text[i + 1:] for i, b in flips]
    codes = {}
    for k, t in enumerate(damaged):
        path = w("damaged.json", t)
        if os.path.exists(out):
            os.unlink(out)
        p = report(o, [path], out, expect=None)
        codes[p.returncode] = codes.get(p.returncode, 0) + 1
        lines = p.stderr.decode(errors="replace").strip().splitlines()
        if p.returncode == 2:
            if len(lines) != 1 or "damaged.json" not in lines[0] or os.path.exists(out):
                fail("damaged result %d: exit 2 with %s, output made: %s" % (k, lines, os.path.exists(out)))
        elif p.returncode != 0 or not os.path.exists(out):
            fail("damaged result %d: exit %d (%s)" % (k, p.returncode, lines[-3:]))
    check(codes.get(2, 0) >= 40 and set(codes) <= {0, 2},
          "80 damaged results: exit 0 (a page) or 2 (one line, nothing written), never a crash: %s" % codes)
    # and a good one is written
    report(o, [good], out)
    check(os.path.getsize(out) > 1000, "a good result makes a page")


# ---- size -----------------------------------------------------------------------------


def bigread_like(template, blocks, path, plant=None):
    """A bigread result of `blocks` 4 KiB blocks (the speeds of the template's
    blocks, repeated), its phase record's block count set to match."""
    d = json.load(open(template))
    recs = d["records"]
    src = [r for r in recs if r["kind"] == "block"]
    head = [r for r in recs if r["kind"] == "series"]
    phase = [r for r in recs if r["kind"] == "phase"][0]
    phase["blocks"] = blocks
    with open(path, "w") as f:
        top = {k: v for k, v in d.items() if k not in ("records", "notes", "status", "interrupted")}
        f.write(json.dumps(top)[:-1] + ',\n"records":[\n')
        f.write(json.dumps(head[0]) + ",\n")
        for i in range(blocks):
            b = dict(src[i % len(src)], index=i, offset_bytes=4096 * i, bytes=4096)
            if plant and i in plant:
                b["speed_bytes_per_s"] = plant[i]
            f.write(json.dumps(b, separators=(",", ":")) + ",\n")
        f.write(json.dumps(phase) + '\n],\n"notes":[],"status":"ok","interrupted":false}\n')
    return path


def intervals_like(template, n, path):
    """An iobench result with n 1 s interval records before one phase record."""
    d = json.load(open(template))
    phase = [r for r in d["records"] if r["kind"] == "phase"][0]
    with open(path, "w") as f:
        top = {k: v for k, v in d.items() if k not in ("records", "notes", "status", "interrupted")}
        f.write(json.dumps(top)[:-1] + ',\n"records":[\n')
        for i in range(n):
            r = {"kind": "interval", "job": phase["job"], "phase": phase["phase"],
                 "block_size_bytes": phase["block_size_bytes"], "interval": i, "time_s": i + 1.0,
                 "interval_s": 1.0, "bytes": 1000 * (i % 97), "ops": i % 97,
                 "bw_bytes_per_s": 1e8 + 1e6 * (i % 97), "ops_per_s": 100.0 + (i % 97), "lat_samples": 1,
                 "lat_p50_ns": 1000, "lat_p99_ns": 2000}
            f.write(json.dumps(r, separators=(",", ":")) + ",\n")
        f.write(json.dumps(phase) + '\n],\n"notes":[],"status":"ok","interrupted":false}\n')
    return path


def polyline_points(raw, cls):
    return [len(m.split()) for m in re.findall(r'<polyline class="%s"[^>]* points="([^"]*)"' % cls, raw)]


def small_page(o, doc, name, says):
    """The page of result doc in o.work/name, parsed, checked to be under
    2 MB (says: the check's text, %d the bytes)."""
    out = os.path.join(o.work, name)
    report(o, [doc], out)
    size = os.path.getsize(out)
    check(size < 2 * MIB, says % size)
    return parse(out)


def case_size(o):
    small, _ = make_bigread(o, 16)
    big = bigread_like(small, 10000, os.path.join(o.work, "br10000.json"))
    p = small_page(o, big, "br10000.html", "a 10,000-block bigread page is %d bytes (< 2 MB)")
    pts = polyline_points(p.raw, "speed")
    check(len(pts) == 1 and pts[0] <= 2000, "the speed line is thinned to %s points" % pts)
    check('id="thinned"' in p.raw and "10000" in p.raw, "the page says the line is thinned")
    check_value(cell(body_rows(p, "series")[0], "blocks"), 10000, "blocks")
    ib, _ = make_iobench(o, "ivt", repeat=1)
    hour = intervals_like(ib, 3600, os.path.join(o.work, "hour.json"))
    p = small_page(o, hour, "hour.html", "an hour of 1 s intervals: the page is %d bytes (< 2 MB)")
    for cls in ("interval-bw", "interval-iops"):
        pts = polyline_points(p.raw, cls)
        check(len(pts) == 1 and pts[0] <= 2000, "%s thinned to %s points" % (cls, pts))
    check('id="thinned"' in p.raw and "3600" in p.raw, "the page says the lines are thinned")
    # past 16384 points the line is kept in buckets: a dip and a peak planted
    # among 40,000 blocks are still drawn, where the y axis puts them
    d = json.load(open(small))
    speeds = [r["speed_bytes_per_s"] for r in d["records"] if r["kind"] == "block"]
    lo, hi = min(speeds) / 10, max(speeds) * 3
    big = bigread_like(small, 40000, os.path.join(o.work, "br40000.json"), {23457: lo, 31111: hi})
    out = os.path.join(o.work, "br40000.html")
    report(o, [big], out)
    p = parse(out)
    fig = p.raw[p.raw.index('id="fig-series"'):]
    fig = fig[:fig.index("</figure>")]
    ticks = sorted({(float(v), float(y)) for y, v in
                    re.findall(r'<line class="ytick" x1="[^"]*" y1="([^"]*)" x2="[^"]*" y2="[^"]*" '
                               r'data-value="([^"]*)"', fig)})
    check(len(ticks) >= 2, "the speed axis has ticks")
    (v0, p0), (v1, p1) = ticks[0], ticks[-1]
    value = lambda y: v0 + (y - p0) * (v1 - v0) / (p1 - p0)
    pts = re.findall(r'<polyline class="speed"[^>]* points="([^"]*)"', fig)
    check(len(pts) == 1, "one speed line")
    ys = [float(xy.split(",")[1]) for xy in pts[0].split()]
    check(len(ys) <= 2000, "%d points drawn for 40,000 blocks" % len(ys))
    drawn_lo, drawn_hi = value(max(ys)), value(min(ys))
    check(abs(drawn_lo - lo) <= 0.01 * (v1 - v0) and abs(drawn_hi - hi) <= 0.01 * (v1 - v0),
          "the planted dip %.0f and peak %.0f are drawn (%.0f, %.0f)" % (lo, hi, drawn_lo, drawn_hi))


# ---- memory ---------------------------------------------------------------------------


def peak_rss_kib(cmd):
    """Peak RSS of cmd in KiB, from GNU time (Debian time): a child forked
    from python would count python's own pages as its peak."""
    e = dict(os.environ)
    e.pop("IOBENCH_PLUGIN_PATH", None)
    p = subprocess.run(["/usr/bin/time", "-f", "peak %M"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=e, timeout=300)
    check(p.returncode == 0, "%s ran (%s)" % (" ".join(cmd[:3]), p.stderr.decode(errors="replace")[-300:]))
    m = re.findall(r"^peak (\d+)$", p.stderr.decode(), re.M)
    check(len(m) == 1, "GNU time gives the peak RSS")
    return int(m[0])


def case_memory(o):
    if o.sanitize:
        iob.skip("under ASan the quarantine keeps freed memory: the peak RSS measures the sanitizer")
    if not os.access("/usr/bin/time", os.X_OK):
        iob.skip("/usr/bin/time (Debian time, tools/deps.sh) is not installed")
    small, _ = make_bigread(o, 16)
    rss = {}
    for mib in (4, 64):
        blocks = mib * MIB // 130  # about 130 bytes a block record
        path = bigread_like(small, blocks, os.path.join(o.work, "mem%d.json" % mib))
        size = os.path.getsize(path)
        out = os.path.join(o.work, "mem%d.html" % mib)
        rss[mib] = peak_rss_kib([os.path.join(o.bin_dir, "iobench"), "report", path, "-o", out])
        print("-- %d bytes of JSON (%d blocks): peak RSS %d KiB, page %d bytes" % (size, blocks, rss[mib],
                                                                                 os.path.getsize(out)))
        os.unlink(path)
    check(rss[64] < rss[4] + 4 * 1024, "peak RSS over 64 MiB of JSON (%d KiB) within 4 MiB of that over 4 MiB "
          "(%d KiB): read as a stream" % (rss[64], rss[4]))


# ---- a real browser ---------------------------------------------------------------------


def check_not_blank(png):
    w, h, bpp, rows_ = iob.png_pixels(png)
    colours = set()
    inked = 0
    for row in rows_[::4]:
        for x in range(0, w * bpp, bpp * 4):
            px = row[x:x + 3]
            colours.add(bytes(px))
            inked += sum(px) < 600
    check(w >= 400 and h >= 400, "screenshot %dx%d" % (w, h))
    check(len(colours) > 8, "the screenshot has %d colours: not blank" % len(colours))
    check(inked > 100, "%d sampled pixels are ink" % inked)


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def console_lines(err):
    return [l for l in err.splitlines() if ":CONSOLE" in l or "Content Security Policy" in l or
            "Refused to" in l or "net::ERR" in l]


def load(o, exe, page, png):
    """Chromium headless on page: its exit code, stderr and the DOM."""
    if os.path.exists(png):
        os.unlink(png)
    prof = os.path.join(o.work, "chromium-profile")
    shutil.rmtree(prof, ignore_errors=True)
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--disable-extensions", "--disable-background-networking", "--disable-sync",
           "--user-data-dir=" + prof, "--enable-logging=stderr", "--v=0", "--window-size=1000,%d" % (2400 if o.pictures else 1300),
           "--dump-dom", "--screenshot=" + png, "file://" + os.path.abspath(page)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                       env=dict(os.environ, HOME=o.work))
    return p.returncode, p.stderr.decode(errors="replace"), p.stdout.decode("utf-8", errors="replace")


def case_browser(o):
    exe = chromium()
    if not exe:
        iob.skip("chromium is not installed (Debian package chromium; tools/deps.sh installs it)")
    # the scan finds what it looks for: a page that logs an error and
    # refers to another origin (the page's own CSP-free control)
    control = os.path.join(o.work, "control.html")
    with open(control, "w") as f:
        f.write('<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src '
                "'none'; script-src 'unsafe-inline'\"></head><body><p>x</p><img src=\"http://127.0.0.1:9/x.png\">"
                '<script>console.error("control error");</script></body></html>')
    _, err, _ = load(o, exe, control, os.path.join(o.work, "control.png"))
    check(len(console_lines(err)) >= 2, "the scan sees the control page's console error and refused request: %s" %
          console_lines(err)[:2])
    for name, inputs, phases, _ in kinds(o):
        page = os.path.join(o.work, name + ".html")
        report(o, inputs, page)
        parse(page)
        png = os.path.join(o.work, name + ".png")
        rc, err, dom = load(o, exe, page, png)
        check(rc == 0, "%s: chromium loads the page (%d)" % (name, rc))
        console = console_lines(err)
        check(not console, "%s: no console message (%s)" % (name, console[:3]))
        d = Page()
        d.feed(dom)
        check(d.scripts == 1, "%s: the DOM has one script" % name)
        check_no_urls(d.elements, dom)
        d.raw = dom
        if name == "files":
            check_meta(d, records(inputs[0], "meta"))
        else:
            check_phases(d, phases)
        check(os.path.exists(png), "%s: a screenshot" % name)
        check_not_blank(png)
        if o.pictures:
            os.makedirs(o.pictures, exist_ok=True)
            shutil.copy(png, os.path.join(o.pictures, "report-%s.png" % name))
        if name == "compare":  # the widest tables: printed (headless prints on letter)
            pdf = os.path.join(o.work, name + ".pdf")
            prof = os.path.join(o.work, "chromium-profile")
            shutil.rmtree(prof, ignore_errors=True)
            p = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + prof,
                                "--no-pdf-header-footer", "--print-to-pdf=" + pdf, "file://" + os.path.abspath(page)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                               env=dict(os.environ, HOME=o.work))
            data = open(pdf, "rb").read() if os.path.exists(pdf) else b""
            pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
            boxes = set(re.findall(rb"/MediaBox\s*\[([^\]]*)\]", data))
            check(p.returncode == 0 and data.startswith(b"%PDF") and 1 <= pages <= 20,
                  "%s: printed to PDF, %d pages" % (name, pages))
            check(boxes and all([round(float(x)) for x in b.split()][2:] in ([612, 792], [595, 842]) for b in boxes),
                  "%s: on letter or A4 paper %s" % (name, boxes))


def main():
    o = iob.arguments("--bin-dir", "--work", optional={"--pictures": None, "--sanitize": {"action": "store_true"}},
                      case=True)
    o.work = iob.case_dir(o.work, o.case)
    globals()["case_" + o.case](o)
    shutil.rmtree(o.work, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
