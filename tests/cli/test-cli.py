#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-cli.py: drives the built trainbench-cli end to end and prints TAP.
# Python 3 stdlib only. Usage: test-cli.py PATH-TO-trainbench-cli (or
# $TRAINBENCH_CLI). It writes a tiny learnable IDX data set in a temporary
# folder and points XDG_DATA_HOME there, so nothing outside it is touched.
#
# The Windows build (trainbench-cli.exe) runs through the program named in
# $TRAINBENCH_CLI_WRAPPER (wine in a cross build). Its data folders are
# redirected the same way: the engine takes an absolute XDG_DATA_HOME on
# Windows too, as GLib does there, since wine sets LOCALAPPDATA and
# USERPROFILE from its own registry whatever the caller says. Paths go to it
# as Windows paths (Z: is wine's drive for /) and come back converted.

import ctypes
import gzip
import json
import os
import random
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time

SCHEMA_KEYS = [
    "schema", "app_version", "run_id", "started_at", "status", "system",
    "device", "dataset", "model", "hyper", "plan", "epochs", "steps",
    "total_seconds", "time_to_first_step_seconds",
]

results = []


def ok(cond, name, diag=None):
    results.append(bool(cond))
    n = len(results)
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, name), flush=True)
    if not cond and diag:
        for line in str(diag).splitlines()[-40:]:
            print("#   " + line, flush=True)
    return bool(cond)


def diag(text):
    for line in str(text).splitlines():
        print("# " + line, flush=True)


CLI = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TRAINBENCH_CLI", "")
if not CLI or not os.access(CLI, os.X_OK):
    print("Bail out! trainbench-cli not found (pass its path or set TRAINBENCH_CLI)")
    sys.exit(1)
CLI = os.path.abspath(CLI)
WRAPPER = os.environ.get("TRAINBENCH_CLI_WRAPPER", "").split()
WINDOWS = CLI.lower().endswith(".exe")
UNDER_WINE = WINDOWS and any(os.path.basename(w).startswith("wine") for w in WRAPPER)
COMMAND = WRAPPER + [CLI]


def win(path):
    """A path of this machine as the CLI takes it."""
    if UNDER_WINE:
        return "Z:" + os.path.abspath(path).replace("/", "\\")
    return path


def unwin(path):
    """A path the CLI printed, as this script opens it."""
    if UNDER_WINE and path and re.match(r"^[Zz]:\\", path):
        return path[2:].replace("\\", "/")
    return path


TMP = tempfile.mkdtemp(prefix="tb-cli-test-")
ENV = dict(os.environ)
ENV["XDG_DATA_HOME"] = win(os.path.join(TMP, "xdg"))
if WINDOWS:
    # on Windows itself these take effect (wine keeps its own)
    ENV["LOCALAPPDATA"] = win(os.path.join(TMP, "local"))
    ENV["USERPROFILE"] = win(os.path.join(TMP, "home"))
    ENV.setdefault("WINEDEBUG", "-all")
ENV["LC_ALL"] = "C.UTF-8"   # wine reads arguments in the locale's encoding


