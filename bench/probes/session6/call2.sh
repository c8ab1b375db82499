#!/bin/bash
# session 6 call 2: the cluster dense forward: parity, dense-bench routes, epochs against head
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training; do
  $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head
grep "TF32" $OUT/test-cuda-parity.txt | grep dense_ | head -20
$B/dense-bench 2>&1 | grep -E "dense_forward" | tee $OUT/dense-bench.txt
for rep in 1 2; do for p in mlp-wide cnn mlp-small; do bash .carry/s6/epochs.sh $B new $p; done; done 2>&1 | tee $OUT/epochs.txt
