#!/bin/bash
# The later threading variants on the GPU machine's host ("call 2" in
# bench/results/h200host-cpu-threading-2026-11-30.md), median ms per step:
#   .carry/bA: commit 8a27e33 (vectorised kernels, small-matrix blocks)
#   .carry/bB: A without the small-matrix blocks (957a5a8 reverted)
#   .carry/bC: B with at least 1.5 million multiply-adds per thread (12232a2's rule)
# Reproduce: build each with `meson setup .carry/bX -Dgui=disabled
# -Dcuda=disabled`, Fashion-MNIST's IDX files in .carry/data/fashion-mnist,
# then `bash bench/probes/threading-variants-probe.sh` from the repository root.
D=.carry/data/fashion-mnist
for v in A B C; do for t in 2 16; do for p in mlp-small mlp-wide cnn; do
  ms=600; [ $p = cnn ] && ms=30
  .carry/b$v/app/trainbench-cli train --preset $p --dataset $D --epochs 1 --threads $t --max-steps $ms --quiet --out /tmp/r.json >/tmp/log 2>&1 || cat /tmp/log
  python3 -c "
import json; r=json.load(open('/tmp/r.json')); s=r['steps']; print('$v', $t, '$p', 'median_ms', round(s['seconds_median']*1000,3), 'p10', round(s['seconds_p10']*1000,3), 'p90', round(s['seconds_p90']*1000,3))"
done; done; done
