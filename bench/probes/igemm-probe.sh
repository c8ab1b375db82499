#!/bin/bash
# The implicit-GEMM convolution on the GPU machine: parity of every op (the
# conv lines shown), the cnn step's kernels under ncu (TF32 on), and two
# epochs of cnn with TF32 on through each convolution route.
#   usage (repository root, build in $B): B=.carry/bconv bench/probes/igemm-probe.sh
set -u
B=${B:-.carry/bconv}
DATA=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
timeout 200 $B/tests/gpu/test-cuda-parity > $OUT/parity.txt 2>&1
echo "parity exit $? ok $(grep -c '^ok' $OUT/parity.txt) not-ok $(grep -c '^not ok' $OUT/parity.txt)"
grep -E "^not ok|conv2d|TF32" $OUT/parity.txt | head -60
if command -v ncu > /dev/null; then
  ncu --clock-control none --metrics gpu__time_duration.sum --csv \
    $B/app/trainbench-cli train --preset cnn --device cuda --dataset $DATA --epochs 1 --tf32 on \
    --max-steps 4 --limit-train 1024 --limit-test 64 --quiet --out /tmp/ncu-run.json 2>&1 \
    | grep gpu__time_duration > $OUT/ncu-cnn.csv
  python3 - $OUT/ncu-cnn.csv <<'PY'
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
t = collections.defaultdict(list)
for r in rows:
    name = r[4] if len(r) > 4 else r[0]
    t[name[:90]].append(float(r[-1].replace(',', '')))
for k, v in sorted(t.items(), key=lambda kv: -sum(kv[1])):
    print('%9.1f us x%-3d %s' % (sum(v) / len(v) / 1000 if max(v) > 1000 else sum(v) / len(v), len(v), k))
PY
fi
for route in auto cudnn; do
  if [ $route = auto ]; then unset TRAINBENCH_CUDA_CONV_ROUTE; else export TRAINBENCH_CUDA_CONV_ROUTE=$route; fi
  $B/app/trainbench-cli train --preset cnn --device cuda --epochs 2 --dataset $DATA --tf32 on \
    --quiet --out /tmp/run-cnn-$route.json > /dev/null 2>&1
  python3 -c "
import json
r = json.load(open('/tmp/run-cnn-$route.json'))
for e in r['epochs']:
    print('cnn route $route epoch %d: %.4f s, test accuracy %.4f, train loss %.4f' % (e['epoch'], e['seconds'], e['test_accuracy'], e['train_loss']))
s = r['steps']
print('cnn route $route step median %.1f us' % (1e6 * s['seconds_median']))"
done