def cli(*args, timeout=300, env=None):
    p = subprocess.run(COMMAND + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=dict(ENV, **(env or {})), cwd=TMP,
                       timeout=timeout, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def plain(data):
    """Terminal output as text. wine draws a console on a terminal with
    escape sequences, character by character: cursor moves stand for
    spaces, the rest is dropped."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if not UNDER_WINE:
        return text
    text = re.sub(r"\x1b\[(\d*)C", lambda m: " " * int(m.group(1) or 1), text)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    return text.replace("\r\r\n", "\n")


def both(out, err):
    return "stdout:\n" + out + "\nstderr:\n" + err


# ------------------------------------------------------------------ data


def write_idx(path, magic_type, dims, data):
    header = struct.pack(">HBB", 0, magic_type, len(dims))
    header += b"".join(struct.pack(">I", d) for d in dims)
    with gzip.open(path, "wb") as f:
        f.write(header + bytes(data))


def make_split(count, rng):
    """Each class is a bright 6x6 square in its own place, plus noise."""
    images = bytearray()
    labels = bytearray()
    for i in range(count):
        label = i % 10
        img = bytearray(rng.randrange(0, 40) for _ in range(28 * 28))
        top = 2 + (label // 5) * 12
        left = 1 + (label % 5) * 5
        for y in range(top, top + 6):
            for x in range(left, left + 5):
                img[y * 28 + x] = 200 + rng.randrange(0, 56)
        images += img
        labels.append(label)
    return images, labels


def make_dataset(folder, train, test):
    os.makedirs(folder)
    rng = random.Random(7)
    for prefix, count in (("train", train), ("t10k", test)):
        images, labels = make_split(count, rng)
        write_idx(os.path.join(folder, prefix + "-images-idx3-ubyte.gz"), 0x08,
                  [count, 28, 28], images)
        write_idx(os.path.join(folder, prefix + "-labels-idx1-ubyte.gz"), 0x08,
                  [count], labels)


DATA_DIR = os.path.join(TMP, "tiny")
make_dataset(DATA_DIR, 600, 200)
DATA = win(DATA_DIR)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return e


def result_path_from(out):
    m = re.search(r"^(?:\[\d+/\d+\] )?result \((\w+)\): (.+)$", out, re.M)
    return (m.group(1), unwin(m.group(2).strip())) if m else (None, None)


# ------------------------------------------------------------------ help and version

COMMANDS = ("train", "reproduce", "sweep", "evaluate", "summary", "devices", "datasets",
            "sysinfo", "report")
rc, out, err = cli("--help")
listed = re.search(r"^COMMANDS\n(.*?)\n\n", out, re.M | re.S)
ok(rc == 0 and listed and all(re.search(r"^    %s " % c, listed.group(1), re.M) for c in COMMANDS)
   and "EXIT STATUS" in out, "--help lists every command", both(out, err))
rc, out, err = cli("help", "train")
ok(rc == 0 and "--batch-size" in out, "help train shows train's options", both(out, err))
rc, out, err = cli("--version")
ok(rc == 0 and re.search(r"trainbench-cli \d+\.\d+\.\d+", out), "--version", both(out, err))
for command in COMMANDS:
    rc, out, err = cli(command, "--help")
    ok(rc == 0 and "SYNOPSIS" in out and command in out, command + " --help", both(out, err))

# ------------------------------------------------------------------ summary

for preset, total in (("mlp-small", "101,770"), ("mlp-wide", "1,796,010"),
                      ("cnn", "1,199,882")):
    rc, out, err = cli("summary", "--preset", preset)
    digits = total.replace(",", "")
    found = total in out or re.search(r"\b%s\b" % digits, out)
    ok(rc == 0 and found, "summary --preset %s totals %s" % (preset, total), both(out, err))

rc, out, err = cli("summary", "--model", "conv2d 8 3 relu; flatten; dense 10 softmax",
                   "--input", "3x32x32")
# conv 8*(3*3*3)+8 = 224, dense 8*30*30*10+10 = 72010
ok(rc == 0 and ("72,234" in out or "72234" in out),
   "summary --model with --input 3x32x32 totals 72,234", both(out, err))
rc, out, err = cli("summary", "--model", "conv2d 8 5 relu; flatten; dense 10 softmax",
                   "--input", "1x3x3")
ok(rc == 2 and "--model does not fit --input 1x3x3: layer 1 (conv2d)" in err,
   "summary of a model that does not fit its input is a usage error naming --input",
   both(out, err))
rc, out, err = cli("summary", "--model", "dense 10 relu")
ok(rc == 2 and "does not fit the default input 1x28x28" in err and "--input CxHxW" in err,
   "summary of a model that does not fit the default input says which and how to give one",
   both(out, err))

# summary --plan: the plan of a training step on the CPU, without training
# (nothing is written to the runs folder)
# (the CPU runs a convolution's forward with its bias and activation as
# one fused step, every other layer's own ops)
for preset, lines, first in (("mlp-small", 8, "layer"), ("mlp-wide", 12, "layer"),
                             ("cnn", 17, "conv")):
    rc, out, err = cli("summary", "--preset", preset, "--plan")
    steps = re.findall(r"^(forward|backward) +(\w+) +layers? (\d+)(?:-(\d+))? \((.*)\)", out, re.M)
    ok(rc == 0 and "Plan of a training step on cpu" in out and len(steps) == lines
       and steps[0][:3] == ("forward", first, "1") and steps[-1][0] == "backward"
       and all(kind in ("layer", "loss", "conv") for _, kind, _, _, _ in steps)
       and all(("fused" in line) == (" conv " in line) for line in out.splitlines()
               if line.startswith(("forward", "backward"))),
       "summary --preset %s --plan: %d steps, each layer's own ops on the CPU but a "
       "convolution's forward" % (preset, lines), both(out, err))
rc, out, err = cli("summary", "--preset", "mlp-small", "--plan")
ok(rc == 0 and re.search(r"^forward +layer +layer 2 \(dense 128 relu\)$", out, re.M)
   and re.search(r"^forward +loss +layer 4 \(sparse_categorical_crossentropy\)$", out, re.M)
   and "(batch 32, adam, sparse_categorical_crossentropy)" in out,
   "summary --plan names each step's layers as the spec writes them", both(out, err))
rc, out, err = cli("summary", "--model", "flatten; dense 8 relu; dense 10 softmax", "--plan",
                   "--batch-size", "7", "--optimizer", "sgd", "--loss", "mse")
ok(rc == 0 and "(batch 7, sgd, mean_squared_error)" in out
   and re.search(r"^forward +loss +layer 3 \(mean_squared_error\)$", out, re.M),
   "summary --plan takes the run's batch size, optimizer and loss", both(out, err))
runs_dir = os.path.join(TMP, "xdg", "trainbench", "runs")
ok(not os.path.isdir(runs_dir) or not os.listdir(runs_dir), "summary --plan trains nothing")
rc, out, err = cli("summary", "--preset", "cnn")
ok(rc == 0 and "Plan of" not in out, "summary without --plan prints no plan", both(out, err))
rc, out, err = cli("summary", "--preset", "cnn", "--device", "cpu")
ok(rc == 2 and "--device is a setting of the plan: give --plan too" in err,
   "summary --device without --plan is a usage error", both(out, err))
rc, out, err = cli("summary", "--preset", "cnn", "--tf32", "on")
ok(rc == 2 and "--tf32 is a setting of the plan: give --plan too" in err,
   "summary --tf32 without --plan is a usage error", both(out, err))
rc, out, err = cli("summary", "--preset", "cnn", "--plan", "--device", "cuda:1023")
ok(rc == 1 and re.search(r"summary: no plan on cuda:1023: ", err)
   and "Total params" in out,
   "summary --plan on a device that is not there exits 1, saying why", both(out, err))

# ------------------------------------------------------------------ info commands

rc, out, err = cli("devices")
ok(rc == 0 and re.search(r"^cpu\b", out, re.M), "devices lists cpu", both(out, err))
ok(re.search(r"^cuda", out, re.M) is not None, "devices lists a CUDA entry (or why there is none)",
   both(out, err))
# The CUDA module of this build (Linux's .so, or the Windows .dll under
# wine), where the build made one: it loads on any machine, and without
# an NVIDIA driver it says so, naming the driver's library, and the CPU
# goes on as usual.
MODULE = os.environ.get("TRAINBENCH_CUDA_MODULE_FILE", "")
if MODULE:
    rc, out, err = cli("devices", env={"TRAINBENCH_CUDA_MODULE": win(MODULE)})
    entry = re.search(r"^cuda.*$", out, re.M)
    ok(rc == 0 and re.search(r"^cpu\b", out, re.M) and entry
       and "not loadable" not in out and "ABI mismatch" not in out,
       "devices loads this build's CUDA module (%s)" % os.path.basename(MODULE), both(out, err))
    driver = "nvcuda.dll" if WINDOWS else "libcuda.so.1"
    try:
        have_driver = not UNDER_WINE and bool(ctypes.CDLL(driver))
    except OSError:
        have_driver = False
    if not have_driver:
        ok(entry is not None and entry.group(0).endswith(
               "not usable: no NVIDIA driver (%s not found)" % driver),
           "without a driver the CUDA entry says: no NVIDIA driver (%s not found)" % driver,
           both(out, err))
        rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--device",
                           "cuda", env={"TRAINBENCH_CUDA_MODULE": win(MODULE)})
        ok(rc == 2 and "--device: cuda: no NVIDIA driver (%s not found)" % driver in err,
           "train --device cuda without a driver is a usage error that says why", both(out, err))
    else:
        diag("an NVIDIA driver is installed here: " + (entry.group(0) if entry else out))
rc, out, err = cli("datasets")
ok(rc == 0 and "mnist" in out and "fashion-mnist" in out, "datasets lists mnist and fashion-mnist",
   both(out, err))
rc, out, err = cli("sysinfo")
ok(rc == 0 and "BLAS" in out and "CPU" in out and "RAM" in out and "compiler" in out
   and re.search(r"^cpu\b", out, re.M), "sysinfo shows the system and the devices", both(out, err))

rc, out, err = cli("sysinfo")
m = re.search(r"^OS +(.+)$", out, re.M)
if UNDER_WINE:
    ok(rc == 0 and m and re.match(r"Windows \S+ \(wine \d", m.group(1)),
       "under wine sysinfo names Windows and wine: %s" % (m.group(1) if m else None),
       both(out, err))
    b = re.search(r"^BLAS +(.+)$", out, re.M)
    diag("BLAS under wine: %s" % (b.group(1) if b else "?"))
else:
    ok(rc == 0 and m and "wine" not in m.group(1), "sysinfo names the OS: %s"
       % (m.group(1) if m else None), both(out, err))

# ------------------------------------------------------------------ terminal escapes

# What a terminal acts on, in an environment variable, a path or a file
# name (a screen clear, a window title, OSC 52's clipboard write, a line
# overwritten with \r, a right-to-left override), is printed escaped:
# no raw control byte reaches the output.
HOSTILE = "\x1b[2J\x1b]0;title\x07\x1b]52;c;ZWNobyBldmls\x07\rX\u202e"


def raw_controls(text):
    if WINDOWS:
        text = text.replace("\r\n", "\n")   # a Windows program writes its line ends so
    return sorted({"U+%04X" % ord(c) for c in text
                   if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
                   or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069})


def cli_raw(*args, env=None):
    """cli() without newline translation, which would turn a raw \r into \n."""
    p = subprocess.run(COMMAND + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(ENV, **(env or {})), cwd=TMP, timeout=300)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


rc, out, err = cli_raw("devices",
                       env={"TRAINBENCH_CUDA_MODULE": win(os.path.join(TMP, "m" + HOSTILE))})
ok(rc == 0 and not raw_controls(out + err) and "\\x1b]52;c;" in out and "\\u202e" in out,
   "devices: a module path from the environment is printed escaped %s" % raw_controls(out + err),
   both(out, err))
rc, out, err = cli_raw("datasets",
                       env={"TRAINBENCH_DATA_DIR": win(os.path.join(TMP, "d" + HOSTILE))})
ok(rc == 0 and not raw_controls(out + err) and "\\x1b[2J" in out,
   "datasets: a data folder from the environment is printed escaped %s" % raw_controls(out + err),
   both(out, err))
rc, out, err = cli_raw("sweep", "--data", win(os.path.join(TMP, "s" + HOSTILE)),
                       "--devices", "cpu")
ok(rc == 2 and not raw_controls(out + err) and "\\x1b]0;title\\x07" in err,
   "sweep: a data path in its usage error is printed escaped %s" % raw_controls(out + err),
   both(out, err))
if not WINDOWS:
    # a file name with these bytes (Windows takes no control character in one)
    hostile_out = os.path.join(TMP, "r" + HOSTILE + ".json")
    rc, out, err = cli_raw("train", "--preset", "mlp-small", "--dataset", DATA, "--epochs", "1",
                       "--limit-train", "100", "--limit-test", "50", "--out", hostile_out)
    ok(rc == 0 and os.path.isfile(hostile_out) and not raw_controls(out + err)
       and "\\rX\\u202e.json" in out,
       "train: the result file's name is printed escaped %s" % raw_controls(out + err),
       both(out, err))

# ------------------------------------------------------------------ train

final_test_accuracy = None
out_file = os.path.join(TMP, "run1.json")
weights = os.path.join(TMP, "run1.tbw")
rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--epochs", "2",
                   "--limit-train", "500", "--limit-test", "100", "--threads", "2",
                   "--out", win(out_file), "--save-weights", win(weights))
ok(rc == 0, "train --preset mlp-small on the tiny data set exits 0", both(out, err))
ok(re.search(r"^epoch 1/2 +[\d.]+ s +loss [\d.]+ +acc [\d.]+ +test_loss [\d.]+ +test_acc [\d.]+ +\d+ samples/s$",
             out, re.M), "train prints a plain line per epoch when not on a terminal",
   both(out, err))
status, printed = result_path_from(out)
ok(status == "completed" and printed == out_file, "train prints the result file it wrote",
   both(out, err))
doc = load_json(out_file)
ok(isinstance(doc, dict), "the result file is valid JSON", doc)
if isinstance(doc, dict):
    missing = [k for k in SCHEMA_KEYS if k not in doc]
    ok(not missing, "the result has every schema-1 key", "missing: %s" % missing)
    ok(doc.get("schema") == 1 and doc.get("status") == "completed", "schema 1, status completed",
       json.dumps(doc)[:2000])
    plan = doc.get("plan") or []
    ok(len(plan) == 8 and all(isinstance(p, dict) and p.get("pass") in ("forward", "backward")
                              and isinstance(p.get("first"), int) and "layers" in p
                              and p.get("fused") is False for p in plan)
       and plan[1].get("layers") == "dense 128 relu" and plan[4].get("kind") == "loss",
       "the result records the plan of its steps, none fused on the CPU",
       json.dumps(plan)[:2000])
    epochs = doc.get("epochs") or []
    ok(len(epochs) == 2, "the result records 2 epochs", json.dumps(epochs)[:2000])
    ok(isinstance(doc.get("dataset"), dict) and doc["dataset"].get("train_samples") == 500
       and doc["dataset"].get("test_samples") == 100, "--limit-train/--limit-test are recorded",
       json.dumps(doc.get("dataset")))
    acc = epochs[-1].get("test_accuracy") if epochs else None
    final_test_accuracy = acc
    ok(isinstance(acc, (int, float)) and acc > 0.5,
       "mlp-small learns the tiny data set (test accuracy %s > 0.5)" % acc)
else:
    for name in ("schema-1 keys", "status", "epochs", "limits", "learns"):
        ok(False, "result file: " + name)
ok(os.path.isfile(weights), "train --save-weights wrote the weights file")

# Where a step's time went: printed after the run (a line a part, seconds
# and share) and recorded; --breakdown off neither prints nor records it.
parts = re.findall(r"^  (Matrix products|Engine loops|Waiting at joins|Host code) +([\d.]+) s +([\d.]+) %$",
                   out, re.M)
bd = doc.get("breakdown") if isinstance(doc, dict) else None
ok(re.search(r"^where a step's time went \(mean of \d+ steps, [\d.]+ s each\):$", out, re.M)
   and [p[0] for p in parts] == ["Matrix products", "Engine loops", "Waiting at joins", "Host code"]
   and 95 <= sum(float(p[2]) for p in parts) <= 105,
   "train prints the CPU's four parts of a step, their shares adding up to 100 %", both(out, err))
ok(isinstance(bd, dict) and [p.get("key") for p in bd.get("parts", [])] == ["gemm", "loops", "join_wait", "host"]
   and bd.get("steps") == doc.get("steps", {}).get("count")
   and abs(sum(p["seconds"] for p in bd["parts"]) - bd["step_seconds"]) <= 0.05 * bd["step_seconds"],
   "the result records the breakdown, its parts adding up to the step", json.dumps(bd))
off_file = os.path.join(TMP, "off.json")
rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--epochs", "1",
                   "--limit-train", "200", "--limit-test", "50", "--threads", "2",
                   "--breakdown", "off", "--out", win(off_file))
off_doc = load_json(off_file)
ok(rc == 0 and "time went" not in out and isinstance(off_doc, dict) and "breakdown" not in off_doc,
   "train --breakdown off prints and records no breakdown", both(out, err))
rc, out, err = cli("train", "--preset", "mlp-small", "--breakdown", "maybe")
ok(rc == 2 and "--breakdown" in err, "--breakdown takes on or off", both(out, err))

# The run's conditions: each switch is recorded; "article" sets all four,
# a switch over it makes them "custom"; on the CPU batches gathered on the
# host train exactly as batches from the resident data set.
def conditions_run(name, *options):
    path = os.path.join(TMP, "conditions-%s.json" % name)
    rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--epochs", "1",
                       "--limit-train", "300", "--limit-test", "100", "--threads", "2",
                       "--out", win(path), "--quiet", *options)
    doc = load_json(path)
    return rc, out, err, doc


cond_docs = {}
for name, options, want in [
        ("default", [], {"name": "default", "data": "device", "graph": False,
                         "loss_every_step": False, "fused": True}),
        ("article", ["--conditions", "article"],
         {"name": "article", "data": "pageable", "graph": False, "loss_every_step": True,
          "fused": False}),
        ("pinned", ["--data-on", "pinned"],
         {"name": "custom", "data": "pinned", "graph": False, "loss_every_step": False,
          "fused": True}),
        ("pageable", ["--data-on", "pageable"],
         {"name": "custom", "data": "pageable", "fused": True}),
        ("graph-off", ["--graph", "off"], {"name": "custom", "data": "device", "graph": False}),
        ("loss", ["--loss-every-step", "on"], {"name": "custom", "loss_every_step": True}),
        ("unfused", ["--fusion", "off"], {"name": "custom", "fused": False}),
        ("article-device", ["--conditions", "article", "--data-on", "device"],
         {"name": "custom", "data": "device", "loss_every_step": True, "fused": False})]:
    rc, out, err, doc = conditions_run(name, *options)
    got = doc.get("conditions") if isinstance(doc, dict) else None
    ok(rc == 0 and isinstance(got, dict) and all(got.get(k) == v for k, v in want.items()),
       "train %s records its conditions %s" % (" ".join(options) or "(no option)", want),
       both(out, err) + "\n" + json.dumps(got))
    cond_docs[name] = doc if isinstance(doc, dict) else {}


def figures(doc):
    return [(e.get("train_loss"), e.get("test_loss"), e.get("test_accuracy"))
            for e in doc.get("epochs") or []]


for name in ("pinned", "pageable"):
    ok(figures(cond_docs["default"]) and figures(cond_docs[name]) == figures(cond_docs["default"]),
       "--data-on %s trains exactly as data on the device on the CPU" % name,
       "%s\n%s" % (figures(cond_docs["default"]), figures(cond_docs[name])))
ok(figures(cond_docs["unfused"]) and
   [f[1] for f in figures(cond_docs["unfused"])] == [f[1] for f in figures(cond_docs["default"])],
   "--fusion off trains mlp-small as fused on the CPU (nothing of it fuses there)",
   "%s" % figures(cond_docs["unfused"]))
rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--epochs", "1",
                   "--limit-train", "300", "--limit-test", "100", "--conditions", "article",
                   "--out", win(os.path.join(TMP, "conditions-shown.json")))
ok(rc == 0 and re.search(r"^run +article conditions \(data pageable, graph off, loss every "
                         r"step, fusion off\)$", out, re.M),
   "train says it runs under the article's conditions", both(out, err))
rc, out, err = cli("summary", "--preset", "cnn", "--plan", "--fusion", "off")
ok(rc == 0 and "fused" not in out.replace("unfused", "") and "layer" in out,
   "summary --plan --fusion off shows the layers' own ops", both(out, err))

# The default result file goes into the runs folder under XDG_DATA_HOME.
rc, out, err = cli("train", "--model", "flatten; dense 16 relu; dense 10 softmax",
                   "--dataset", DATA, "--epochs", "1", "--optimizer", "sgd", "--lr", "0.05",
                   "--batch-size", "50", "--seed", "3", "--quiet")
status, printed = result_path_from(out)
runs_dir = os.path.join(TMP, "xdg", "trainbench", "runs")
ok(rc == 0 and status == "completed" and printed and os.path.dirname(printed) == runs_dir
   and os.path.isfile(printed), "train --model writes <runs dir>/<run_id>.json by default",
   both(out, err))
ok("epoch 1/1" not in out, "--quiet prints no progress", both(out, err))
doc = load_json(printed) if printed else None
ok(isinstance(doc, dict) and doc.get("run_id") and os.path.basename(printed) == doc["run_id"] + ".json"
   and isinstance(doc.get("hyper"), dict) and doc["hyper"].get("batch_size") == 50,
   "the default file is named after the run id and records the options",
   json.dumps(doc)[:2000] if isinstance(doc, dict) else doc)

# A data set, a result and weights under a folder named 张伟: the arguments
# reach the program as UTF-8 (on Windows through CommandLineToArgvW), and
# the engine opens them through the wide-character API.
uni = os.path.join(TMP, "\u5f20\u4f1f")
shutil.copytree(DATA_DIR, os.path.join(uni, "data"))
uni_out = os.path.join(uni, "runs", "r\u00e9sultat.json")
rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", win(os.path.join(uni, "data")),
                   "--epochs", "1", "--limit-train", "200", "--limit-test", "50",
                   "--out", win(uni_out), "--save-weights", win(os.path.join(uni, "w.tbw")),
                   "--quiet")
status, printed = result_path_from(out)
doc = load_json(uni_out)
ok(rc == 0 and status == "completed" and printed == uni_out and isinstance(doc, dict)
   and doc.get("dataset", {}).get("path") == win(os.path.join(uni, "data"))
   and os.path.isfile(os.path.join(uni, "w.tbw")),
   "a data set, result and weights under 张伟", both(out, err) + "\n" + str(doc)[:600])

# On a terminal: one line redrawn with \r (a bar), then the epoch line.
# run_on_pty runs the CLI with stdout on a terminal (so it is line-buffered)
# and returns its exit status and output; stderr goes nowhere unless
# stderr=subprocess.STDOUT puts it on the terminal too (a pipe nobody reads
# could fill and stop the CLI); on_output (proc, master, data), when given,
# sees the output so far after each read and returns it (it may read more
# from master itself).
def run_on_pty(args, timeout=120, stderr=subprocess.DEVNULL, on_output=None):
    import pty
    import select
    master, slave = pty.openpty()
    proc = subprocess.Popen(COMMAND + args, stdout=slave,
                            stderr=slave if stderr is subprocess.STDOUT else stderr,
                            env=ENV, cwd=TMP)
    os.close(slave)
    data = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
            if on_output is not None:
                data = on_output(proc, master, data)
        elif proc.poll() is not None:
            break
    os.close(master)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return proc.returncode, plain(data)

rc, text = run_on_pty(["train", "--preset", "mlp-small", "--dataset", DATA, "--epochs", "1",
                       "--batch-size", "8", "--out", win(os.path.join(TMP, "tty.json"))])
if UNDER_WINE:
    # wine's console redraws the terminal itself: no \r comes through, but
    # the bar is there, and no plain step lines (the console was seen)
    ok(rc == 0 and re.search(r"epoch 1/1 \[[#.]+\] \d+/\d+ loss [\d.]+ acc [\d.]+ .*samples/s ETA", text)
       and re.search(r"epoch 1/1 +[\d.]+ s +loss", text) and "step " not in text,
       "on a console train draws a progress bar, not step lines", repr(text[-1500:]))
else:
    ok(rc == 0 and re.search(r"\repoch 1/1 \[[#.]+\] \d+/\d+ loss [\d.]+ acc [\d.]+ .*samples/s ETA", text)
       and re.search(r"epoch 1/1 +[\d.]+ s +loss", text) and "step " not in text,
       "on a terminal train redraws one progress bar line with \\r", repr(text[-1500:]))

# ------------------------------------------------------------------ evaluate

rc, out, err = cli("evaluate", "--weights", win(weights), "--dataset", DATA)
m = re.search(r"test accuracy\s+([\d.]+)", out)
ok(rc == 0 and m and float(m.group(1)) > 0.5 and re.search(r"test loss\s+[\d.]+", out),
   "evaluate on the saved weights prints test loss and accuracy", both(out, err))
# The saved weights are the final model: on the same 100 test samples they
# score what the last epoch recorded.
rc, out, err = cli("evaluate", "--weights", win(weights), "--dataset", DATA, "--limit-test", "100")
m = re.search(r"test accuracy\s+([\d.]+)", out)
ok(rc == 0 and m and isinstance(final_test_accuracy, (int, float))
   and abs(float(m.group(1)) - final_test_accuracy) < 1e-3,
   "evaluate --limit-test 100 matches the run's final test accuracy (%s)" % final_test_accuracy,
   both(out, err))
rc, out, err = cli("evaluate", "--weights", win(os.path.join(TMP, "missing.tbw")), "--dataset", DATA)
ok(rc == 2 and "--weights: " in err and "missing.tbw" in err,
   "evaluate of a missing weights file is a usage error naming --weights and the file",
   both(out, err))

# ------------------------------------------------------------------ reproduce

rdir = os.path.join(TMP, "repro")
rc, out, err = cli("reproduce", "--presets", "mlp-small", "--devices", "cpu", "--epochs", "3",
                   "--dataset", DATA, "--limit-train", "300", "--limit-test", "100",
                   "--out-dir", win(rdir))
ok(rc == 0, "reproduce --presets mlp-small --devices cpu --epochs 3 exits 0", both(out, err))
files = sorted(f for f in os.listdir(rdir) if f.endswith(".json")) if os.path.isdir(rdir) else []
ok(len(files) == 1, "reproduce wrote one result file", files)
docs = [load_json(os.path.join(rdir, f)) for f in files]
ok(docs and all(isinstance(d, dict) and d.get("status") == "completed" for d in docs),
   "its result is valid JSON, completed", docs)
ok(re.search(r"^preset\s+device\s+median s/epoch\s+test acc", out, re.M)
   and re.search(r"^mlp-small\s+cpu\s+[\d.]+\s+[\d.]+", out, re.M),
   "reproduce prints the table, its header naming the median", both(out, err))
# Seconds per epoch is the median of the epochs' times, in the table as in
# the app, its charts and CSV export (the table once gave the mean: 9.58
# where the app said 10.88 for the same run).
m = re.search(r"^mlp-small\s+cpu\s+([\d.]+)\s", out, re.M)
times = [e.get("seconds") for e in docs[0].get("epochs", [])] if docs and isinstance(docs[0], dict) else []
if m and len(times) == 3 and all(isinstance(t, (int, float)) for t in times):
    import statistics
    shown = float(m.group(1))
    median, mean = statistics.median(times), statistics.mean(times)
    # the table keeps three digits: 2 decimals from 1 s, 3 significant below
    tol = 0.005 if median >= 1 else 0.005 * median + 1e-12
    diag("epoch times %s: median %.6f, mean %.6f, table %s" % (times, median, mean, m.group(1)))
    ok(abs(shown - median) <= tol and (abs(mean - median) <= 2 * tol or abs(shown - mean) > tol),
       "the table's seconds per epoch is the median of the result's epoch times", both(out, err))
else:
    ok(False, "the table's seconds per epoch is the median of the result's epoch times",
       both(out, err) + "\n" + repr(times))

# A device that is not there is refused before the data set loads: no run,
# no result file (it used to be found by the run, and recorded as failed).
rc, out, err = cli("reproduce", "--presets", "mlp-small", "--devices", "cpu,cuda:7",
                   "--epochs", "1", "--dataset", DATA, "--limit-train", "100",
                   "--limit-test", "50", "--out-dir", win(rdir + "2"), "--quiet")
ok(rc == 2 and re.search(r"--devices: cuda:7: \S", err) and "result (" not in out
   and not os.path.exists(rdir + "2"),
   "reproduce refuses a device that is not usable before any run, naming it (exit 2, no "
   "result files)", both(out, err))

# The data set is read once for the whole queue, not once per run: once
# reproduce has said which data it loaded, the folder is moved away, and the
# second run must still complete. The CLI is paused (SIGSTOP) while the
# folder moves, so we know the first run had not ended yet.
def reproduce_with_data_moved(data, moved, timeout=300):
    import select
    state = {"moved_before_first_result": None}

    def move_once_loaded(proc, master, text):
        if state["moved_before_first_result"] is None and "\ndata: " in "\n" + plain(text):
            os.kill(proc.pid, signal.SIGSTOP)
            os.rename(data, moved)
            # what it printed before it stopped
            while select.select([master], [], [], 0.2)[0]:
                chunk = os.read(master, 65536)
                if not chunk:
                    break
                text += chunk
            state["moved_before_first_result"] = "result (" not in plain(text)
            os.kill(proc.pid, signal.SIGCONT)
        return text

    rc, text = run_on_pty(["reproduce", "--presets", "cnn,mlp-small", "--devices", "cpu",
                           "--epochs", "1", "--dataset", win(data), "--limit-test", "50",
                           "--out-dir", win(os.path.join(TMP, "repro-once"))],
                          timeout=timeout, stderr=subprocess.STDOUT, on_output=move_once_loaded)
    return rc, text, state["moved_before_first_result"]

once_data = os.path.join(TMP, "tiny-once")
shutil.copytree(DATA_DIR, once_data)
rc, text, moved_early = reproduce_with_data_moved(once_data, once_data + "-moved")
ok(moved_early, "the data set was moved while reproduce's first run went on", text[-3000:])
ok(rc == 0 and re.search(r"^cnn\s+cpu\s+[\d.]+\s+[\d.]+", text, re.M)
   and re.search(r"^mlp-small\s+cpu\s+[\d.]+\s+[\d.]+", text, re.M),
   "reproduce loads the data set once: its second run completes with the folder gone",
   text[-3000:])

# ------------------------------------------------------------------ usage errors (exit 2)

usage_cases = [
    (["trian"], r"unknown command 'trian' \(did you mean train\?\)", "unknown command"),
    (["train", "--preset", "mlp-small", "--epoch", "3"],
     r"unknown option '--epoch' \(did you mean --epochs\?\)", "unknown option"),
    (["train", "--preset", "mlp-small", "--batch-size", "abc"],
     r"--batch-size: 'abc' is not a whole number", "bad number"),
    (["train", "--preset", "mlp-small", "--epochs", "3x"],
     r"--epochs: '3x' is not a whole number", "number with trailing junk"),
    (["train", "--preset", "mlp-small", "--epochs", "0"], r"--epochs: 0 is out of range",
     "number out of range"),
    (["train", "--preset", "mlp-small", "--lr", "-1"], r"--lr: -1 is out of range", "negative lr"),
    (["train", "--preset", "mlp-small", "--lr", "nan"], r"--lr: 'nan' is not a number", "lr nan"),
    (["train", "--preset", "mlp-small", "--seed", "-4"], r"--seed: '-4'", "negative seed"),
    (["train", "--preset", "mlp-small", "--epochs"], r"--epochs needs a value", "missing value"),
    (["train", "--preset", "mlp-small", "--model", "flatten; dense 10 softmax"],
     r"--preset or --model, not both", "both --preset and --model"),
    (["train"], r"--preset NAME .*--model SPEC", "no model"),
    (["train", "--preset", "mlp-smal"], r"unknown preset 'mlp-smal' \(did you mean mlp-small\?\)",
     "unknown preset"),
    (["train", "--model", "flatten; bogus 3"], r"--model: .*bogus", "spec that does not parse"),
    (["train", "--preset", "mlp-small", "--device", "tpu"], r"--device: .*tpu", "bad device"),
    (["train", "--preset", "mlp-small", "--optimizer", "adamw"], r"--optimizer: .*adamw",
     "unknown optimizer"),
    (["train", "--preset", "mlp-small", "--tf32", "maybe"], r"--tf32: 'maybe' is not on or off",
     "bad on/off"),
    (["train", "--preset", "mlp-small", "stray"], r"unexpected argument 'stray'", "stray argument"),
    (["summary", "--preset", "cnn", "--input", "28"], r"--input: '28' is not a shape",
     "bad shape"),
    (["summary", "--preset", "cnn", "--plan", "--optimizer", "adamw"], r"--optimizer: .*adamw",
     "summary --plan with an unknown optimizer"),
    (["summary", "--preset", "cnn", "--plan", "--batch-size", "0"],
     r"--batch-size: 0 is out of range", "summary --plan with a batch the engine refuses"),
    (["evaluate"], r"--weights FILE", "evaluate without weights"),
    (["reproduce", "--presets", "mlp-small,foo"], r"--presets: unknown preset 'foo'",
     "reproduce bad preset names --presets, as typed"),
    (["reproduce", "--presets", "cnn,mlp-smal"],
     r"--presets: unknown preset 'mlp-smal' \(did you mean mlp-small\?\)",
     "reproduce: a misspelt preset gets a suggestion"),
    (["reproduce", "--devices", "cpu,"], r"--devices: 'cpu,' has an empty name",
     "reproduce: an empty device name"),
    (["reproduce", "--devices", "cpu,tpu"], r"--devices: .*tpu", "reproduce: an unknown device"),
    (["summary", "--preset", "mlp-smal"], r"--preset: unknown preset 'mlp-smal'",
     "summary bad preset names --preset"),
    (["train", "--preset", "mlp-small", "--batch-size=abc"],
     r"--batch-size: 'abc' is not a whole number", "--option=value names the option"),
    (["train", "--preset", "mlp-small", "--limit-train", "-1"],
     r"--limit-train: -1 is out of range \(at least 0\)", "a negative limit"),
    (["evaluate", "--weights", "w.tbw", "--limit-test", "x"],
     r"--limit-test: 'x' is not a whole number", "evaluate: a bad limit"),
    (["devices", "--all"], r"unknown option '--all'", "devices takes no options"),
    (["train", "--preset", "mlp-small", "--conditions", "keras"],
     r"--conditions: 'keras' is not default or article", "an unknown --conditions is named"),
    (["train", "--preset", "mlp-small", "--data-on", "gpu"],
     r"--data-on: 'gpu' is not device, pinned or pageable", "an unknown --data-on is named"),
    (["train", "--preset", "mlp-small", "--graph", "maybe"],
     r"--graph: 'maybe' is not on or off", "--graph takes on or off"),
    (["train", "--preset", "mlp-small", "--loss-every-step", "2"],
     r"--loss-every-step: '2' is not on or off", "--loss-every-step takes on or off"),
    (["reproduce", "--fusion", "none"], r"--fusion: 'none' is not on or off",
     "reproduce: --fusion takes on or off"),
    (["summary", "--preset", "cnn", "--fusion", "off"],
     r"--fusion is a setting of the plan: give --plan too", "summary --fusion needs --plan"),
    ([], r"no command given", "no command"),
    # what the engine refuses is refused here, before any data loads (the
    # data set named does not exist: a usage error must come first)
    (["train", "--preset", "mlp-small", "--lr", "1e-50", "--dataset", "/nonexistent"],
     r"--lr: 1e-50 is too small", "an lr a float cannot hold blames --lr"),
    (["train", "--preset", "mlp-small", "--device", "cuda:1024", "--dataset", "/nonexistent"],
     r"--device: device index 1024 is out of range \(cuda:0 to cuda:1023\)",
     "a CUDA index out of range says so"),
    (["train", "--preset", "mlp-small", "--device", "cuda:x1", "--dataset", "/nonexistent"],
     r"--device: .*whole number", "a CUDA index that is no number says so"),
    (["train", "--preset", "mlp-small", "--threads", "4096", "--dataset", "/nonexistent"],
     r"--threads: 4096 is out of range \(0 to 1024\)", "more threads than the engine runs"),
    (["train", "--preset", "mlp-small", "--batch-size", "65537", "--dataset", "/nonexistent"],
     r"--batch-size: 65537 is out of range \(1 to 65536\)", "a batch the engine refuses"),
    (["train", "--preset", "mlp-small", "--epochs", "100001", "--dataset", "/nonexistent"],
     r"--epochs: 100001 is out of range \(1 to 100000\)", "epochs the engine refuses"),
    (["evaluate", "--weights", "w.tbw", "--batch-size", "65537", "--dataset", "/nonexistent"],
     r"--batch-size: 65537 is out of range \(1 to 65536\)", "evaluate: a batch the engine refuses"),
    (["reproduce", "--epochs", "100001", "--dataset", "/nonexistent"],
     r"--epochs: 100001 is out of range \(1 to 100000\)", "reproduce: epochs the engine refuses"),
    (["reproduce", "--threads", "1025", "--dataset", "/nonexistent"],
     r"--threads: 1025 is out of range \(0 to 1024\)", "reproduce: threads the engine refuses"),
]
for args, pattern, name in usage_cases:
    rc, out, err = cli(*args)
    ok(rc == 2 and re.search(pattern, err) and "--help" in err,
       "usage error exits 2 and names it: " + name, "rc=%d\n" % rc + both(out, err))

# ------------------------------------------------------------------ checks before a run (exit 2)

# What can be checked before a data set loads is: the device, the data set
# as its headers describe it, the model against its images and classes. It
# is a usage error that names the option as typed, and nothing is recorded
# (these used to be found by the run after loading, and written down as
# failed runs).


def make_idx_set(folder, train, test, side, classes, cut_train_images=False):
    """Random side x side images, labels 0 .. classes - 1 in turn; with
    cut_train_images the training images end halfway (the header still
    says all of them), damage that only loading finds."""
    os.makedirs(folder)
    rng = random.Random(11)
    for prefix, count in (("train", train), ("t10k", test)):
        images = bytes(rng.randrange(0, 256) for _ in range(count * side * side))
        if cut_train_images and prefix == "train":
            images = images[:len(images) // 2]
        write_idx(os.path.join(folder, prefix + "-images-idx3-ubyte.gz"), 0x08,
                  [count, side, side], images)
        write_idx(os.path.join(folder, prefix + "-labels-idx1-ubyte.gz"), 0x08, [count],
                  [i % classes for i in range(count)])


def npy(data, descr, shape):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def make_npz(path, train, test, side, classes):
    import zipfile
    rng = random.Random(5)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for prefix, count in (("train", train), ("test", test)):
            images = bytes(rng.randrange(0, 256) for _ in range(count * side * side))
            z.writestr("x_%s.npy" % prefix, npy(images, "|u1", [count, side, side]))
            z.writestr("y_%s.npy" % prefix,
                       npy(bytes(i % classes for i in range(count)), "|u1", [count]))


def run_files():
    return sorted(os.listdir(runs_dir)) if os.path.isdir(runs_dir) else []


twelve = os.path.join(TMP, "twelve-classes")
make_idx_set(twelve, 120, 24, 28, 12)
small4 = os.path.join(TMP, "four-pixels")
make_idx_set(small4, 20, 10, 4, 10)
small14 = os.path.join(TMP, "fourteen-pixels")
make_idx_set(small14, 20, 10, 14, 10)
cut = os.path.join(TMP, "cut-images")
make_idx_set(cut, 200, 20, 28, 10, cut_train_images=True)
npz_file = os.path.join(TMP, "tiny.npz")
make_npz(npz_file, 200, 40, 28, 10)
checks_out = os.path.join(TMP, "checked.json")
weights_arg = win(weights)

check_cases = [
    (["train", "--model", "flatten; dense 3 softmax", "--dataset", DATA],
     r"--model does not fit .*tiny \(1x28x28 images, 10 classes\): the model ends in 3 outputs "
     r"but the data set has 10 classes; end it with dense 10 softmax",
     "train: a model whose outputs are not the classes"),
    (["train", "--preset", "mlp-small", "--dataset", win(twelve)],
     r"--preset mlp-small does not fit .*twelve-classes \(1x28x28 images, 12 classes\): .*"
     r"end it with dense 12 softmax", "train: a preset for fewer classes than the data set has"),
    (["train", "--preset", "cnn", "--dataset", win(small4)],
     r"--preset cnn does not fit .*four-pixels \(1x4x4 images, 10 classes\): layer 2 \(conv2d\)",
     "train: a preset whose layers do not fit the images"),
    # the check comes before the load that would find the damage further in
    (["train", "--model", "flatten; dense 4 softmax", "--dataset", win(cut)],
     r"--model does not fit .*cut-images", "train: the model is checked before the data loads"),
    (["train", "--model", "flatten; dense 3 softmax", "--dataset", win(npz_file)],
     r"--model does not fit .*tiny\.npz \(1x28x28 images, 10 classes\)",
     "train: an .npz data set is checked by its .npy headers"),
    (["reproduce", "--dataset", win(twelve), "--out-dir", win(os.path.join(TMP, "repro-12"))],
     r"preset mlp-small \(one of all; --presets chooses\) does not fit .*12 classes",
     "reproduce: the default presets against the data set"),
    (["reproduce", "--presets", "mlp-small,cnn", "--dataset", win(small4),
      "--out-dir", win(os.path.join(TMP, "repro-4"))],
     r"--presets: cnn does not fit .*1x4x4 images", "reproduce: each preset of --presets"),
    (["reproduce", "--presets", "mlp-small", "--dataset", DATA,
      "--out-dir", win(os.path.join(TMP, "notes.txt", "runs"))],
     r"--out-dir: cannot create the results folder: .*notes\.txt",
     "reproduce: an --out-dir that cannot be made"),
    (["evaluate", "--weights", weights_arg, "--dataset", win(small14)],
     r"--weights: .*run1\.tbw was trained on 1x28x28 images but .*fourteen-pixels has 1x14x14",
     "evaluate: weights for other images"),
    (["evaluate", "--weights", weights_arg, "--dataset", win(twelve)],
     r"--weights: the model in .*run1\.tbw has 10 outputs but .*twelve-classes has 12 classes",
     "evaluate: weights for fewer classes"),
]
with open(os.path.join(TMP, "notes.txt"), "w") as f:
    f.write("a file, not a folder")
fake_module = os.environ.get("TRAINBENCH_FAKE_CUDA_MODULE", "")
if fake_module:
    no_driver = {"TRAINBENCH_CUDA_MODULE": win(fake_module),
                 "FAKE_CUDA_REASON": "no NVIDIA driver (libcuda.so.1: cannot open shared object "
                                     "file)"}
    one_gpu = {"TRAINBENCH_CUDA_MODULE": win(fake_module), "FAKE_CUDA_DEVICES": "1"}
    two_gpus = {"TRAINBENCH_CUDA_MODULE": win(fake_module), "FAKE_CUDA_DEVICES": "2"}
    check_cases += [
        (["train", "--preset", "mlp-small", "--dataset", DATA, "--device", "cuda"],
         r"--device: cuda: no NVIDIA driver \(libcuda\.so\.1: cannot open shared object file\)",
         "train --device cuda without a usable GPU says why", no_driver),
        (["train", "--preset", "mlp-small", "--dataset", DATA, "--device", "cuda:3"],
         r"--device: cuda:3: no such device; this machine has 1 GPU \(cuda:0\)",
         "train --device cuda:3 with one GPU", one_gpu),
        (["reproduce", "--presets", "mlp-small", "--dataset", DATA, "--devices", "cpu,cuda:2",
          "--out-dir", win(os.path.join(TMP, "repro-gpu"))],
         r"--devices: cuda:2: no such device; this machine has 2 GPUs \(cuda:0 to cuda:1\)",
         "reproduce --devices with a GPU that is not there", two_gpus),
        (["evaluate", "--weights", weights_arg, "--dataset", DATA, "--device", "gpu"],
         r"--device: gpu: no NVIDIA driver", "evaluate --device as typed", no_driver),
    ]
for case in check_cases:
    args, pattern, name = case[:3]
    env = case[3] if len(case) > 3 else None
    if args[0] == "train":
        args = args + ["--epochs", "1", "--out", win(checks_out)]
    before = run_files()
    rc, out, err = cli(*args, env=env)
    out_dir = args[args.index("--out-dir") + 1] if "--out-dir" in args else None
    ok(rc == 2 and re.search(pattern, err) and "--help" in err and "result (" not in out
       and not os.path.exists(checks_out) and run_files() == before
       and (out_dir is None or not os.path.isdir(unwin(out_dir))),
       "checked before loading, exit 2, nothing recorded: " + name,
       "rc=%d\n" % rc + both(out, err))

# What the headers cannot show is found by the run, which records it.
cut_file = os.path.join(TMP, "cut.json")
rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", win(cut), "--epochs", "1",
                   "--out", win(cut_file))
doc = load_json(cut_file)
ok(rc == 1 and "truncated" in err and isinstance(doc, dict) and doc.get("status") == "failed"
   and "truncated" in (doc.get("error") or ""),
   "a data set damaged past its headers fails the run, which leaves a failed result",
   both(out, err) + "\n" + str(doc)[:1000])
npz_out = os.path.join(TMP, "npz.json")
rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", win(npz_file), "--epochs", "1",
                   "--max-steps", "3", "--out", win(npz_out), "--quiet")
doc = load_json(npz_out)
ok(rc == 0 and isinstance(doc, dict) and doc.get("status") == "completed",
   "a model that fits an .npz data set trains on it", both(out, err))

# ------------------------------------------------------------------ --out and --save-weights targets

# A link is followed (the file it points to is replaced, the link stays); a
# FIFO that a program reads is written through, never replaced by a file.
if not WINDOWS:
    import threading
    real = os.path.join(TMP, "real-result.json")
    link = os.path.join(TMP, "link-result.json")
    wreal = os.path.join(TMP, "real.tbw")
    wlink = os.path.join(TMP, "link.tbw")
    with open(real, "w") as f:
        f.write("old")
    os.symlink("real-result.json", link)
    os.symlink("real.tbw", wlink)
    rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--max-steps", "2",
                       "--epochs", "1", "--out", link, "--save-weights", wlink, "--quiet")
    doc = load_json(real)
    ok(rc == 0 and os.path.islink(link) and os.path.islink(wlink) and isinstance(doc, dict)
       and os.path.isfile(wreal) and not os.path.islink(wreal),
       "--out and --save-weights through links write the files they point to; the links stay",
       both(out, err))

    fifo = os.path.join(TMP, "result.fifo")
    os.mkfifo(fifo)
    got = []

    def read_fifo():
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read_fifo, daemon=True)
    reader.start()
    time.sleep(0.2)
    rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--max-steps", "2",
                       "--epochs", "1", "--out", fifo, "--quiet", timeout=120)
    reader.join(10)
    text = got[0].decode("utf-8", "replace") if got else ""
    ok(rc == 0 and text.startswith("{") and '"schema"' in text
       and stat.S_ISFIFO(os.lstat(fifo).st_mode),
       "--out FIFO: the result goes through the pipe, which stays a FIFO",
       "rc=%d %r\n" % (rc, text[:200]) + both(out, err))
    if not reader.is_alive():
        rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--max-steps",
                           "2", "--epochs", "1", "--out", fifo, "--quiet", timeout=120)
        ok(rc == 1 and "nothing reads" in err and stat.S_ISFIFO(os.lstat(fifo).st_mode),
           "--out to a FIFO that nothing reads fails at once and leaves it", both(out, err))
# A file that cannot be written once the run is over (its folder would be
# under a file): the option is named.
gone = os.path.join(TMP, "notes.txt")
rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--max-steps", "2",
                   "--epochs", "1", "--out", win(os.path.join(gone, "r.json")),
                   "--save-weights", win(os.path.join(gone, "w.tbw")), "--quiet")
ok(rc == 1 and "--out: cannot write the result file: " in err and "notes.txt" in err
   and "--save-weights: cannot save the weights: " in err,
   "--out and --save-weights that cannot be written are named", both(out, err))
rc, out, err = cli("train", "--help")
ok(rc == 0 and "symbolic link is followed" in out and "written through" in out,
   "train --help says what --out and --save-weights do with links and devices", both(out, err))

# ------------------------------------------------------------------ memory

# What a run needs is checked against the memory there is before anything is
# allocated: a batch too large fails at once with a message and a result
# file (it used to allocate until the kernel's OOM killer ended it).
mem_file = os.path.join(TMP, "memory.json")
start = time.monotonic()
rc, out, err = cli("train", "--preset", "cnn", "--dataset", DATA, "--batch-size", "4096",
                   "--max-steps", "1", "--out", win(mem_file),
                   env={"TRAINBENCH_MEMORY_LIMIT": "256M"}, timeout=300)
seconds = time.monotonic() - start
doc = load_json(mem_file)
ok(rc == 1 and "does not fit in memory" in err and "smaller batch" in err
   and isinstance(doc, dict) and doc.get("status") == "failed"
   and "does not fit in memory" in (doc.get("error") or ""),
   "a batch too large for the memory (TRAINBENCH_MEMORY_LIMIT) fails at once with a result "
   "(%.1f s)" % seconds, both(out, err))

# TRAINBENCH_MEMORY_LIMIT as people write it is a limit (each unit a power of
# 1024), and a value that is no size is refused naming the variable, before
# anything runs: each was once taken as no limit at all.
for limit in ("256m", "256mb", "256 M", "0.25 GiB"):
    mem_file = os.path.join(TMP, "memory-%s.json" % limit.replace(" ", "_"))
    rc, out, err = cli("train", "--preset", "cnn", "--dataset", DATA, "--batch-size", "4096",
                       "--max-steps", "1", "--out", win(mem_file),
                       env={"TRAINBENCH_MEMORY_LIMIT": limit}, timeout=300)
    doc = load_json(mem_file)
    ok(rc == 1 and "TRAINBENCH_MEMORY_LIMIT is 256.0 MiB" in err and isinstance(doc, dict)
       and doc.get("status") == "failed",
       "TRAINBENCH_MEMORY_LIMIT=%s is a limit of 256 MiB" % limit, both(out, err))
for limit, why in (("8,5G", "has a comma"), ("1,5G", "has a comma"), ("1P", "unknown unit 'P'"),
                   ("8 gigs", "unknown unit 'gigs'")):
    for command in (["train", "--preset", "mlp-small", "--dataset", DATA, "--epochs", "1",
                     "--out", win(os.path.join(TMP, "refused.json"))],
                    ["reproduce", "--presets", "mlp-small", "--devices", "cpu", "--dataset", DATA,
                     "--out-dir", win(os.path.join(TMP, "refused"))],
                    ["sweep", "--data", DATA, "--devices", "cpu",
                     "--out-dir", win(os.path.join(TMP, "refused"))]):
        rc, out, err = cli(*command, env={"TRAINBENCH_MEMORY_LIMIT": limit})
        ok(rc == 2 and ("TRAINBENCH_MEMORY_LIMIT: '%s'" % limit) in err and why in err
           and not os.path.exists(os.path.join(TMP, "refused.json"))
           and not os.path.exists(os.path.join(TMP, "refused")),
           "%s: TRAINBENCH_MEMORY_LIMIT=%s is refused before anything runs, naming it"
           % (command[0], limit), both(out, err))
rc, out, err = cli("sysinfo", env={"TRAINBENCH_MEMORY_LIMIT": "8 G"})
ok(rc == 0 and re.search(r"^limit +8\.0 GiB for a run \(TRAINBENCH_MEMORY_LIMIT\)$", out, re.M),
   "sysinfo shows the limit as it is read", both(out, err))


def mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


avail = mem_available()
if not WINDOWS and avail is not None and avail < 30 << 30:
    # the cnn at batch 65536 needs about 37 GiB
    mem_file = os.path.join(TMP, "memory-65536.json")
    rc, out, err = cli("train", "--preset", "cnn", "--dataset", DATA, "--batch-size", "65536",
                       "--max-steps", "1", "--out", mem_file, timeout=300)
    doc = load_json(mem_file)
    ok(rc == 1 and "does not fit in memory" in err and isinstance(doc, dict)
       and doc.get("status") == "failed",
       "train --preset cnn --batch-size 65536 fails at once, saying why", both(out, err))

# ------------------------------------------------------------------ CPU runs and the CUDA module

# A CPU run never loads the CUDA module: a broken one (the fake module ends
# the process when asked for its table) or one whose file never opens (a
# FIFO: dlopen would wait forever) changes nothing for it.
fake_module = os.environ.get("TRAINBENCH_FAKE_CUDA_MODULE", "")
if fake_module:
    broken_file = os.path.join(TMP, "broken-module.json")
    rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--device", "cpu",
                       "--max-steps", "3", "--epochs", "1", "--out", win(broken_file),
                       env={"TRAINBENCH_CUDA_MODULE": win(fake_module), "FAKE_CUDA_ABORT": "1"},
                       timeout=120)
    doc = load_json(broken_file)
    ok(rc == 0 and isinstance(doc, dict) and doc.get("status") == "completed",
       "a CPU run completes and writes its result beside a broken CUDA module",
       "rc=%d\n" % rc + both(out, err))
if not WINDOWS:
    fifo = os.path.join(TMP, "wedged-module.so")
    os.mkfifo(fifo)
    wedged_file = os.path.join(TMP, "wedged-module.json")
    try:
        rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA,
                           "--max-steps", "3", "--epochs", "1", "--out", win(wedged_file),
                           env={"TRAINBENCH_CUDA_MODULE": fifo}, timeout=60)
    except subprocess.TimeoutExpired:
        rc, out, err = -1, "", "timed out"
    doc = load_json(wedged_file)
    ok(rc == 0 and isinstance(doc, dict) and doc.get("status") == "completed",
       "a CPU run completes beside a CUDA module that never opens",
       "rc=%d\n" % rc + both(out, err))

# ------------------------------------------------------------------ failing runs (exit 1)

# A label of 255 in a 10-class file is named with its file and sample, not
# taken for 256 classes. The labels look damaged: that is the data set's
# fault, found as the run loads it, and recorded as a failed run.

bad_labels = os.path.join(TMP, "label255")
shutil.copytree(DATA_DIR, bad_labels)
with gzip.open(os.path.join(bad_labels, "train-labels-idx1-ubyte.gz"), "rb") as f:
    raw = bytearray(f.read())
raw[8 + 17] = 255
with gzip.open(os.path.join(bad_labels, "train-labels-idx1-ubyte.gz"), "wb") as f:
    f.write(bytes(raw))
rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", win(bad_labels), "--epochs", "1",
                   "--out", win(os.path.join(TMP, "label255.json")))
doc = load_json(os.path.join(TMP, "label255.json"))
ok(rc == 1 and "train-labels-idx1-ubyte" in err and "sample 17" in err and "label 255" in err
   and "dense 256" not in err and isinstance(doc, dict) and doc.get("status") == "failed",
   "a damaged label is named with its file and sample, in a failed result", both(out, err))

if not WINDOWS:
    loop = os.path.join(TMP, "loop")
    os.symlink(loop, loop)
    rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", loop, "--epochs", "1",
                       "--out", os.path.join(TMP, "loop.json"))
    ok(rc == 2 and "--dataset: " in err and "symbolic links" in err and "No such file" not in err
       and not os.path.exists(os.path.join(TMP, "loop.json")),
       "a loop of symbolic links as the data set is called that, not a missing file",
       both(out, err))
    loop_idx = os.path.join(TMP, "loop-idx")
    shutil.copytree(DATA_DIR, loop_idx)
    os.remove(os.path.join(loop_idx, "t10k-images-idx3-ubyte.gz"))
    os.symlink("t10k-images-idx3-ubyte.gz", os.path.join(loop_idx, "t10k-images-idx3-ubyte.gz"))
    rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", loop_idx, "--epochs", "1",
                       "--out", os.path.join(TMP, "loop-idx.json"))
    ok(rc == 2 and "t10k-images-idx3-ubyte.gz: Too many levels of symbolic links" in err,
       "a loop of links among the IDX files is named as that", both(out, err))

rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", win(os.path.join(TMP, "nowhere")),
                   "--epochs", "1", "--out", win(os.path.join(TMP, "nodata.json")))
ok(rc == 2 and "--dataset: " in err and "nowhere" in err
   and not os.path.exists(os.path.join(TMP, "nodata.json")),
   "a data set that is not there is a usage error naming --dataset and the path, with no "
   "result file", both(out, err))

# ------------------------------------------------------------------ a reader that stops reading

# `train ... | head`, `| grep -m1`, a dead tee or ssh: the reader closes its
# end of the pipe once it has the first epoch's line (the CLI is paused
# while it does, so the rest of the run's output comes after). The run goes
# on, saves its result and exits with the run's status, 0; SIGPIPE once
# ended it with 141 after that epoch, and no result file. With stderr in
# the same pipe (2>&1 | head) nothing more can be written at all.
def closed_after(args, first_line, merged=False, timeout=300):
    proc = subprocess.Popen(COMMAND + args, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                            env=ENV, cwd=TMP)
    got = []
    while True:
        line = proc.stdout.readline()
        got.append(line)
        if not line or re.match(first_line, line.decode("utf-8", "replace")):
            break
    paused = proc.poll() is None and not native_windows
    if paused:
        os.kill(proc.pid, signal.SIGSTOP)
    proc.stdout.close()
    if paused:
        os.kill(proc.pid, signal.SIGCONT)
    err = b"" if merged else proc.stderr.read()
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    return rc, b"".join(got).decode("utf-8", "replace"), err.decode("utf-8", "replace")


native_windows = os.name == "nt"
for merged in (False, True):
    piped_file = os.path.join(TMP, "piped-%d.json" % merged)
    rc, out, err = closed_after(["train", "--preset", "mlp-small", "--dataset", DATA,
                                 "--epochs", "3", "--limit-train", "500", "--limit-test", "100",
                                 "--threads", "2", "--out", win(piped_file)],
                                r"epoch 1/3 +[\d.]+ s ", merged=merged)
    doc = load_json(piped_file)
    ok(rc == 0 and isinstance(doc, dict) and doc.get("status") == "completed"
       and len(doc.get("epochs") or []) == 3
       and (merged or "standard output could not be written" in err),
       "train whose reader closes the pipe after the first epoch%s goes on, saves its "
       "completed result and exits 0%s" % (" (stdout and stderr)" if merged else "",
                                            "" if merged else ", saying so on stderr"),
       "rc=%s\n" % rc + both(out, err) + "\n" + str(doc)[:500])
piped_dir = os.path.join(TMP, "repro-piped")
rc, out, err = closed_after(["reproduce", "--presets", "mlp-small", "--devices", "cpu",
                             "--epochs", "3", "--dataset", DATA, "--limit-train", "300",
                             "--limit-test", "100", "--out-dir", win(piped_dir)],
                            r"\[1/1\] epoch 1/3 +[\d.]+ s ")
files = sorted(f for f in os.listdir(piped_dir) if f.endswith(".json")) \
    if os.path.isdir(piped_dir) else []
docs = [load_json(os.path.join(piped_dir, f)) for f in files]
ok(rc == 0 and len(docs) == 1 and isinstance(docs[0], dict)
   and docs[0].get("status") == "completed",
   "reproduce whose reader closes the pipe after the first epoch goes on, saves its result "
   "and exits 0", "rc=%s\n" % rc + both(out, err) + "\n" + str(docs)[:500])

# ------------------------------------------------------------------ a runs folder that cannot take the result

# A runs folder that is not a folder (or is read-only, or full) refuses the
# run before it loads anything, said once; a runs folder that stops taking
# files while the run trains (here: moved away and a file put in its place)
# leaves the finished result in the temporary folder, said so, never lost.
blocked_home = os.path.join(TMP, "blocked-xdg")
os.makedirs(blocked_home)
open(os.path.join(blocked_home, "trainbench"), "w").write("not a folder")
rc, out, err = cli("train", "--preset", "mlp-small", "--dataset", DATA, "--epochs", "1",
                   "--limit-train", "300", "--limit-test", "100", "--quiet",
                   env={"XDG_DATA_HOME": win(blocked_home)})
ok(rc == 2 and err.count("is not a folder") == 1 and "nowhere to go" in err
   and "the run failed" not in err,
   "a runs folder that is a file refuses the run before it starts, saying why once",
   both(out, err))

if not WINDOWS:
    moving_home = os.path.join(TMP, "moving-xdg")
    spare = os.path.join(TMP, "spare-tmp")
    os.makedirs(os.path.join(moving_home, "trainbench", "runs"))
    os.makedirs(spare)
    proc = subprocess.Popen(COMMAND + ["train", "--preset", "mlp-small", "--dataset", DATA,
                                       "--epochs", "3", "--limit-train", "500",
                                       "--limit-test", "100", "--threads", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=TMP,
                            env=dict(ENV, XDG_DATA_HOME=moving_home, TMPDIR=spare),
                            universal_newlines=True)
    lines = []
    while True:
        line = proc.stdout.readline()
        lines.append(line)
        if not line or line.startswith("epoch 1/3 "):
            break
    os.kill(proc.pid, signal.SIGSTOP)
    runs_folder = os.path.join(moving_home, "trainbench", "runs")
    os.rename(runs_folder, runs_folder + "-moved")
    open(runs_folder, "w").write("not a folder any more")
    os.kill(proc.pid, signal.SIGCONT)
    rest, err = proc.communicate(timeout=300)
    saved = [f for f in os.listdir(spare) if f.startswith("trainbench-") and f.endswith(".json")]
    doc = load_json(os.path.join(spare, saved[0])) if len(saved) == 1 else None
    ok(proc.returncode == 1 and isinstance(doc, dict) and doc.get("status") == "completed"
       and len(doc.get("epochs") or []) == 3 and "cannot write the result file" in err
       and os.path.join(spare, saved[0]) in err,
       "a runs folder that stops taking files while the run trains: the result is saved in "
       "the temporary folder, and the message says where",
       "rc=%s\n" % proc.returncode + both("".join(lines) + rest, err) + "\n" + str(saved))

# ------------------------------------------------------------------ Ctrl-C, SIGTERM, SIGHUP

# SIGINT on Linux. Under wine the same signal to the wine process reaches
# the program as a console CTRL_C_EVENT (wine 8 turns SIGINT into one for a
# console program), so this checks its SetConsoleCtrlHandler path. On
# Windows itself Python can only send Ctrl-Break, to a process group of its
# own, which the CLI handles the same way. SIGTERM (timeout, systemctl stop,
# CI cancelling a job) and SIGHUP (the terminal going away) stop a run as
# Ctrl-C does: POSIX only, wine turns neither into a console event.


def stop_during_training(sig, name):
    cancel_file = os.path.join(TMP, "cancel-%s.json" % name)
    proc = subprocess.Popen(COMMAND + ["train", "--preset", "mlp-wide", "--dataset", DATA,
                                       "--epochs", "100000", "--threads", "2",
                                       "--out", win(cancel_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, cwd=TMP,
                            universal_newlines=True,
                            creationflags=subprocess.CREATE_NEW_PROCESS_GROUP if native_windows
                            else 0)
    started = False
    deadline = time.monotonic() + 120
    lines = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("epoch "):
            started = True
            break
    if started:
        proc.send_signal(sig)
    try:
        rest, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rest, err = proc.communicate()
    out = "".join(lines) + rest
    doc = load_json(cancel_file)
    ok(started and proc.returncode == 1 and isinstance(doc, dict)
       and doc.get("status") == "cancelled",
       "%s during training saves a cancelled result and exits 1" % name,
       "rc=%s\n" % proc.returncode + both(out, err) + "\n" + str(doc)[:1000])


stop_during_training(signal.CTRL_BREAK_EVENT if native_windows else signal.SIGINT, "Ctrl-C")
if not WINDOWS:
    stop_during_training(signal.SIGTERM, "SIGTERM")
    stop_during_training(signal.SIGHUP, "SIGHUP")

print("1..%d" % len(results))
passed = sum(results)
diag("%d passed, %d failed" % (passed, len(results) - passed))
shutil.rmtree(TMP, ignore_errors=True)
sys.exit(0 if passed == len(results) else 1)
