#!/bin/bash
# session 11 call 8: the parity test with one more case of the weights below (2 x 3 filters
# above: the kernel for any filter size; no activation below), b8adbc8's module
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
timeout 200 $B/tests/gpu/test-cuda-parity > $OUT/test-cuda-parity.txt 2>&1
echo "parity rc=$? ok=$(grep -c '^ok' $OUT/test-cuda-parity.txt) notok=$(grep -c '^not ok' $OUT/test-cuda-parity.txt)"
grep "^not ok" $OUT/test-cuda-parity.txt | head
grep "weights below" $OUT/test-cuda-parity.txt | cut -c1-230
