#!/bin/bash
# session 8 call 12: the GPU tests of HEAD (its gpu/ and engine/ are 9f8ec1a's; the tests gained two shapes)
B=.carry/bfinal
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep -E "TF32.*(out 600|out 1100)" $OUT/test-cuda-parity.txt
