#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Trainbench against PyTorch, in the same run on the same machine.

Runs each preset for one epoch with trainbench-cli and the PyTorch peer
(peers/torch_seed_models.py: the articles' three models in PyTorch)
on the same data and thread counts, and writes every figure, the exact
commands and the machine to bench/results/<label>.jsonl plus a readable
summary <label>.md.

  bench/bench.py --cli build/cli/trainbench-cli --data DATA_DIR --devices cpu \
      --threads 2,16 --peer PEER_SCRIPT --label h200host-cpu

DATA_DIR holds the four IDX .gz files (Fashion-MNIST works). With
--repeat N every run, ours and the peer's, is made N times, taking turns,
and the table gives each one's median: on the GPU machine one run moved
by up to 18 % from the next (PyTorch's cnn 0.499-0.590 s over three runs,
bench/results/h200-gpu-2026-12-01.md), more than some of the margins
measured.
Every run is in the .jsonl, with its index.
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
PEER_NAME = {"mlp-small": "mlp_small", "mlp-wide": "mlp_wide", "cnn": "cnn"}


class Finished:
    """What a finished command left: exit status, output, peak memory."""

    def __init__(self, returncode, stdout, stderr, max_rss_bytes):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.max_rss_bytes = max_rss_bytes


def run(cmd):
    """Run cmd; its own peak resident memory comes from wait4's rusage."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return Finished(p.returncode, out.read(), err.read(), usage.ru_maxrss * 1024)


def ours(cli, preset, device, threads, data, extra, outdir, epochs):
    out = os.path.join(outdir, f"{preset}-{device.replace(':', '')}-{threads}.json")
    cmd = [cli, "train", "--preset", preset, "--device", device, "--epochs", str(epochs),
           "--dataset", data, "--out", out, "--quiet"] + extra
    if device == "cpu":
        cmd += ["--threads", str(threads)]
    p = run(cmd)
    row = dict(engine="trainbench", preset=preset, device=device,
               threads=threads if device == "cpu" else None,
               command=" ".join(shlex.quote(c) for c in cmd), exit=p.returncode)
    if p.returncode != 0:
        row["error"] = (p.stderr or p.stdout).strip()[-2000:]
        return row
    with open(out) as f:
        result = json.load(f)
    # epoch_s is the last epoch: the peer, too, times steps after its
    # warm-up; the first epoch (warm-up and graph capture included) is kept.
    first, last = result["epochs"][0], result["epochs"][-1]
    row.update(epoch_s=round(last["seconds"], 3),
               first_epoch_s=round(first["seconds"], 3),
               test_acc_after_1_epoch=first["test_accuracy"],
               time_to_first_step_s=round(result["time_to_first_step_seconds"], 3),
               step_ms_median=round(result["steps"]["seconds_median"] * 1e3, 4),
               peak_rss_mib=round(p.max_rss_bytes / 2**20, 1),
               blas=result["system"]["blas"], device_name=result["device"]["name"],
               tf32=result["device"].get("tf32"))
    return row


def peer(script, device, threads, data, graph, cpu_steps):
    cmd = [sys.executable, script, data, "--devices", device]
    if device == "cpu":
        cmd += ["--threads", str(threads), "--cpu-steps", str(cpu_steps)]
    if graph:
        cmd += ["--graph"]
    p = run(cmd)
    rows = []
    for line in p.stdout.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        r["command"] = " ".join(shlex.quote(c) for c in cmd)
        rows.append(r)
    if p.returncode != 0:
        rows.append(dict(engine="pytorch", device=device, error=p.stderr.strip()[-2000:],
                         command=" ".join(shlex.quote(c) for c in cmd)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--devices", default="cpu")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--peer", help="torch_seed_models.py; omitted: no peer")
    ap.add_argument("--peer-cpu-steps", type=int, default=40)
    ap.add_argument("--tf32", default="on")
    ap.add_argument("--epochs", type=int, default=1,
                    help="epochs of our runs; the last one's time is reported (default 1)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each, ours and the peer's; the table gives medians (default 1)")
    ap.add_argument("--label", required=True)
    ap.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    a = ap.parse_args()

    os.makedirs(a.results, exist_ok=True)
    presets = a.presets.split(",")
    threads_list = [int(t) for t in a.threads.split(",")]
    rows = []
    machine = dict(host=platform.node(), machine=platform.machine(), python=platform.python_version(),
                   date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   bench_command=" ".join(shlex.quote(c) for c in sys.argv))
    if a.repeat < 1:
        ap.error("--repeat must be at least 1")
    with tempfile.TemporaryDirectory() as outdir:
        for device in a.devices.split(","):
            for threads in (threads_list if device == "cpu" else [0]):
                # the rounds take turns, so a machine's slow minute falls on
                # both engines alike
                for run_index in range(a.repeat):
                    for preset in presets:
                        extra = ["--tf32", a.tf32] if device != "cpu" else []
                        rows.append(ours(a.cli, preset, device, threads, a.data, extra, outdir,
                                         a.epochs))
                        rows[-1]["run"] = run_index
                        print(json.dumps(rows[-1]), flush=True)
                    if a.peer:
                        pdev = "cpu" if device == "cpu" else "cuda"
                        graphs = [False] if pdev == "cpu" else [False, True]
                        for graph in graphs:
                            for r in peer(a.peer, pdev, threads, a.data, graph,
                                          a.peer_cpu_steps):
                                r.setdefault("engine", "pytorch")
                                r["run"] = run_index
                                rows.append(r)
                                print(json.dumps(r), flush=True)

    with open(os.path.join(a.results, a.label + ".jsonl"), "w") as f:
        f.write(json.dumps(dict(machine=machine)) + "\n")
        for r in rows:
            f.write(json.dumps(r) + "\n")

    # A readable table: our epoch time against the peer's, same device and
    # threads; with --repeat, the medians of the runs (the runs in brackets).
    many = a.repeat > 1
    what = "median of {}".format(a.repeat) if many else "last"
    lines = [f"# {a.label}", "", f"Measured {machine['date']} on {machine['host']}.", "",
             "Command: `" + machine["bench_command"] + "`", "",
             f"| preset | device | threads | trainbench s/epoch ({what}) | test acc after epoch 1 | peak RSS MiB | PyTorch s/epoch | PyTorch + graph s/epoch | speed-up vs PyTorch |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]

    def epochs(found):
        """The median epoch time of rows, and the runs in brackets with --repeat."""
        if not found:
            return None, "-"
        times = [q["epoch_s"] for q in found]
        median = statistics.median(times)
        shown = f"{median:.3f}"
        if many:
            shown += " (" + ", ".join(f"{t:.3f}" for t in times) + ")"
        return median, shown

    for key in dict.fromkeys((r["preset"], r["device"], r["threads"]) for r in rows
                             if r.get("engine") == "trainbench" and "epoch_s" in r):
        preset, device, threads = key
        mine = [r for r in rows if r.get("engine") == "trainbench" and "epoch_s" in r
                and (r["preset"], r["device"], r["threads"]) == key]
        pdev = "cpu" if device == "cpu" else "cuda"

        def peers(graph):
            return [q for q in rows
                    if q.get("engine") == "pytorch" and q.get("model") == PEER_NAME[preset]
                    and q.get("device") == pdev and "epoch_s" in q
                    and (pdev != "cpu" or q.get("threads") == threads)
                    and ("cudagraph" in q.get("peer", "")) == graph]
        ours_s, ours_shown = epochs(mine)
        eager_s, eager_shown = epochs(peers(False))
        graph_s, graph_shown = epochs(peers(True))
        ratio = f"{eager_s / ours_s:.1f}x" if eager_s else "-"
        if graph_s:
            ratio += f" (graph: {graph_s / ours_s:.1f}x)"
        lines.append("| {} | {} | {} | {} | {:.4f} | {} | {} | {} | {} |".format(
            preset, device, threads or "-", ours_shown, mine[0]["test_acc_after_1_epoch"],
            max(r["peak_rss_mib"] for r in mine), eager_shown, graph_shown, ratio))
    for r in rows:
        if "error" in r:
            lines.append(f"\nFailed: `{r['command']}`: {r['error'][:500]}")
    with open(os.path.join(a.results, a.label + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
