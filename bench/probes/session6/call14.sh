#!/bin/bash
# session 6 call 14: dense_loss with 8 warps a row for sums of 512 and more; A/B against 1454350 (prev)
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training; do
  $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head
for rep in 1 2 3; do for p in mlp-wide; do
  bash .carry/s6/epochs.sh $B new $p; MODULE=$PWD/.carry/s6/prev.so bash .carry/s6/epochs.sh $B prev $p
done; done 2>&1 | tee $OUT/epochs.txt
