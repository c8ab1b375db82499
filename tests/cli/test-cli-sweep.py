#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-cli-sweep.py: `trainbench-cli sweep` end to end, TAP. Python 3 stdlib
# only. Usage: test-cli-sweep.py PATH-TO-trainbench-cli FIXTURES-DIR. A CPU
# sweep on the tiny .npz of tests/data (2 training images of 3x4), its
# sweep file and point files, usage errors that name the option (the field
# of the request the engine says is at fault), the families' default grids,
# --dataset and its other name --data, a device that cannot run, and
# Ctrl-C / SIGTERM keeping the points done.

import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

results = []


def ok(cond, name, diag=None):
    results.append(bool(cond))
    print(("ok %d - %s" if cond else "not ok %d - %s") % (len(results), name), flush=True)
    if not cond and diag:
        for line in str(diag).splitlines()[-40:]:
            print("#   " + line, flush=True)
    return bool(cond)


CLI = os.path.abspath(sys.argv[1])
FIXTURES = os.path.abspath(sys.argv[2])
WRAPPER = os.environ.get("TRAINBENCH_CLI_WRAPPER", "").split()
WINDOWS = CLI.lower().endswith(".exe")
UNDER_WINE = WINDOWS and any(os.path.basename(w).startswith("wine") for w in WRAPPER)
COMMAND = WRAPPER + [CLI]
TMP = tempfile.mkdtemp(prefix="tb-cli-sweep-")
ENV = dict(os.environ, LC_ALL="C.UTF-8")
ENV.setdefault("WINEDEBUG", "-all")


def win(path):
    if UNDER_WINE:
        return "Z:" + os.path.abspath(path).replace("/", "\\")
    return path


def unwin(path):
    if UNDER_WINE and re.match(r"^[Zz]:\\", path):
        return path[2:].replace("\\", "/")
    return path


ENV["XDG_DATA_HOME"] = win(os.path.join(TMP, "xdg"))


