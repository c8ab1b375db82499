#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-export-cli.py: `trainbench --export-chart ... -o out.png` and
# `--export-runs` work headless (no display) and reject bad arguments; files
# from other people (nested 100,000 levels, FIFOs, /dev/zero, too large,
# hostile CSV text, values no tick can tell apart) neither crash, hang nor
# exhaust it; --scale puts a bar 26 times shorter than another on a log axis;
# run from the build tree, it finds the translations built there; every
# kind of file it writes follows the CLI's rules for --out: a FIFO that
# nothing reads is refused at once, one that a reader reads is written
# through, a link's target is replaced and the link kept.
# Usage: test-export-cli.py TRAINBENCH RUN1.json RUN2.json   (TAP output)
import csv
import io
import json
import os
import select
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

try:
    import resource
except ImportError:          # not on Windows
    resource = None

exe, runs = sys.argv[1], sys.argv[2:]
checks = []


def ok(cond, what):
    checks.append((bool(cond), what))
    print(("ok" if cond else "not ok") + " %d - %s" % (len(checks), what), flush=True)


def limits():
    # what a broken export could eat: 2 GiB of memory, 100 MB of output
    if resource is not None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        resource.setrlimit(resource.RLIMIT_FSIZE, (100 << 20, 100 << 20))


def run(*args, timeout=60, language=None):
    env = dict(os.environ)
    if language is not None:
        env["LANGUAGE"] = language
    env.pop("DISPLAY", None)          # headless: must not need a display
    env.pop("WAYLAND_DISPLAY", None)
    try:
        return subprocess.run([exe, *args], capture_output=True, text=True, errors="replace",
                              env=env, timeout=timeout, preexec_fn=limits if resource else None)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess([exe, *args], -999, "", "timed out after %d s" % timeout)


