#!/bin/bash
# Compare the two BLAS threading schemes on the device host's CPU (first
# table of bench/results/h200host-cpu-threading-2026-11-30.md):
#   .carry/bA: commit 5d5f545 (OpenBLAS's own pthread pool beside OpenMP)
#   .carry/bB: commit 5395be0 (single-threaded OpenBLAS, products split over OpenMP)
# Reproduce: build each with `meson setup .carry/bX -Dgui=disabled
# -Dcuda=disabled`, Fashion-MNIST's IDX files in .carry/data/fashion-mnist and
# the peer script (../shared/bench/peers/torch_seed_models.py) in .carry/peer,
# then `bash bench/probes/threads-probe.sh` from the repository root.
D=.carry/data/fashion-mnist
nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core" ; ls /usr/lib/x86_64-linux-gnu/ | grep -i blas | head
.carry/bB/app/trainbench-cli sysinfo | head -8
for v in A B; do for t in 2 16; do for p in mlp-small mlp-wide cnn; do
  ms=400; [ $p = cnn ] && ms=24
  .carry/b$v/app/trainbench-cli train --preset $p --dataset $D --epochs 1 --threads $t --max-steps $ms --quiet --out /tmp/r.json >/tmp/log 2>&1 || cat /tmp/log
  python3 -c "
import json; r=json.load(open('/tmp/r.json')); s=r['steps']; print('$v', $t, '$p', 'median_ms', round(s['seconds_median']*1000,3), 'p10', round(s['seconds_p10']*1000,3), 'p90', round(s['seconds_p90']*1000,3), r['system']['blas']['core'])"
done; done; done
python3 .carry/peer/torch_seed_models.py $D --devices cpu --threads 2,16 --cpu-steps 40
