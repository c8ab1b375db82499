#!/bin/bash
# The final benchmark on the GPU machine: CPU (2 and 16 threads) and GPU,
# our engine and the PyTorch peer in the same call. The build (.carry/bfinal),
# data and peer script it expects are described in bench/results/README.md.
set -u
D=.carry/data/fashion-mnist
CLI=.carry/bfinal/app/trainbench-cli
export TRAINBENCH_CUDA_MODULE=$PWD/.carry/bfinal/gpu/libtrainbench-cuda.so
export PYTHONUNBUFFERED=1
for t in devices parity training lost; do
  timeout 120 .carry/bfinal/tests/gpu/test-cuda-$t > $OUT/gpu-test-$t.txt 2>&1
  echo "test-cuda-$t exit $? ok $(grep -c '^ok' $OUT/gpu-test-$t.txt) not-ok $(grep -c '^not ok' $OUT/gpu-test-$t.txt)"
done
$CLI sysinfo > $OUT/sysinfo.txt 2>&1
$CLI devices >> $OUT/sysinfo.txt 2>&1
python3 bench/bench.py --cli $CLI --data $D --devices cuda:0 --tf32 on --epochs 2 \
  --peer .carry/peer/torch_seed_models.py --label h200-gpu-final --results $OUT 2>&1 | tail -12
python3 bench/bench.py --cli $CLI --data $D --devices cpu --threads 2,16 \
  --peer .carry/peer/torch_seed_models.py --peer-cpu-steps 40 --label h200host-cpu-final --results $OUT 2>&1 | tail -12
