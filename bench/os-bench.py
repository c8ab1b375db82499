#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The same presets trained by the Linux build and by the Windows build under
wine, on one machine, taking turns.

Each round runs every preset for one epoch on the same data and thread count
with the Linux trainbench-cli and then with the Windows trainbench-cli.exe
under wine (the next round the other way round), --repeat rounds in all.
Writes every run and the medians to bench/results/<label>.jsonl and a
readable <label>.md, and keeps each run's result file in <label>-runs/, so
the app's Runs page can open them and group them by OS, packed into
<label>-runs.tar.xz too, the form bench/results keeps them in (git ignores
the folder):

  bench/os-bench.py --linux-cli build/cli/trainbench-cli \\
      --windows-cli build-windows/build/cli/trainbench-cli.exe \\
      --blas-dll /path/to/openblas.dll \\
      --data /usr/share/datasets/fashion-mnist --threads 1,2 --repeat 3 \\
      --label local2core-windows-wine-cpu-2026-12-01

  build/app/trainbench bench/results/<label>-runs/*.json   # Runs, group by OS

--blas-dll names the OpenBLAS DLL the Windows build loads (passed as
TRAINBENCH_BLAS_LIBRARY with its wine path); without it the exe finds its own.
--linux-blas does the same for the Linux build. Wine is not Windows: the
tables say "wine", and the result files carry system.os.emulated_by.

Run it on an otherwise idle machine: the .jsonl records the load average
before each run and each run's user and system CPU seconds (wait4), so a
run that shared the cores with a build can be told apart; at 1 thread the
user seconds (the whole process: loading the data set, evaluation, and
under wine its own start-up too) compare the builds better than the wall
clock when the machine is busy.
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
import tarfile
import tempfile

PRESETS = ["mlp-small", "mlp-wide", "cnn"]


def run(cmd, env):
    """Run cmd; return (exit status, output, user s, system s) from wait4."""
    with tempfile.TemporaryFile("w+") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        return p.returncode, out.read(), usage.ru_utime, usage.ru_stime


def pack(folder, archive):
    """folder as archive (.tar.xz) holding it by its name, its files sorted
    and owned by no one, as bench/results/README.md packs one by hand."""
    def anonymous(info):
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info
    base = os.path.basename(folder)
    with tarfile.open(archive, "w:xz", preset=9) as tar:
        tar.add(folder, arcname=base, recursive=False, filter=anonymous)
        for name in sorted(os.listdir(folder)):
            tar.add(os.path.join(folder, name), arcname=base + "/" + name, filter=anonymous)


def wine_path(path):
    """A Unix path as wine's Z: drive sees it."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def one_run(a, os_kind, preset, threads, index, runs_dir):
    name = f"{os_kind}-{preset}-t{threads}-r{index}.json"
    out = os.path.join(runs_dir, name)
    if os.path.exists(out):
        os.remove(out)
    env = dict(os.environ)
    if os_kind == "linux":
        cmd = [a.linux_cli]
        out_arg = out
        if a.linux_blas:
            env["TRAINBENCH_BLAS_LIBRARY"] = a.linux_blas
    else:
        cmd = [a.wine, a.windows_cli]
        out_arg = wine_path(out)
        env["WINEDEBUG"] = "-all"
        if a.wineprefix:
            env["WINEPREFIX"] = a.wineprefix
        if a.blas_dll:
            env["TRAINBENCH_BLAS_LIBRARY"] = wine_path(a.blas_dll)
    cmd += ["train", "--preset", preset, "--epochs", str(a.epochs), "--threads", str(threads),
            "--dataset", a.data, "--out", out_arg, "--quiet"] + a.extra
    load = os.getloadavg()[0]
    rc, text, user, system = run(cmd, env)
    shown_env = {k: env[k] for k in ("WINEPREFIX", "WINEDEBUG", "TRAINBENCH_BLAS_LIBRARY")
                 if k in env and env.get(k) != os.environ.get(k)}
    row = dict(os=os_kind if os_kind == "linux" else "windows (wine)", preset=preset,
               threads=threads, run=index, load_before=round(load, 2),
               command=" ".join([f"{k}={shlex.quote(v)}" for k, v in shown_env.items()]
                                + [shlex.quote(c) for c in cmd]),
               exit=rc, user_s=round(user, 3), system_s=round(system, 3), result_file=out)
    if rc != 0:
        row["error"] = text.strip()[-2000:]
        return row
    with open(out) as f:
        result = json.load(f)
    first = result["epochs"][0]
    sysinfo = result["system"]
    row.update(epoch_s=round(first["seconds"], 4),
               step_ms_median=round(result["steps"]["seconds_median"] * 1e3, 4),
               step_ms_p10=round(result["steps"]["seconds_p10"] * 1e3, 4),
               step_ms_p90=round(result["steps"]["seconds_p90"] * 1e3, 4),
               train_loss=first["train_loss"], test_accuracy=first["test_accuracy"],
               os_name=sysinfo["os"].get("name"), emulated_by=sysinfo["os"].get("emulated_by"),
               blas=sysinfo.get("blas"), compiler=sysinfo.get("compiler"))
    return row


def median(rows, key):
    values = [r[key] for r in rows if key in r]
    return statistics.median(values) if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--linux-cli", required=True)
    ap.add_argument("--windows-cli", required=True)
    ap.add_argument("--wine", default="wine")
    ap.add_argument("--wineprefix", default=os.environ.get("WINEPREFIX"))
    ap.add_argument("--blas-dll", help="the OpenBLAS DLL for the Windows build (a Unix path)")
    ap.add_argument("--linux-blas", help="the BLAS library for the Linux build")
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--label", required=True)
    ap.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results"))
    ap.add_argument("--note", default="", help="a line for the summary (what was compared)")
    ap.add_argument("extra", nargs="*", help="more trainbench-cli train options, after --")
    a = ap.parse_args()

    runs_dir = os.path.join(a.results, a.label + "-runs")
    os.makedirs(runs_dir, exist_ok=True)
    machine = dict(host=platform.node(), machine=platform.machine(),
                   date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   wine=subprocess.run([a.wine, "--version"], capture_output=True,
                                       text=True).stdout.strip(),
                   bench_command=" ".join(shlex.quote(c) for c in sys.argv))
    presets = a.presets.split(",")
    threads = [int(t) for t in a.threads.split(",")]
    rows = []
    for t in threads:
        for preset in presets:
            for i in range(1, a.repeat + 1):
                # take turns, so a slow minute of the machine falls on both
                order = ["linux", "windows"] if i % 2 else ["windows", "linux"]
                for os_kind in order:
                    row = one_run(a, os_kind, preset, t, i, runs_dir)
                    rows.append(row)
                    print(json.dumps({k: row.get(k) for k in ("os", "preset", "threads", "run",
                                                              "epoch_s", "step_ms_median",
                                                              "user_s", "load_before", "exit")}),
                          flush=True)

    jsonl = os.path.join(a.results, a.label + ".jsonl")
    with open(jsonl, "w") as f:
        f.write(json.dumps(dict(machine=machine)) + "\n")
        for r in rows:
            f.write(json.dumps(r) + "\n")

    pack(runs_dir, runs_dir + ".tar.xz")
    # the command that unpacks it, as a reader runs it from the repository root
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    shown = os.path.relpath(os.path.abspath(a.results), root)
    if shown.startswith(".."):
        shown = os.path.abspath(a.results)
    unpack = f"tar -xJf {shown}/{a.label}-runs.tar.xz -C {shown}"
    lines = [f"# {a.label}: the Linux build against the Windows build under wine", "",
             f"Measured {machine['date']} on {machine['host']} ({machine['wine']}). "
             "Wine is not Windows: these are the Windows build's figures under wine.", ""]
    if a.note:
        lines += [a.note, ""]
    lines += ["Command: `" + machine["bench_command"] + "`", "",
              f"Medians of {a.repeat} runs each, one epoch, the two builds taking turns. "
              "Every run, with its command, load and CPU time, is in "
              f"`{os.path.basename(jsonl)}`; the result files are in `{a.label}-runs.tar.xz` "
              f"(`{unpack}` unpacks them into `{shown}/{a.label}-runs/`).",
              "",
              "| preset | threads | Linux epoch s | wine epoch s | wine / Linux | "
              "Linux step ms | wine step ms | Linux user s | wine user s | Linux BLAS | "
              "wine BLAS |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for t in threads:
        for preset in presets:
            lin = [r for r in rows if r["os"] == "linux" and r["preset"] == preset
                   and r["threads"] == t and r["exit"] == 0]
            win = [r for r in rows if r["os"] != "linux" and r["preset"] == preset
                   and r["threads"] == t and r["exit"] == 0]
            le, we = median(lin, "epoch_s"), median(win, "epoch_s")
            ls, ws = median(lin, "step_ms_median"), median(win, "step_ms_median")
            lu, wu = median(lin, "user_s"), median(win, "user_s")

            def blas(rs):
                return (f"{rs[0]['blas']['version']} {rs[0]['blas']['core']}"
                        if rs and rs[0].get("blas") else "-")

            def fmt(v, d=3):
                return "-" if v is None else f"{v:.{d}f}"
            ratio = f"{we / le:.2f}" if le and we else "-"
            lines.append(f"| {preset} | {t} | {fmt(le)} | {fmt(we)} | {ratio} | {fmt(ls, 4)} | "
                         f"{fmt(ws, 4)} | {fmt(lu, 2)} | {fmt(wu, 2)} | {blas(lin)} | {blas(win)} |")
    failed = [r for r in rows if r["exit"] != 0]
    if failed:
        lines += ["", f"{len(failed)} runs failed; their output is in the .jsonl."]
    md = os.path.join(a.results, a.label + ".md")
    with open(md, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {md}, {jsonl}, {runs_dir}/ and {runs_dir}.tar.xz")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
