#!/bin/bash
# session 9 call 13: the review's mends (the epilogue's value shared with store_out, one picker
# of the cluster loss kernel by outputs): GPU tests, then mlp-wide and mlp-small twice each
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
for rep in 1 2; do bash .carry/s9/epochs.sh $B mended mlp-wide mlp-small; done 2>&1 | tee $OUT/epochs.txt
