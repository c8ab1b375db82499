#!/bin/bash
# Median ms per step of each preset, 2 and 16 threads, on the GPU machine's
# host: build A of the later probes in
# bench/results/h200host-cpu-threading-2026-11-30.md.
#   .carry/bA: the build under test (8a27e33 for row "A, call 1")
# Reproduce: `meson setup .carry/bA -Dgui=disabled -Dcuda=disabled` at that
# commit, Fashion-MNIST's IDX files in .carry/data/fashion-mnist, then
# `bash bench/probes/step-times-probe.sh` from the repository root.
D=.carry/data/fashion-mnist
for t in 2 16; do for p in mlp-small mlp-wide cnn; do
  ms=600; [ $p = cnn ] && ms=30
  .carry/bA/app/trainbench-cli train --preset $p --dataset $D --epochs 1 --threads $t --max-steps $ms --quiet --out /tmp/r.json >/tmp/log 2>&1 || cat /tmp/log
  python3 -c "
import json; r=json.load(open('/tmp/r.json')); s=r['steps']; print($t, '$p', 'median_ms', round(s['seconds_median']*1000,3), 'p10', round(s['seconds_p10']*1000,3), 'p90', round(s['seconds_p90']*1000,3))"
done; done
