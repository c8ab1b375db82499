#!/bin/bash
# session 9 call 14: TRAINBENCH_CUDA_CLUSTERS=0 and the parity test's pass through dense_loss_dx
# without clusters: GPU tests, then which loss kernels the parity test launches (ncu names)
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep -E "no clusters" -A4 $OUT/test-cuda-parity.txt | head -6
TRAINBENCH_TEST_SKIP_OOM=1 timeout 300 ncu --metrics gpu__time_duration.sum -k regex:dense_loss $B/tests/gpu/test-cuda-parity > $OUT/ncu-loss.txt 2>&1
echo "ncu rc=$?"; grep -oE "(dense_loss_dx_cluster_kernel<[0-9]+>|dense_loss_kernel<[0-9]>)" $OUT/ncu-loss.txt | sort | uniq -c
