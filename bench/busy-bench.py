#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Training beside busy programs: Trainbench and PyTorch, idle and busy.

A desktop always has other programs running. This times each preset on a
set of cores (--cpus), once with those cores idle and once with as many
busy processes (an endless loop each) as there are cores in the set, all
pinned to the same cores, for Trainbench's CLI (and, with --cli-before, an
older build of it) and for PyTorch (--peer torch_seed_models.py), taking
turns, --repeat rounds. The training threads are as many as the cores.

Each figure is the training time of --steps steps (evaluation excluded):
Trainbench's epoch seconds with --max-steps, PyTorch's step time times its
steps (its script times a fixed number of steps the same way). A fair
share beside as many busy processes as cores is half the machine, so a
run that takes 2x its idle time is fair; the goal is at most about 2.5x,
and not to fall further behind PyTorch than idle.

  bench/busy-bench.py --cli build/cli/trainbench-cli \\
      --peer bench/peers/torch_seed_models.py \\
      --data /usr/share/datasets/fashion-mnist --cpus 0,1 --repeat 3 \\
      --label h200host-cpu-busy-2026-12-02

Writes bench/results/<label>.jsonl (every run with its command) and
<label>.md (medians and ratios).
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
import time

PRESETS = ["mlp-small", "mlp-wide", "cnn"]
PEER_NAMES = {"mlp-small": "mlp_small", "mlp-wide": "mlp_wide", "cnn": "cnn"}
DEFAULT_STEPS = "mlp-small=1875,mlp-wide=600,cnn=40"


def pinned(cpus):
    return lambda: os.sched_setaffinity(0, cpus)


def start_busy(count, cpus):
    """`count` processes that spin forever on `cpus`."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             preexec_fn=pinned(cpus)) for _ in range(count)]


def stop(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def run_trainbench(cli, a, preset, steps, threads, cpus):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [cli, "train", "--preset", preset, "--dataset", a.data, "--epochs", "1",
               "--threads", str(threads), "--max-steps", str(steps), "--limit-test", "1000",
               "--out", out, "--quiet"]
        p = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=pinned(cpus))
        row = dict(command=" ".join(shlex.quote(c) for c in cmd), exit=p.returncode)
        if p.returncode != 0:
            row["error"] = (p.stdout + p.stderr)[-2000:]
            return row
        with open(out) as f:
            result = json.load(f)
        row.update(seconds=round(result["epochs"][0]["seconds"], 4),
                   step_ms_median=round(result["steps"]["seconds_median"] * 1e3, 4),
                   step_ms_p90=round(result["steps"]["seconds_p90"] * 1e3, 4),
                   steps=result["steps"]["count"], blas=result["system"].get("blas"))
        return row


def run_peer(a, preset, steps, threads, cpus):
    cmd = [sys.executable, a.peer, a.data, "--models", PEER_NAMES[preset], "--devices", "cpu",
           "--threads", str(threads), "--cpu-steps", str(steps)]
    p = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=pinned(cpus))
    row = dict(command=" ".join(shlex.quote(c) for c in cmd), exit=p.returncode)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        row["error"] = (p.stdout + p.stderr)[-2000:]
        return row
    r = json.loads(lines[-1])
    row.update(seconds=round(r["step_ms"] * r["steps_timed"] / 1e3, 4),
               step_ms_mean=r["step_ms"], steps=r["steps_timed"], torch=r.get("torch"))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="trainbench-cli")
    ap.add_argument("--cli-before", help="an older trainbench-cli to compare with")
    ap.add_argument("--peer", help="torch_seed_models.py; omitted: no PyTorch runs")
    ap.add_argument("--data", required=True, help="a folder with the four IDX .gz files")
    ap.add_argument("--cpus", default="0,1", help="the cores everything runs on")
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--steps", default=DEFAULT_STEPS, help="steps timed per preset")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--label", required=True)
    ap.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results"))
    a = ap.parse_args()

    cpus = {int(c) for c in a.cpus.split(",")}
    threads = len(cpus)
    steps = dict(kv.split("=") for kv in a.steps.split(","))
    engines = [("trainbench", a.cli)]
    if a.cli_before:
        engines.append(("trainbench-before", a.cli_before))
    if a.peer:
        engines.append(("pytorch", None))
    presets = a.presets.split(",")

    os.makedirs(a.results, exist_ok=True)
    jsonl = os.path.join(a.results, a.label + ".jsonl")
    machine = dict(host=platform.node(), cpus=sorted(cpus), cores_online=os.cpu_count(),
                   date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   bench_command=" ".join(shlex.quote(c) for c in sys.argv))
    rows = []
    with open(jsonl, "w") as f:
        f.write(json.dumps(dict(machine=machine)) + "\n")
        for r in range(a.repeat):
            for preset in presets:
                n = int(steps[preset])
                # idle and busy in turn, the order swapped every round
                for busy in ([0, threads] if r % 2 == 0 else [threads, 0]):
                    for engine, cli in engines:
                        procs = start_busy(busy, cpus)
                        time.sleep(0.5)  # the busy loops running before training starts
                        try:
                            if engine == "pytorch":
                                row = run_peer(a, preset, n, threads, cpus)
                            else:
                                row = run_trainbench(cli, a, preset, n, threads, cpus)
                        finally:
                            stop(procs)
                        row.update(engine=engine, preset=preset, busy=busy, threads=threads,
                                   round=r + 1)
                        rows.append(row)
                        f.write(json.dumps(row) + "\n")
                        f.flush()
                        print(json.dumps({k: row.get(k) for k in
                                          ("engine", "preset", "busy", "round", "seconds",
                                           "error")}), flush=True)

    def med(engine, preset, busy):
        v = [x["seconds"] for x in rows if x["engine"] == engine and x["preset"] == preset
             and x["busy"] == busy and "seconds" in x]
        return statistics.median(v) if v else None

    lines = [f"# {a.label}: training beside busy programs", "",
             f"Measured {machine['date']} on {machine['host']} ({machine['cores_online']} cores "
             f"online), everything pinned to cores {a.cpus}: {threads} training threads, "
             f"and {threads} busy processes (`python3 -c 'while True: pass'`) in the busy runs.",
             "", f"Command: `{machine['bench_command']}`", "",
             f"Training seconds of a fixed number of steps ({a.steps}; evaluation excluded), "
             f"medians of {a.repeat} rounds, idle and busy taking turns. Every run with its "
             f"command is in `{a.label}.jsonl`.", "",
             "| preset | engine | idle s | busy s | busy / idle |",
             "| --- | --- | --- | --- | --- |"]
    for preset in presets:
        for engine, _ in engines:
            idle, busy = med(engine, preset, 0), med(engine, preset, threads)
            ratio = f"{busy / idle:.2f}" if idle and busy else "-"
            lines.append(f"| {preset} | {engine} | {idle if idle is not None else '-'} | "
                         f"{busy if busy is not None else '-'} | {ratio} |")
    if a.peer:
        lines += ["", "Trainbench against PyTorch (PyTorch's time / Trainbench's: how many "
                  "times faster Trainbench is):", "",
                  "| preset | idle | busy |", "| --- | --- | --- |"]
        for preset in presets:
            cells = []
            for busy in (0, threads):
                t, p = med("trainbench", preset, busy), med("pytorch", preset, busy)
                cells.append(f"{p / t:.2f}x" if t and p else "-")
            lines.append(f"| {preset} | {cells[0]} | {cells[1]} |")
    with open(os.path.join(a.results, a.label + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
