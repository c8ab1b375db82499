#!/usr/bin/env python3
# test-export-cli.py: `trainbench --export-chart ... -o out.png` and
# `--export-runs` work headless (no display) and reject bad arguments.
# Usage: test-export-cli.py TRAINBENCH RUN1.json RUN2.json   (TAP output)
import json
import os
import struct
import subprocess
import sys
import tempfile

exe, runs = sys.argv[1], sys.argv[2:]
checks = []


def ok(cond, what):
    checks.append((bool(cond), what))
    print(("ok" if cond else "not ok") + " %d - %s" % (len(checks), what), flush=True)


def run(*args):
    env = dict(os.environ)
    env.pop("DISPLAY", None)          # headless: must not need a display
    env.pop("WAYLAND_DISPLAY", None)
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=60)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "compare.png")
    p = run("--export-chart", "compare", "--runs", *runs, "-o", out, "--size", "900x500")
    ok(p.returncode == 0, "compare chart exits 0 (%s)" % p.stderr.strip())
    ok(os.path.exists(out) and png_size(out) == (900, 500), "compare.png is a 900x500 PNG")

    out = os.path.join(tmp, "compare-os.svg")
    p = run("--export-chart", "compare", "--group-by", "os", "--runs", *runs, "-o", out)
    ok(p.returncode == 0 and open(out).read().find("<svg") >= 0, "grouped by OS as SVG")

    for kind in ("accuracy", "loss", "epoch-time"):
        out = os.path.join(tmp, kind + ".png")
        p = run("--export-chart", kind, "--runs", runs[0], "-o", out)
        ok(p.returncode == 0 and png_size(out) == (1200, 700), "%s chart at the default size" % kind)

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

print("1..%d" % len(checks))
sys.exit(0 if all(c for c, _ in checks) else 1)
