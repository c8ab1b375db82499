#!/bin/bash
# How many multiply-adds a thread needs before it joins a split product, on
# the GPU machine's host; median ms per step, three repeats
# (bench/results/h200host-cpu-split-threshold-2026-11-30.md):
#   .carry/bT075: the tree as it is (0.75 million multiply-adds a thread)
#   .carry/bT150: the same with 0.75e6 -> 1.5e6 and 1.5e6 -> 3e6 in the two
#                 threshold lines of engine/nn-blas.c's split (1.5 million)
# Reproduce: build each with `meson setup .carry/bTxxx <tree> -Dgui=disabled
# -Dcuda=disabled -Dbuildtype=release`, put Fashion-MNIST's IDX files in
# .carry/data/fashion-mnist and run `bash bench/probes/split-threshold-probe.sh`
# from the repository root.
D=.carry/data/fashion-mnist
one () { # variant threads preset steps
  .carry/b$1/app/trainbench-cli train --preset $3 --dataset $D --epochs 1 --threads $2 --max-steps $4 --quiet --out /tmp/r.json >/tmp/log 2>&1 || cat /tmp/log
  python3 -c "
import json; r=json.load(open('/tmp/r.json')); s=r['steps']; print('$1', $2, '$3', 'median_ms', round(s['seconds_median']*1000,3), 'p10', round(s['seconds_p10']*1000,3), 'p90', round(s['seconds_p90']*1000,3))"
}
for rep in 1 2 3; do for v in T075 T150; do one $v 16 mlp-small 1500; one $v 2 mlp-small 1500; done; done
for v in T075 T150; do one $v 16 mlp-wide 600; one $v 16 cnn 30; done
