#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What each of the articles' conditions costs, on one machine.

A 2017-2019 Keras/TensorFlow GPU run fed every batch from host memory
(feed_dict), launched every op of a step itself, read the loss back after
every batch and ran no fused kernels. trainbench-cli reproduces each of
those as a switch (--data-on, --graph, --loss-every-step, --fusion; all
four: --conditions article). This script trains each preset on the CPU and
on the GPU with the default conditions, each switch alone and all four, N
steps each, and writes a table: seconds per step (the run's median step)
and per epoch (that times the epoch's steps), the GPU's time over the
CPU's, each switch's time over the default's, and which switch costs most.

  bench/article-conditions.py --cli build/cli/trainbench-cli \\
      --data /usr/share/datasets/fashion-mnist --label h200 --steps 200

Without a usable GPU it measures the CPU rows only and says why. Every run
is in the .jsonl with its command; the .md repeats this script's command.
Writes bench/results/LABEL-article-conditions-DATE.{md,jsonl} (--out-dir).
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile

PRESETS = ["mlp-small", "mlp-wide", "cnn"]
# The training set's size the epoch estimate assumes when a result does not
# say it (MNIST and Fashion-MNIST).
TRAIN_SAMPLES = 60000
BATCH = {"mlp-small": 32, "mlp-wide": 32, "cnn": 256}

# (name, options): the default, each switch alone, all four.
CONDITIONS = [
    ("default", []),
    ("data pinned", ["--data-on", "pinned"]),
    ("data pageable", ["--data-on", "pageable"]),
    ("graph off", ["--graph", "off"]),
    ("loss every step", ["--loss-every-step", "on"]),
    ("fusion off", ["--fusion", "off"]),
    ("article (all four)", ["--conditions", "article"]),
]


def quoted(cmd):
    return " ".join(shlex.quote(c) for c in cmd)


def usable_gpu(cli):
    """'cuda:0' when trainbench-cli lists a usable CUDA device, else None and why."""
    try:
        p = subprocess.run([cli, "devices"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "trainbench-cli devices failed: %s" % e
    reason = "no CUDA device listed"
    for line in p.stdout.splitlines():
        words = line.split()
        if not words or not words[0].startswith("cuda"):
            continue
        if "not usable" in line:
            reason = line.split("not usable:", 1)[-1].strip() or line.strip()
            continue
        return (words[0] if ":" in words[0] else "cuda:0"), None
    return None, reason


def train(cli, preset, device, options, args, outdir, index):
    out = os.path.join(outdir, "%s-%s-%d.json" % (preset, device.replace(":", ""), index))
    cmd = [cli, "train", "--preset", preset, "--device", device, "--epochs", "1",
           "--max-steps", str(args.steps), "--dataset", args.data, "--out", out, "--quiet"]
    if device == "cpu":
        cmd += ["--threads", str(args.threads)]
    else:
        cmd += ["--tf32", args.tf32]
    cmd += options
    row = dict(preset=preset, device=device, options=options, command=quoted(cmd))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        row.update(exit=None, error="timed out after %d s" % args.timeout)
        return row
    row["exit"] = p.returncode
    if p.returncode != 0 or not os.path.exists(out):
        row["error"] = (p.stderr or p.stdout).strip()[-2000:]
        return row
    with open(out) as f:
        result = json.load(f)
    steps = result.get("steps", {})
    epochs = result.get("epochs") or [{}]
    train_samples = result.get("dataset", {}).get("train_samples") or TRAIN_SAMPLES
    batch = result.get("hyper", {}).get("batch_size") or BATCH.get(preset, 32)
    step_s = steps.get("seconds_median")
    row.update(status=result.get("status"),
               conditions=result.get("conditions"),
               step_s=step_s, step_s_p10=steps.get("seconds_p10"),
               step_s_p90=steps.get("seconds_p90"), steps=steps.get("count"),
               steps_per_epoch=-(-train_samples // batch),
               epoch_s=step_s * -(-train_samples // batch) if step_s else None,
               train_loss=epochs[-1].get("train_loss"), test_loss=epochs[-1].get("test_loss"),
               device_name=result.get("device", {}).get("name"),
               blas_core=result.get("system", {}).get("blas", {}).get("core"))
    return row


def fmt(x, digits=3):
    if x is None:
        return "—"
    if x >= 1:
        return "%.*f" % (digits - 1, x)
    return "%.*g" % (digits, x)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="trainbench-cli")
    ap.add_argument("--data", required=True, help="data set name or path (Fashion-MNIST's IDX)")
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--devices", help="cpu,cuda:0 (default: the CPU and the first usable GPU)")
    ap.add_argument("--steps", type=int, default=200, help="training steps a run (default 200)")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")
    ap.add_argument("--tf32", default="on", help="the GPU runs' --tf32 (default on)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each, medians taken")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds a run may take")
    ap.add_argument("--label", default=platform.node() or "machine",
                    help="the machine's name in the file names")
    ap.add_argument("--out-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "results"))
    args = ap.parse_args()
    if args.steps < 1 or args.repeat < 1:
        ap.error("--steps and --repeat must be at least 1")
    if not os.access(args.cli, os.X_OK):
        ap.error("--cli: %s is not an executable" % args.cli)

    presets = [p for p in args.presets.split(",") if p]
    notes = []
    if args.devices:
        devices = [d for d in args.devices.split(",") if d]
    else:
        devices = ["cpu"]
        gpu, why = usable_gpu(args.cli)
        if gpu:
            devices.append(gpu)
        else:
            notes.append("No usable GPU (%s): CPU rows only." % why)
            print("article-conditions: no usable GPU (%s): CPU rows only" % why, file=sys.stderr)

    date = datetime.date.today().isoformat()
    os.makedirs(args.out_dir, exist_ok=True)
    base = os.path.join(args.out_dir, "%s-article-conditions-%s" % (args.label, date))
    rows = []
    total = len(presets) * len(devices) * len(CONDITIONS) * args.repeat
    done = 0
    with tempfile.TemporaryDirectory() as outdir, open(base + ".jsonl", "w") as jsonl:
        for preset in presets:
            for device in devices:
                for name, options in CONDITIONS:
                    for r in range(args.repeat):
                        done += 1
                        print("[%d/%d] %s on %s, %s" % (done, total, preset, device, name),
                              file=sys.stderr, flush=True)
                        row = train(args.cli, preset, device, options, args, outdir, done)
                        row.update(condition=name, repeat=r, label=args.label, date=date)
                        jsonl.write(json.dumps(row) + "\n")
                        jsonl.flush()
                        rows.append(row)

    def median(preset, device, name, key):
        xs = [r[key] for r in rows if r["preset"] == preset and r["device"] == device
              and r["condition"] == name and r.get(key) is not None]
        return statistics.median(xs) if xs else None

    def error(preset, device, name):
        for r in rows:
            if r["preset"] == preset and r["device"] == device and r["condition"] == name \
                    and r.get("error"):
                return r["error"].splitlines()[-1][:120]
        return None

    lines = ["# What each of the articles' conditions costs: %s, %s" % (args.label, date), "",
             "Command:", "", "```", quoted([sys.executable] + sys.argv), "```", "",
             "Each run: `trainbench-cli train --preset P --device D --epochs 1 --max-steps %d`"
             " with the options of its row; seconds per step is the run's median step, per"
             " epoch that times the epoch's steps. Machine: %s, Python %s."
             % (args.steps, platform.platform(), platform.python_version()), ""]
    lines += notes and [n for n in notes] + [""] or []
    gpu_devices = [d for d in devices if d != "cpu"]
    for preset in presets:
        lines += ["## %s" % preset, ""]
        header = "| conditions |"
        rule = "| --- |"
        for device in devices:
            header += " %s s/step | %s s/epoch | × default |" % (device, device)
            rule += " ---: | ---: | ---: |"
        if "cpu" in devices and gpu_devices:
            header += " GPU / CPU |"
            rule += " ---: |"
        header += " test loss |"
        rule += " ---: |"
        lines += [header, rule]
        for name, _ in CONDITIONS:
            line = "| %s |" % name
            for device in devices:
                step = median(preset, device, name, "step_s")
                epoch = median(preset, device, name, "epoch_s")
                base_step = median(preset, device, "default", "step_s")
                if step is None:
                    why = error(preset, device, name)
                    line += " failed%s | — | — |" % (": " + why.replace("|", "/") if why else "")
                    continue
                line += " %s | %s | %s |" % (fmt(step), fmt(epoch),
                                             "%.2f" % (step / base_step) if base_step else "—")
            if "cpu" in devices and gpu_devices:
                cpu = median(preset, "cpu", name, "step_s")
                gpu = median(preset, gpu_devices[0], name, "step_s")
                line += " %s |" % ("%.2f" % (gpu / cpu) if cpu and gpu else "—")
            losses = [median(preset, d, name, "test_loss") for d in devices]
            line += " %s |" % " / ".join(fmt(x, 4) for x in losses)
            lines.append(line)
        lines.append("")
        for device in devices:
            base_step = median(preset, device, "default", "step_s")
            costs = [(median(preset, device, n, "step_s") / base_step, n)
                     for n, _ in CONDITIONS[1:-1]
                     if base_step and median(preset, device, n, "step_s")]
            if costs:
                ratio, name = max(costs)
                lines.append("- %s on %s: the costliest switch is %s (%.2f× the default's step)"
                             % (preset, device, name, ratio))
        lines.append("")
    with open(base + ".md", "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    print("article-conditions: wrote %s.md and %s.jsonl" % (base, base), file=sys.stderr)
    failed = [r for r in rows if r.get("error")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
