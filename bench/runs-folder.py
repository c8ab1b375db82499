#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make a runs folder as a long-used machine has it: N result files made
from real ones (the CLI's), each with its own run id and start time, 97 s
apart from 2025-12-01, and a mix of devices, operating systems and
statuses. For bench/app-runs-folder.c and the report's timing.

    bench/runs-folder.py OUT N RESULT.json [RESULT.json ...]
"""
import json
import os
import random
import sys
import time

if len(sys.argv) < 4:
    sys.exit(__doc__.strip())
out, n = sys.argv[1], int(sys.argv[2])
seeds = [json.load(open(p)) for p in sys.argv[3:]]
os.makedirs(out, exist_ok=True)
rnd = random.Random(1)
devices = [("cpu", "AMD EPYC"), ("cuda", "NVIDIA H100 80GB HBM3"),
           ("cuda", "NVIDIA GeForce RTX 4090")]
systems = [("Debian GNU/Linux", "12 (bookworm)", ""), ("Windows", "11 (26100)", ""),
           ("Windows", "11 (26100)", "wine 9.0")]
for i in range(n):
    r = json.loads(json.dumps(seeds[i % len(seeds)]))
    started = time.gmtime(1764547200 + i * 97)
    name = r["model"].get("name") or "custom"
    rid = time.strftime("%Y%m%dT%H%M%SZ", started) + "-%s-cpu-%04x" % (name, i & 0xffff)
    r["run_id"] = rid
    r["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", started)
    r["device"]["kind"], r["device"]["name"] = devices[rnd.randrange(len(devices))]
    os_name, os_version, emulated_by = systems[rnd.randrange(len(systems))]
    r["system"]["os"].update(name=os_name, version=os_version, emulated_by=emulated_by)
    if i % 17 == 3:
        r["status"] = "failed"
        r["error"] = ("cuda:0: out of memory for activations (1.8 GiB) at batch 4096; "
                      "try a smaller batch")
    for e in r["epochs"]:
        e["seconds"] *= 0.5 + rnd.random()
    with open(os.path.join(out, rid + ".json"), "w") as f:
        json.dump(r, f, indent=2)
