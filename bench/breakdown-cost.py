#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What measuring the breakdown costs: each preset with --breakdown on and
off, taking turns, --repeat rounds, on the CPU with --threads threads or on
a GPU (--device cuda:0).

The figure is each run's median step time (steps.seconds_median of its
result file; the evaluation, on the first 1000 test samples, is apart
from it); the cost is the median over rounds of on / off - 1. The
measurement reads a monotonic clock twice per op on the training thread
(about 40 reads a step of mlp-small), so it should cost well under 2 %. On a GPU it also times each launch of
a step or a replayed graph with a pair of CUDA events.
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed from the environment,
so the engine chooses OpenBLAS's kernels as it does for every user.

  bench/breakdown-cost.py --cli build-rel/cli/trainbench-cli \\
      --data /usr/share/datasets/fashion-mnist --threads 2 --repeat 5 \\
      --label local2core-breakdown-2026-12-03

Writes bench/results/<label>.jsonl (every run with its command) and
<label>.md (medians and the cost).
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cli, preset, data, device, threads, steps, breakdown, env):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = [cli, "train", "--preset", preset, "--dataset", data, "--epochs", "1",
               "--device", device, "--breakdown", breakdown, "--limit-test", "1000",
               "--quiet", "--out", out]
        cmd += ["--threads", str(threads)] if device == "cpu" else ["--tf32", "on"]
        if steps:
            cmd += ["--max-steps", str(steps)]
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        with open(out) as f:
            doc = json.load(f)
    return cmd, doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--device", default="cpu", help="cpu (default) or cuda:N")
    ap.add_argument("--threads", type=int, default=2, help="the CPU's threads")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--presets", default="mlp-small:0,cnn:30",
                    help="PRESET:MAX_STEPS,... (0: a whole epoch)")
    ap.add_argument("--label", required=True)
    args = ap.parse_args()

    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    rows, lines = [], []
    for item in args.presets.split(","):
        preset, steps = item.split(":")
        on, off = [], []
        for r in range(args.repeat):
            # take turns, the order swapped each round
            for mode in (("on", "off") if r % 2 == 0 else ("off", "on")):
                cmd, doc = run(args.cli, preset, args.data, args.device, args.threads,
                               int(steps), mode, env)
                median = doc["steps"]["seconds_median"]
                (on if mode == "on" else off).append(median)
                lines.append(json.dumps({"preset": preset, "breakdown": mode, "round": r,
                                         "seconds_median": median,
                                         "breakdown_field": doc.get("breakdown"),
                                         "command": " ".join(cmd)}))
                print("%s %s round %d: %.6f s/step" % (preset, mode, r, median), flush=True)
        ratios = [a / b - 1 for a, b in zip(on, off)]
        rows.append((preset, statistics.median(off), statistics.median(on),
                     statistics.median(ratios), min(ratios), max(ratios)))

    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    base = os.path.join(HERE, "results", args.label)
    with open(base + ".jsonl", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(base + ".md", "w") as f:
        f.write("# Cost of measuring the breakdown (%s)\n\n" % datetime.date.today())
        f.write("`%s`\n\n" % " ".join([os.path.relpath(sys.argv[0], os.path.dirname(HERE))]
                                      + sys.argv[1:]))
        where = ("%d threads" % args.threads if args.device == "cpu"
                 else "%s, TF32 on" % args.device)
        f.write("%s, %d rounds, on and off taking turns; median step time of each run "
                "(steps.seconds_median); OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset.\n\n"
                % (where, args.repeat))
        f.write("| preset | off s/step | on s/step | on/off - 1 (median) | min | max |\n")
        f.write("| --- | --- | --- | --- | --- | --- |\n")
        for p, off_m, on_m, med, lo, hi in rows:
            f.write("| %s | %.6f | %.6f | %+.2f %% | %+.2f %% | %+.2f %% |\n"
                    % (p, off_m, on_m, 100 * med, 100 * lo, 100 * hi))
    print(open(base + ".md").read())


if __name__ == "__main__":
    main()
