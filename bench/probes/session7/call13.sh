#!/bin/bash
# session 7 call 13: the review's mends (cuBLAS warm-up of both handles, cublas_row_major, conv-igemm's wgrad kernel choice, write lists); prev.so = final15's module
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
for rep in 1 2; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev cnn mlp-wide mlp-small
  bash .carry/s7/epochs.sh $B new cnn mlp-wide mlp-small
done 2>&1 | tee $OUT/epochs.txt