def cli(*args, timeout=300):
    p = subprocess.run(COMMAND + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=ENV, cwd=TMP, timeout=timeout, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def both(out, err):
    return "stdout:\n" + out + "\nstderr:\n" + err


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return e


def sweep_file_from(out):
    m = re.findall(r"^sweep file: (.+)$", out, re.M)
    return unwin(m[-1].strip()) if m else None


TINY = win(os.path.join(FIXTURES, "numpy-savez-compressed.npz"))
OUT = os.path.join(TMP, "runs")

# ------------------------------------------------------------------ a CPU sweep

rc, out, err = cli("sweep", "--dataset", TINY, "--axis", "W=4,8", "--axis", "batch=1,2",
                   "--devices", "cpu", "--steps", "5", "--warmup", "2", "--threads", "1",
                   "--out-dir", win(OUT))
ok(rc == 0, "a CPU sweep on the tiny data set completes", both(out, err))
ok(re.search(r"^point 4/4  W=8 batch=2  cpu  .* samples/s", out, re.M),
   "a line per point with its samples per second", out)
ok(re.search(r"^W +cpu +cpu$", out, re.M) and re.search(r"^8 +\S+ +\S+$", out, re.M),
   "a table: the first axis as rows, the second's columns per device", out)
path = sweep_file_from(out)
doc = load_json(path) if path else None
ok(isinstance(doc, dict) and path.startswith(os.path.join(OUT, "sweeps")),
   "the sweep file's path is printed, in OUT/sweeps/SWEEP_ID", both(out, err))
if not isinstance(doc, dict):
    doc = {}
fields = ["kind", "schema", "app_version", "sweep_id", "started_at", "status", "system",
          "dataset", "model", "axes", "devices", "threads", "steps", "warmup_steps",
          "optimizer", "conditions", "points"]
ok(all(k in doc for k in fields) and doc.get("kind") == "trainbench-sweep"
   and doc.get("status") == "completed" and doc.get("steps") == 5
   and doc.get("warmup_steps") == 2 and doc.get("devices") == ["cpu"],
   "sweep.json has the format's fields and says completed", str(doc)[:2000])
points = doc.get("points", [])
point_fields = ["values", "device", "device_kind", "device_name", "spec", "status",
                "step_seconds_median", "step_seconds_p10", "step_seconds_p90",
                "samples_per_second", "result"]
ok(len(points) == 4 and all(all(k in p for k in point_fields) for p in points)
   and [p["values"] for p in points] == [{"W": 4, "batch": 1}, {"W": 4, "batch": 2},
                                         {"W": 8, "batch": 1}, {"W": 8, "batch": 2}]
   and all(p["status"] == "completed" and p["samples_per_second"] > 0 for p in points),
   "four points in grid order, each completed with its figures", str(points)[:2000])
files_ok = True
for p in points:
    r = load_json(os.path.join(os.path.dirname(path), p.get("result") or "none"))
    files_ok = files_ok and isinstance(r, dict) and r.get("sweep") == doc.get("sweep_id") \
        and r.get("status") == "completed" and r["hyper"]["batch_size"] == p["values"]["batch"] \
        and r["model"]["spec"] == p["spec"] and r["steps"]["count"] == 7
ok(files_ok and sorted(os.listdir(os.path.dirname(path))) ==
   ["point-0001.json", "point-0002.json", "point-0003.json", "point-0004.json", "sweep.json"],
   "a result file per point, naming the sweep, with its warm-up and steps",
   os.listdir(os.path.dirname(path)) if path else "")

bd_ok = all(isinstance(p.get("breakdown"), dict)
            and p["breakdown"].get("steps") == 5
            and [q.get("key") for q in p["breakdown"].get("parts", [])]
            == ["gemm", "loops", "join_wait", "host"]
            and abs(sum(q["seconds"] for q in p["breakdown"]["parts"])
                    - p["breakdown"]["step_seconds"]) <= 0.05 * p["breakdown"]["step_seconds"]
            for p in points)
ok(bd_ok and doc.get("conditions", {}).get("name") == "default",
   "each point has the breakdown of its 5 timed steps (the warm-up's left out), "
   "its parts adding up to the step; the default conditions", str(points)[:2000])

# ------------------------------------------------------------------ conditions and breakdown

rc, out, err = cli("sweep", "--data", TINY, "--axis", "W=4", "--axis", "batch=2",
                   "--devices", "cpu", "--steps", "3", "--warmup", "1", "--threads", "1",
                   "--conditions", "article", "--breakdown", "off", "--out-dir", win(OUT))
doc = load_json(sweep_file_from(out) or "none")
doc = doc if isinstance(doc, dict) else {}
pts = doc.get("points", [])
point = load_json(os.path.join(os.path.dirname(sweep_file_from(out) or "."),
                               (pts[0].get("result") if pts else None) or "none"))
ok(rc == 0 and re.search(r"^every point under article conditions \(data pageable", out, re.M)
   and doc.get("conditions", {}).get("name") == "article"
   and doc["conditions"].get("data") == "pageable"
   and isinstance(point, dict) and point.get("conditions", {}).get("name") == "article"
   and len(pts) == 1 and "breakdown" not in pts[0] and "breakdown" not in point,
   "sweep --conditions article --breakdown off: said, recorded in the sweep and its points, "
   "no breakdown", both(out, err) + str(doc)[:1500])

# ------------------------------------------------------------------ a device that cannot run

rc, out, err = cli("sweep", "--data", TINY, "--axis", "W=4", "--axis", "batch=2",
                   "--devices", "cpu,cuda:7", "--steps", "3", "--warmup", "1",
                   "--out-dir", win(OUT))
doc = load_json(sweep_file_from(out) or "none")
pts = doc.get("points", []) if isinstance(doc, dict) else []
ok(rc == 1 and len(pts) == 2 and pts[0]["status"] == "completed"
   and pts[1]["status"] == "failed" and "cuda:7" in pts[1].get("error", "")
   and pts[1]["result"] is None,
   "a GPU that cannot run fails its points with the reason, the CPU's run; exit 1",
   both(out, err) + str(pts)[:1000])

# ------------------------------------------------------------------ the default devices

# The fake CUDA module (tests/engine) lists GPUs but starts no context: the
# default devices take cuda:0 when the list finds it usable, a GPU point
# that fails says why and the sweep goes on; a CPU sweep never loads the
# module (FAKE_CUDA_ABORT ends the process the moment it is asked).
fake = os.environ.get("TRAINBENCH_FAKE_CUDA_MODULE", "")
if fake:
    base = ["sweep", "--data", TINY, "--axis", "W=4", "--axis", "batch=1", "--steps", "2",
            "--warmup", "1", "--out-dir", win(OUT)]
    saved = dict(ENV)
    ENV.update({"TRAINBENCH_CUDA_MODULE": win(fake), "FAKE_CUDA_DEVICES": "1"})
    rc, out, err = cli(*base)
    doc = load_json(sweep_file_from(out) or "none")
    pts = doc.get("points", []) if isinstance(doc, dict) else []
    ok(rc == 1 and doc.get("devices") == ["cpu", "cuda:0"] and len(pts) == 2
       and pts[0]["status"] == "completed" and pts[1]["status"] == "failed" and pts[1]["error"],
       "the default devices are cpu and cuda:0 when it is usable; a GPU point that fails says why",
       both(out, err) + str(doc)[:1500])
    ok(re.search(r"^cuda:0 over cpu \(samples per second\):\n  no pair of points to compare at "
                 r"batch 1: W=4 -$", out, re.M),
       "the crossover's line says there is nothing to compare", out)
    ENV.clear()
    ENV.update(saved)
    ENV.update({"TRAINBENCH_CUDA_MODULE": win(fake), "FAKE_CUDA_REASON": "no NVIDIA driver"})
    rc, out, err = cli(*base)
    doc = load_json(sweep_file_from(out) or "none")
    ok(rc == 0 and isinstance(doc, dict) and doc.get("devices") == ["cpu"],
       "without a usable GPU the default devices are the CPU alone", both(out, err))
    ENV.clear()
    ENV.update(saved)
    ENV.update({"TRAINBENCH_CUDA_MODULE": win(fake), "FAKE_CUDA_ABORT": "1"})
    rc, out, err = cli(*(base + ["--devices", "cpu"]))
    ok(rc == 0 and sweep_file_from(out), "a CPU sweep never loads the CUDA module", both(out, err))
    ENV.clear()
    ENV.update(saved)

# ------------------------------------------------------------------ a reader that stops reading

# `sweep ... | head -1`: the reader closes the pipe after the first line
# (the CLI is paused while it does, so the points' lines come after). The
# sweep goes on, every point runs, sweep.json says completed, and the exit
# status is the sweep's, 0; SIGPIPE once ended it there with 141, leaving
# sweep.json "running".
PIPED = os.path.join(TMP, "piped")
proc = subprocess.Popen(COMMAND + ["sweep", "--data", TINY, "--axis", "W=4,8,16",
                                   "--axis", "batch=1,2", "--devices", "cpu", "--steps", "5",
                                   "--warmup", "2", "--threads", "1", "--out-dir", win(PIPED)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, cwd=TMP)
first = proc.stdout.readline()
paused = proc.poll() is None and os.name != "nt"
if paused:
    os.kill(proc.pid, signal.SIGSTOP)
proc.stdout.close()
if paused:
    os.kill(proc.pid, signal.SIGCONT)
err = proc.stderr.read().decode("utf-8", "replace")
try:
    rc = proc.wait(timeout=300)
except subprocess.TimeoutExpired:
    proc.kill()
    rc = proc.wait()
folder = os.path.join(PIPED, "sweeps")
found = [os.path.join(folder, d, "sweep.json") for d in os.listdir(folder)] \
    if os.path.isdir(folder) else []
doc = load_json(found[0]) if len(found) == 1 else None
pts = doc.get("points", []) if isinstance(doc, dict) else []
ok(rc == 0 and first.startswith(b"sweep ") and isinstance(doc, dict)
   and doc.get("status") == "completed" and len(pts) == 6
   and all(p["status"] == "completed" for p in pts),
   "a sweep whose reader closes the pipe after its first line runs every point, says "
   "completed and exits 0", "rc=%s\nfirst: %r\nstderr:\n%s\n%s" % (rc, first, err, str(doc)[:1500]))

# ------------------------------------------------------------------ usage errors

usage_cases = [
    (["--axis", "W=4,x"], r"--axis: .*'x' is not a whole number", "a value that is not a number"),
    (["--axis", "W"], r"--axis: .*NAME=VALUES", "an axis without values"),
    (["--axis", "Q=1"], r"--axis: axis Q is not a parameter of the mlp family",
     "an axis the family does not take"),
    (["--axis", "W=1", "--axis", "D=1", "--axis", "batch=1", "--axis", "W=2"],
     r"--axis: at most 3 axes", "more than 3 axes"),
    (["--spec", "flatten; dense {W} relu; dense {H} relu; dense 2 softmax", "--axis", "W=4"],
     r"--spec: .*placeholder \{H\} has no axis", "a placeholder without an axis"),
    (["--spec", "flatten; dense 4 relu; dense 2 softmax", "--axis", "W=4"],
     r"--(spec|axis): axis W is not a placeholder", "an axis the template lacks"),
    (["--family", "cnn", "--spec", "flatten"], r"--spec: give --family or --spec, not both",
     "--family and --spec together"),
    (["--family", "rnn"], r"--family: unknown model family 'rnn'", "an unknown family"),
    (["--devices", "cpu,tpu"], r"--devices: unknown device 'tpu'", "an unknown device"),
    (["--steps", "0"], r"--steps", "no steps"),
    (["--axis", "batch=4"], r"--axis: .*batch 4 is larger than|--axis: .*batch",
     "a batch larger than the data set"),
    # the words of a message no longer choose the option: "device" here
    # once sent it to --devices
    (["--axis", "device=1"], r"--axis: axis device is not a parameter of the mlp family",
     "an axis named device is --axis's"),
    (["--axis", "W=4", "--batch-size", "4"], r"--batch-size: .*batch 4 is larger than",
     "a batch size larger than the data set, without a batch axis"),
    # a template without --axis sweeps the family's default grid: each
    # placeholder and batch over 32,128,512,2048
    (["--spec", "flatten; dense {U} relu; dense 2 softmax"],
     r"--axis: at U=32, batch=32: batch 32 is larger than the data set's 2",
     "a template's default grid, the first point of which the tiny data set cannot take"),
]
for extra, pattern, name in usage_cases:
    args = ["sweep", "--dataset", TINY, "--devices", "cpu", "--out-dir", win(OUT)] + extra
    if "--devices" in extra:
        args = ["sweep", "--dataset", TINY, "--out-dir", win(OUT)] + extra
    rc, out, err = cli(*args)
    ok(rc == 2 and re.search(pattern, err), "usage error (exit 2): %s" % name, both(out, err))
rc, out, err = cli("sweep", "--dataset", win(os.path.join(TMP, "no-such-data")), "--devices", "cpu")
ok(rc == 2 and re.search(r"--dataset: .*no-such-data", err),
   "usage error (exit 2): a missing data set", both(out, err))

# ------------------------------------------------------------------ --data, --dataset's other name

rc, out, err = cli("sweep", "--data", win(os.path.join(TMP, "no-such-data")), "--devices", "cpu")
ok(rc == 2 and re.search(r"--data: .*no-such-data", err),
   "--data names the data set too, and a message names it as given", both(out, err))
rc, out, err = cli("sweep", "--data", TINY, "--axis", "W=4", "--axis", "batch=2", "--devices",
                   "cpu", "--steps", "2", "--warmup", "1", "--threads", "1", "--out-dir", win(OUT))
doc = load_json(sweep_file_from(out) or "none")
ok(rc == 0 and isinstance(doc, dict) and doc.get("status") == "completed",
   "a sweep of --data runs as one of --dataset", both(out, err))
rc, out, err = cli("sweep", "--help")
ok(rc == 0 and re.search(r"--dataset NAME\|PATH", out) and "--data is" in out,
   "sweep --help names --dataset and says --data is another name for it", out)
rc, out, err = cli("train", "--preset", "mlp-small", "--data",
                   win(os.path.join(TMP, "no-such-data")))
ok(rc == 2 and re.search(r"--data: .*no-such-data", err),
   "train takes --data for --dataset as well", both(out, err))


# ------------------------------------------------------------------ Ctrl-C and SIGTERM

def npy(data, descr, shape):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def make_npz(path, train, test, side, classes):
    rng = random.Random(5)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for prefix, count in (("train", train), ("test", test)):
            images = bytes(rng.randrange(0, 256) for _ in range(count * side * side))
            z.writestr("x_%s.npy" % prefix, npy(images, "|u1", [count, side, side]))
            z.writestr("y_%s.npy" % prefix,
                       npy(bytes(i % classes for i in range(count)), "|u1", [count]))


# Point 1 (width 4) is over in a moment, point 2 (width 2048) would take
# minutes: the signal comes once point 1's line is out.
BIG = os.path.join(TMP, "big.npz")
make_npz(BIG, 256, 16, 28, 10)

# ------------------------------------------------------------------ the cnn's default grid

# F over 8,16,32,64 and batch over 32,128,512, the engine's grid that the
# Explore page starts from too; 6x6 images keep the cnn's points short.
SMALL = os.path.join(TMP, "small.npz")
make_npz(SMALL, 512, 16, 6, 2)
rc, out, err = cli("sweep", "--family", "cnn", "--dataset", win(SMALL), "--devices", "cpu",
                   "--steps", "1", "--warmup", "0", "--threads", "1", "--quiet",
                   "--out-dir", win(OUT))
doc = load_json(sweep_file_from(out) or "none")
ok(rc == 0 and isinstance(doc, dict)
   and doc.get("axes") == [{"name": "F", "values": [8, 16, 32, 64]},
                           {"name": "batch", "values": [32, 128, 512]}]
   and len(doc.get("points", [])) == 12,
   "sweep --family cnn sweeps F over 8,16,32,64 and batch over 32,128,512",
   both(out, err) + str(doc)[:600])


def stop_during_sweep(sig, name):
    proc = subprocess.Popen(COMMAND + ["sweep", "--data", win(BIG), "--axis", "W=4,2048",
                                       "--axis", "batch=256", "--devices", "cpu",
                                       "--steps", "2000", "--threads", "2",
                                       "--out-dir", win(OUT)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, cwd=TMP,
                            universal_newlines=True)
    lines, done = [], False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("point 1/2"):
            done = True
            break
    if done:
        time.sleep(0.3)
        proc.send_signal(sig)
    try:
        rest, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rest, err = proc.communicate()
    out = "".join(lines) + rest
    path = sweep_file_from(out)
    doc = load_json(path) if path else None
    pts = doc.get("points", []) if isinstance(doc, dict) else []
    point2 = load_json(os.path.join(os.path.dirname(path), "point-0002.json")) if path else None
    ok(done and proc.returncode == 1 and isinstance(doc, dict)
       and doc.get("status") == "cancelled" and len(pts) == 2
       and pts[0]["status"] == "completed" and pts[1]["status"] == "cancelled"
       and isinstance(point2, dict) and point2.get("status") == "cancelled",
       "%s during a sweep keeps the point done, records the one running as cancelled, "
       "and the sweep file says cancelled; exit 1" % name,
       "rc=%s\n" % proc.returncode + both(out, err) + "\n" + str(doc)[:1500])


if not WINDOWS:
    stop_during_sweep(signal.SIGINT, "Ctrl-C")
    stop_during_sweep(signal.SIGTERM, "SIGTERM")

print("1..%d" % len(results))
shutil.rmtree(TMP, ignore_errors=True)
sys.exit(0 if all(results) else 1)
