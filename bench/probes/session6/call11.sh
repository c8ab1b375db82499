#!/bin/bash
# session 6 call 11: the arena optimizer reads parameters and state early; A/B against 8757bfb
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training; do
  $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head
for rep in 1 2 3; do for p in cnn mlp-small; do
  bash .carry/s6/epochs.sh $B new $p; MODULE=$PWD/.carry/s6/head.so bash .carry/s6/epochs.sh $B head $p
done; done 2>&1 | tee $OUT/epochs.txt
bash .carry/s6/epochs.sh $B new mlp-wide
