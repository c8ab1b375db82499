#!/bin/bash
# The final benchmark on the GPU machine, in two device calls (each must fit
# in the device tool's 10 minutes):
#   bench/probes/final-bench.sh gpu LABEL   GPU tests, compute-sanitizer on the
#                                           parity test, our GPU backend against
#                                           PyTorch eager and with a CUDA graph,
#                                           each run three times (medians)
#   bench/probes/final-bench.sh cpu LABEL   the host CPU at 2 and 16 threads
#                                           against PyTorch
# Results go to $OUT as LABEL-gpu.* / LABEL-cpu.* (bench.py's .md and .jsonl)
# plus the tests' TAP output. The build (.carry/bfinal, made with
# `meson setup .carry/bfinal -Dgui=disabled -Dcuda=enabled`), Fashion-MNIST's
# IDX files (.carry/data/fashion-mnist) and the peer script (.carry/peer) are
# described in bench/results/README.md.
set -u
part=${1:?gpu or cpu}
label=${2:?label}
D=.carry/data/fashion-mnist
CLI=.carry/bfinal/app/trainbench-cli
PEER=.carry/peer/torch_seed_models.py
export TRAINBENCH_CUDA_MODULE=$PWD/.carry/bfinal/gpu/libtrainbench-cuda.so
export PYTHONUNBUFFERED=1
export PATH=$PATH:/usr/local/cuda/bin

if [ "$part" = gpu ]; then
  mkdir -p $OUT/gpu-tests
  for t in devices parity training lost; do
    timeout 180 .carry/bfinal/tests/gpu/test-cuda-$t > $OUT/gpu-tests/test-cuda-$t.txt 2>&1
    echo "test-cuda-$t exit $? ok $(grep -c '^ok' $OUT/gpu-tests/test-cuda-$t.txt)" \
      "not-ok $(grep -c '^not ok' $OUT/gpu-tests/test-cuda-$t.txt)"
  done
  # The planted out-of-memory subtest is skipped under the sanitizer, which
  # would list the intended cudaMalloc failure as an API error.
  TRAINBENCH_TEST_SKIP_OOM=1 timeout 240 compute-sanitizer --tool memcheck --leak-check full \
    --error-exitcode 9 .carry/bfinal/tests/gpu/test-cuda-parity > $OUT/gpu-tests/memcheck-parity.txt 2>&1
  echo "memcheck on test-cuda-parity: exit $?"
  grep -E "ERROR SUMMARY|LEAK SUMMARY|^not ok" $OUT/gpu-tests/memcheck-parity.txt | head
  $CLI sysinfo > $OUT/gpu-tests/sysinfo.txt 2>&1
  $CLI devices >> $OUT/gpu-tests/sysinfo.txt 2>&1
  python3 bench/bench.py --cli $CLI --data $D --devices cuda:0 --tf32 on --epochs 2 --repeat 3 \
    --peer $PEER --label $label-gpu --results $OUT 2>&1 | tail -6
else
  python3 bench/bench.py --cli $CLI --data $D --devices cpu --threads 2,16 \
    --peer $PEER --peer-cpu-steps 40 --label $label-cpu --results $OUT 2>&1 | tail -9
fi