def with_field(path, old, new):
    text = open(path).read()
    assert old in text, old
    return text.replace(old, new, 1)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def png_pixels(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB(A) PNG as cairo writes them."""
    data = open(path, "rb").read()
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
            channels = 4 if color == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        prev = line
    return width, height, rows


def tallest_run(rows, color):
    """The most pixels of `color` (within 40 per channel) in one column."""
    best = 0
    for x in range(len(rows[0])):
        n = sum(1 for row in rows if all(abs(row[x][i] - color[i]) <= 40 for i in range(3)))
        best = max(best, n)
    return best


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "compare.png")
    p = run("--export-chart", "compare", "--runs", *runs, "-o", out, "--size", "900x500")
    ok(p.returncode == 0, "compare chart exits 0 (%s)" % p.stderr.strip())
    ok(os.path.exists(out) and png_size(out) == (900, 500), "compare.png is a 900x500 PNG")

    out = os.path.join(tmp, "compare-os.svg")
    p = run("--export-chart", "compare", "--group-by", "os", "--runs", *runs, "-o", out)
    ok(p.returncode == 0 and open(out).read().find("<svg") >= 0, "grouped by OS as SVG")

    # the GPU bar (the second colour, orange) 26 times shorter than the CPU's:
    # a sliver on a linear axis, a bar on a log one, which auto picks
    heights = {}
    for scale in ("linear", "log", "auto"):
        out = os.path.join(tmp, "compare-%s.png" % scale)
        p = run("--export-chart", "compare", "--scale", scale, "--runs", *runs, "-o", out, "--size", "600x400")
        ok(p.returncode == 0 and png_size(out) == (600, 400), "compare chart on a %s scale (%s)" % (scale, p.stderr.strip()))
        # under the title and legend (whose swatch is of that colour too)
        heights[scale] = tallest_run(png_pixels(out)[2][60:], (0xe6, 0x61, 0x00)) if p.returncode == 0 else 0
    print("# GPU bar heights: %s" % heights)
    ok(heights["linear"] < 12, "linear: the GPU bar is a sliver (%d px)" % heights["linear"])
    ok(heights["log"] > 60, "log: the GPU bar is a bar (%d px)" % heights["log"])
    ok(heights["auto"] == heights["log"], "auto picks log for bars 26 times apart")
    p = run("--export-chart", "compare", "--scale", "cubic", "--runs", *runs, "-o", os.path.join(tmp, "x.png"))
    ok(p.returncode == 2 and not os.path.exists(os.path.join(tmp, "x.png")), "an unknown scale is a usage error")

    for kind in ("accuracy", "loss", "epoch-time"):
        out = os.path.join(tmp, kind + ".png")
        p = run("--export-chart", kind, "--runs", runs[0], "-o", out)
        ok(p.returncode == 0 and png_size(out) == (1200, 700), "%s chart at the default size" % kind)

    # where a step's time went: a stacked bar of the file with a breakdown
    # (blue matrix products, orange loops), a row that says so for the other
    with_bd = os.path.join(tmp, "with-breakdown.json")
    doc = json.loads(open(runs[0]).read())
    doc["breakdown"] = {"steps": 10, "step_seconds": 0.01,
                        "parts": [{"key": "gemm", "seconds": 0.006}, {"key": "loops", "seconds": 0.003},
                                  {"key": "join_wait", "seconds": 0.0005}, {"key": "host", "seconds": 0.0005}],
                        "copy_bytes": 0, "evaluation_seconds": 1.0}
    open(with_bd, "w").write(json.dumps(doc))
    out = os.path.join(tmp, "breakdown.png")
    p = run("--export-chart", "breakdown", "--runs", with_bd, runs[1], "-o", out, "--size", "800x400")
    ok(p.returncode == 0 and png_size(out) == (800, 400), "breakdown chart exits 0 (%s)" % p.stderr.strip())
    if p.returncode == 0:
        rows = png_pixels(out)[2][60:]
        blue = max(sum(1 for px in row if all(abs(px[i] - c) <= 30 for i, c in enumerate((0x35, 0x84, 0xe4))))
                   for row in rows)
        orange = max(sum(1 for px in row if all(abs(px[i] - c) <= 30 for i, c in enumerate((0xe6, 0x61, 0x00))))
                     for row in rows)
        print("# widest blue %d px, orange %d px" % (blue, orange))
        ok(blue > 1.5 * orange > 60, "the bar's matrix products are twice its loops, side by side")

    out = os.path.join(tmp, "runs.csv")
    p = run("--export-runs", out, "--runs", *runs)
    lines = open(out).read().splitlines() if p.returncode == 0 else []
    ok(len(lines) == 1 + len(runs) and lines[0].startswith("run_id,"), "runs to CSV, one line per run")

    out = os.path.join(tmp, "runs.json")
    p = run("--export-runs", out, "--runs", *runs)
    ok(p.returncode == 0 and len(json.load(open(out))) == len(runs), "runs to JSON, one entry per run")

    bad = os.path.join(tmp, "bad.json")
    open(bad, "w").write("{ nope")
    p = run("--export-chart", "compare", "--runs", bad, "-o", os.path.join(tmp, "x.png"))
    ok(p.returncode == 1 and "bad.json" in p.stderr, "a malformed result is named, exit 1")
    p = run("--export-chart", "pie", "--runs", *runs, "-o", os.path.join(tmp, "x.png"))
    ok(p.returncode == 2, "an unknown chart kind is a usage error")
    p = run("--export-chart", "compare", "--runs", *runs)
    ok(p.returncode == 2, "a missing -o is a usage error")
    p = run("--export-chart", "compare", "--runs", *runs, "-o", os.path.join(tmp, "x.png"), "--size", "5x5")
    ok(p.returncode == 1 and not os.path.exists(os.path.join(tmp, "x.png")), "a too small size is refused")

    # ---- hostile result files ----
    deep = os.path.join(tmp, "deep.json")
    open(deep, "w").write("[" * 100000)
    p = run("--export-runs", os.path.join(tmp, "d.csv"), "--runs", deep, timeout=30)
    ok(p.returncode == 1 and "deep.json" in p.stderr and "nested" in p.stderr,
       "a file nested 100,000 levels is refused by name, no crash (%d %s)" % (p.returncode, p.stderr.strip()[:200]))

    folder = os.path.join(tmp, "runs")
    os.mkdir(folder)
    for r in runs:
        open(os.path.join(folder, os.path.basename(r)), "w").write(open(r).read())
    open(os.path.join(folder, "deep.json"), "w").write("[" * 100000)
    if hasattr(os, "mkfifo"):
        os.mkfifo(os.path.join(folder, "fifo.json"))
        os.symlink("/dev/zero", os.path.join(folder, "zero.json"))
    out = os.path.join(tmp, "folder.png")
    p = run("--export-chart", "compare", "--runs", folder, "-o", out, timeout=30)
    ok(p.returncode == 0 and png_size(out) == (1200, 700) and "deep.json" in p.stderr,
       "a folder with bad files exports the good ones and names the bad (%d %s)" % (p.returncode, p.stderr.strip()[:300]))
    if hasattr(os, "mkfifo"):
        ok("fifo.json" in p.stderr and "zero.json" in p.stderr, "the FIFO and /dev/zero are skipped, not read")
        p = run("--export-runs", os.path.join(tmp, "z.csv"), "--runs", os.path.join(folder, "zero.json"), timeout=30)
        ok(p.returncode == 1 and "not a regular file" in p.stderr,
           "/dev/zero named on the command line is refused at once (%d %s)" % (p.returncode, p.stderr.strip()[:200]))
        p = run("--export-runs", os.path.join(tmp, "f.csv"), "--runs", os.path.join(folder, "fifo.json"), timeout=30)
        ok(p.returncode == 1 and "not a regular file" in p.stderr,
           "a FIFO named on the command line is refused at once (%d %s)" % (p.returncode, p.stderr.strip()[:200]))

    big = os.path.join(tmp, "big.json")
    with open(big, "w") as f:
        f.write(with_field(runs[0], '"schema": 1,', '"schema": 1, "pad": "%s",' % ("A" * (40 << 20))))
    p = run("--export-runs", os.path.join(tmp, "big.csv"), "--runs", big, timeout=60)
    ok(p.returncode == 1 and "big.json" in p.stderr and "MiB" in p.stderr,
       "a 40 MB result file is refused with its size (%d %s)" % (p.returncode, p.stderr.strip()[:200]))

    # CSV: text from a file adds no rows or columns and starts no formula
    hostile = os.path.join(tmp, "hostile.json")
    text = open(runs[0]).read()
    data = json.loads(text)
    data["status"] = 'completed\n=1+1,"x"\r\n'
    data["device"]["kind"] = 'cpu,evil\n'
    data["dataset"]["name"] = "=HYPERLINK(\"http://x\")"
    data["hyper"]["optimizer"] = "@SUM(A1)"
    data["system"]["cpu"]["model"] = "+1"
    open(hostile, "w").write(json.dumps(data))
    out = os.path.join(tmp, "hostile.csv")
    p = run("--export-runs", out, "--runs", hostile, *runs)
    rows = list(csv.reader(io.StringIO(open(out, newline="").read()))) if p.returncode == 0 else []
    ok(len(rows) == 1 + 1 + len(runs) and all(len(r) == len(rows[0]) for r in rows),
       "a hostile run is one CSV row of the header's columns (%d rows)" % len(rows))
    ok(rows and rows[1][2] == data["status"] and rows[1][5] == data["device"]["kind"],
       "status and device kind come back whole")
    ok(rows and not any(c[:1] in ("=", "+", "-", "@", "\t", "\r") for r in rows[1:] for c in r[:10] + r[17:]),
       "no text cell starts a spreadsheet formula")

    # values no tick step can tell apart: the export ends, the SVG is small
    flat = os.path.join(tmp, "flat.json")
    data = json.loads(text)
    for i, e in enumerate(data["epochs"]):
        e["test_accuracy"] = 100000 + 2e-11 * (i % 2)
        e["seconds"] = 1e17 + (32 if i % 2 else -32)
    data["steps"]["loss_curve"] = [1e17 + (32 if i % 2 else -32) for i in range(10)]
    open(flat, "w").write(json.dumps(data))
    for kind in ("accuracy", "loss", "epoch-time"):
        out = os.path.join(tmp, "flat-" + kind + ".svg")
        p = run("--export-chart", kind, "--runs", flat, "-o", out, timeout=30)
        size = os.path.getsize(out) if os.path.exists(out) else -1
        ok(p.returncode == 0 and 0 < size < 1000000,
           "%s chart of values closer than a tick ends (%d, %d bytes)" % (kind, p.returncode, size))
    out = os.path.join(tmp, "flat-log.svg")
    p = run("--export-chart", "loss", "--scale", "log", "--runs", flat, "-o", out, timeout=30)
    size = os.path.getsize(out) if os.path.exists(out) else -1
    ok(p.returncode == 0 and 0 < size < 1000000, "... and on a log scale (%d, %d bytes)" % (p.returncode, size))

    # the program run from the build tree (as tools/run starts it) speaks
    # the language asked for, from the catalogs built in BUILD/po
    missing = os.path.join(tmp, "missing.json")
    p = run("--export-chart", "loss", "--runs", missing, "-o", os.path.join(tmp, "zh.png"),
            language="zh_CN")
    ok(p.returncode != 0 and "不是可读取的结果文件" in p.stderr,
       "run from the build tree, its messages are translated (zh_CN): %s" % p.stderr.strip())

    # a sweep's charts and tables (the Explore page's), headless
    sweep = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sweep-mlp.json")
    for kind in ("sweep", "crossover", "sweep-breakdown"):
        out = os.path.join(tmp, kind + ".png")
        p = run("--export-chart", kind, "--sweep", sweep, "-o", out, "--size", "800x500")
        ok(p.returncode == 0 and png_size(out) == (800, 500),
           "%s chart of a sweep: an 800x500 PNG (%s)" % (kind, p.stderr.strip()))
        out = os.path.join(tmp, kind + ".svg")
        p = run("--export-chart", kind, "--sweep", sweep, "-o", out)
        ok(p.returncode == 0 and os.path.exists(out) and b"<svg" in open(out, "rb").read(400),
           "%s chart of a sweep as SVG" % kind)
        out = os.path.join(tmp, kind + ".csv")
        p = run("--export-chart", kind, "--sweep", sweep, "-o", out)
        table = list(csv.reader(open(out))) if os.path.exists(out) else []
        ok(p.returncode == 0 and len(table) == (17 if kind == "crossover" else 33),
           "%s of a sweep as CSV: %d lines" % (kind, len(table)))
    # the crossover map's cells in their colours: blue (GPU faster) at the
    # top right, orange (CPU faster) at the bottom left
    w, h, rows = png_pixels(os.path.join(tmp, "crossover.png"))
    top_right, bottom_left = rows[h // 2 - 60][w - 30], rows[h - 60][80]
    ok(top_right[2] > top_right[0] and bottom_left[0] > bottom_left[2],
       "crossover: GPU-faster cells blue %s, CPU-faster cells orange %s" % (top_right, bottom_left))
    p = run("--export-chart", "crossover", "--sweep", sweep, "--x", "batch", "--y", "W",
            "-o", os.path.join(tmp, "swapped.csv"))
    ok(p.returncode == 0 and open(os.path.join(tmp, "swapped.csv")).readline().startswith("batch,W,"),
       "--x and --y pick the crossover's axes")
    p = run("--export-chart", "crossover", "--sweep", sweep, "--x", "Q", "-o", os.path.join(tmp, "q.png"))
    ok(p.returncode == 2 and "Q" in p.stderr, "an axis the sweep lacks is a usage error naming it")
    p = run("--export-chart", "sweep", "-o", os.path.join(tmp, "none.png"))
    ok(p.returncode == 2, "a sweep chart without --sweep is a usage error")
    bad = os.path.join(tmp, "sweep.json")
    open(bad, "w").write(open(sweep).read()[:5000])
    p = run("--export-chart", "sweep", "--sweep", bad, "-o", os.path.join(tmp, "bad.png"))
    ok(p.returncode == 1 and "sweep.json" in p.stderr and "Traceback" not in p.stderr,
       "a truncated sweep file is an error naming it: %s" % p.stderr.strip()[:200])
    p = run("--export-chart", "crossover", "--sweep", "/dev/zero", "-o", os.path.join(tmp, "z.png"), timeout=20)
    ok(p.returncode == 1, "/dev/zero as a sweep file is refused at once")

    # --machine given twice, as the CLI's report takes it: a machine that
    # boots Linux and Windows is one, and its Windows run measures claim 4
    foreign = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "report",
                           "foreign-windows")
    linux = os.path.join(foreign, "here-cnn-cpu-linux.json")
    windows = os.path.join(foreign, "foreign-same-model-windows-cnn-cpu.json")
    one = os.path.join(tmp, "one-machine.html")
    p = run("--export-report", one, "--runs", foreign, "--machine", linux)
    p2 = run("--export-report", os.path.join(tmp, "two-ids.html"), "--runs", foreign,
             "--machine", linux, "--machine", windows)
    text = open(os.path.join(tmp, "two-ids.html"), encoding="utf-8").read() \
        if p2.returncode == 0 else ""
    ok(p.returncode == 0 and p2.returncode == 0 and "machines 5e1f0c2a, f0e1d2c3" in text
       and text.count("holds here") > open(one, encoding="utf-8").read().count("holds here"),
       "--export-report --machine given twice judges both files' machines as one: %s"
       % (p.stderr + p2.stderr).strip()[:200])
    p = run("--export-report", os.path.join(tmp, "x.html"), "--machine", "--runs", foreign)
    ok(p.returncode == 2 and "--machine" in p.stderr,
       "--export-report --machine without a file is a usage error")

    # text a terminal acts on (a screen clear, a window title, OSC 52's
    # clipboard write, a line overwritten with \r, a right-to-left override)
    # in a file's name, a file's text or an argument reaches stderr escaped,
    # never as a raw control byte
    hostile = "\x1b[2J\x1b]0;title\x07\x1b]52;c;ZWNobyBldmls\x07\rX\u202e"

    def raw_controls(text):
        return sorted({"U+%04X" % ord(c) for c in text
                       if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
                       or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069})

    def run_raw(*args):
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        p = subprocess.run([exe, *args], capture_output=True, env=env, timeout=60)
        return p.returncode, p.stderr.decode("utf-8", "replace")

    evil = os.path.join(tmp, "evil" + hostile)
    os.mkdir(evil)
    for r in runs:
        open(os.path.join(evil, os.path.basename(r)), "w").write(open(r).read())
    open(os.path.join(evil, "bad" + hostile + ".json"), "w").write("{ nope")
    cases = [
        ("--export-chart: a bad file in a folder", 0,
         ["--export-chart", "compare", "--runs", evil, "-o", os.path.join(tmp, "evil.png")]),
        ("--export-chart: a file that is not there", 1,
         ["--export-chart", "compare", "--runs", os.path.join(tmp, "gone" + hostile + ".json"),
          "-o", os.path.join(tmp, "gone.png")]),
        ("--export-chart: an axis the sweep lacks", 2,
         ["--export-chart", "crossover", "--sweep", sweep, "--x", "Q" + hostile,
          "-o", os.path.join(tmp, "q.png")]),
        ("--export-chart: an unknown argument", 2, ["--export-chart", "loss", "--" + hostile]),
        ("--export-report: a bad file in the runs folder", 0,
         ["--export-report", os.path.join(tmp, "evil.html"), "--runs", evil]),
    ]
    for what, status, args in cases:
        rc, err = run_raw(*args)
        ok(rc == status and not raw_controls(err) and "\\x1b]52;c;ZWNobyBldmls\\x07\\rX\\u202e" in err,
           "%s: its message escapes what a terminal acts on %s" % (what, raw_controls(err)))


def drain(fd, chunks):
    """Read a FIFO's read end (opened without waiting) until its writer closes."""
    heard = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not select.select([fd], [], [], 0.1)[0]:
            continue
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            continue
        if chunk:
            chunks.append(chunk)
            heard = True
        elif heard:
            break           # the writer closed
        else:
            time.sleep(0.05)  # no writer yet


# ---- outputs that are no regular file: the CLI's rules for --out ----
if hasattr(os, "mkfifo"):
    sweep = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sweep-mlp.json")
    outputs = [
        ("a chart as PNG", ".png", lambda o: ["--export-chart", "compare", "--runs", *runs, "-o", o,
                                              "--size", "300x200"], b"\x89PNG"),
        ("a chart as SVG", ".svg", lambda o: ["--export-chart", "loss", "--runs", *runs, "-o", o], b"<svg"),
        ("the runs as CSV", ".csv", lambda o: ["--export-runs", o, "--runs", *runs], b"run_id,"),
        ("the runs as JSON", ".json", lambda o: ["--export-runs", o, "--runs", *runs], b"[\n{"),
        ("a sweep's table", ".csv", lambda o: ["--export-chart", "crossover", "--sweep", sweep, "-o", o],
         b"W,batch,"),
        ("a sweep's chart as PNG", ".png", lambda o: ["--export-chart", "sweep", "--sweep", sweep, "-o", o,
                                                      "--size", "300x200"], b"\x89PNG"),
        ("a sweep's chart as SVG", ".svg", lambda o: ["--export-chart", "crossover", "--sweep", sweep,
                                                      "-o", o], b"<svg"),
        ("the report as PNG", ".png", lambda o: ["--export-report", o, "--runs", *runs], b"\x89PNG"),
        ("the report as HTML", ".html", lambda o: ["--export-report", o, "--runs", *runs], b"<html"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (what, ext, args, mark) in enumerate(outputs):
            fifo = os.path.join(tmp, "fifo-%d%s" % (i, ext))
            os.mkfifo(fifo)
            t0 = time.monotonic()
            p = run(*args(fifo), timeout=30)
            took = time.monotonic() - t0
            ok(p.returncode == 1 and "nothing reads" in p.stderr and fifo in p.stderr
               and stat.S_ISFIFO(os.lstat(fifo).st_mode) and took < 20,
               "%s to a FIFO that nothing reads: refused at once, still a FIFO (%d in %.1f s: %s)"
               % (what, p.returncode, took, p.stderr.strip()[:200]))

            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            chunks = []
            reader = threading.Thread(target=drain, args=(fd, chunks))
            reader.start()
            p = run(*args(fifo), timeout=60)
            reader.join()
            os.close(fd)
            data = b"".join(chunks)
            ok(p.returncode == 0 and mark in data[:400] and stat.S_ISFIFO(os.lstat(fifo).st_mode),
               "%s to a FIFO that a program reads: written through, still a FIFO (%d, %d bytes read: %s)"
               % (what, p.returncode, len(data), p.stderr.strip()[:200]))

            real = os.path.join(tmp, "real-%d" % i)
            os.mkdir(real)
            target = os.path.join(real, "target" + ext)
            open(target, "w").write("old")
            link = os.path.join(tmp, "link-%d%s" % (i, ext))
            os.symlink(os.path.join("real-%d" % i, "target" + ext), link)
            p = run(*args(link))
            ok(p.returncode == 0 and os.path.islink(link) and mark in open(target, "rb").read(400)
               and sorted(os.listdir(real)) == ["target" + ext],
               "%s to a link: the file it names is replaced, the link stays (%d %s)"
               % (what, p.returncode, p.stderr.strip()[:200]))

        # a reader that goes away after a few bytes: the export fails with
        # its message, not killed by SIGPIPE
        fifo = os.path.join(tmp, "short-reader.png")
        os.mkfifo(fifo)
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)

        def read_a_little():
            for _ in range(600):
                if select.select([fd], [], [], 0.1)[0]:
                    try:
                        if os.read(fd, 16):
                            break
                    except BlockingIOError:
                        pass
            os.close(fd)

        reader = threading.Thread(target=read_a_little)
        reader.start()
        p = run("--export-report", fifo, "--runs", *runs, timeout=60)
        reader.join()
        ok(p.returncode == 1 and fifo in p.stderr and "Broken pipe" in p.stderr,
           "a reader that goes away mid-export: a message, not death by SIGPIPE (%d %s)"
           % (p.returncode, p.stderr.strip()[:200]))

print("1..%d" % len(checks))
sys.exit(0 if all(c for c, _ in checks) else 1)
