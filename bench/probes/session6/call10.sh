#!/bin/bash
# session 6 call 10: early weight reads only where the op before did not write them (NnCudaWrites); A/B against 8757bfb
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training test-cuda-lost; do
  $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head
grep "right after" $OUT/test-cuda-parity.txt
for rep in 1 2 3; do for p in mlp-wide mlp-small; do
  bash .carry/s6/epochs.sh $B new $p; MODULE=$PWD/.carry/s6/head.so bash .carry/s6/epochs.sh $B head $p
done; done 2>&1 | tee $OUT/epochs.txt
bash .carry/s6/epochs.sh $B new cnn
