#!/bin/bash
# usage: epochs.sh BUILD LABEL PRESETS... ; env passes through (TRAINBENCH_CUDA_PDL etc.)
B=$1; L=$2; shift 2; M=${MODULE:-$PWD/.carry/bconv/gpu/libtrainbench-cuda.so}
D=.carry/data/fashion-mnist
for p in "$@"; do
  TRAINBENCH_CUDA_MODULE=$M $B/app/trainbench-cli train --preset $p --device cuda:0 --tf32 on --epochs 2 --dataset $D --quiet --out /tmp/r.json >/tmp/log 2>&1 || { cat /tmp/log; continue; }
  python3 -c "
import json; r=json.load(open('/tmp/r.json')); e=r['epochs']; s=r['steps']
print('%-10s %-9s epochs %s  step median %.1f us  acc %.4f' % ('$L', '$p', ' / '.join('%.4f' % x['seconds'] for x in e), s['seconds_median']*1e6, e[0]['test_accuracy']))"
done
