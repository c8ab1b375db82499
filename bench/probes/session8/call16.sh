#!/bin/bash
# session 8 call 16: the branch's lane opened by the first branch_begin, so a context that never
# branches allocates as before branches came (is that the cnn's 7 us in call 15?); GPU tests,
# then the cnn, six pairs, order swapped each round, against final15's module, and mlp-wide
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head
for rep in 1 2 3 4 5 6; do
  if [ $((rep % 2)) = 1 ]; then
    bash .carry/s7/epochs.sh $B lazy cnn
    MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev cnn
  else
    MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev cnn
    bash .carry/s7/epochs.sh $B lazy cnn
  fi
done 2>&1 | tee $OUT/epochs.txt
for rep in 1 2; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-wide
  bash .carry/s7/epochs.sh $B lazy mlp-wide
done 2>&1 | tee -a $OUT/epochs.txt
