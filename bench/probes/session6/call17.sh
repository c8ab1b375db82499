#!/bin/bash
# session 6 call 17: a large dense layer's dx on a side stream beside dW; A/B against 989b918 (prev)
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training test-cuda-lost; do
  $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head
grep "n 256 in 9216\|n 200 in 4000" $OUT/test-cuda-parity.txt
for rep in 1 2 3; do
  bash .carry/s6/epochs.sh $B new cnn; MODULE=$PWD/.carry/s6/prev.so bash .carry/s6/epochs.sh $B prev cnn
done 2>&1 | tee $OUT/epochs.txt
