#!/bin/bash
# session 8 call 1: ABI 9 (the output layer's dx with its loss, its update on a branch);
# GPU tests, then epochs against final15's module (prev.so: ABI 8, which the engine runs
# without branches), then memcheck on the parity test
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep -E "dense_loss.*(dx|dz)|branch" $OUT/test-cuda-parity.txt | head -20
for rep in 1 2; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-wide mlp-small cnn
  bash .carry/s7/epochs.sh $B new mlp-wide mlp-small cnn
done 2>&1 | tee $OUT/epochs.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
TRAINBENCH_TEST_SKIP_OOM=1 timeout 200 $CS --tool memcheck --leak-check full $B/tests/gpu/test-cuda-parity > $OUT/memcheck.txt 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $OUT/memcheck.txt | tr '\n' ' ')"
