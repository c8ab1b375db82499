#!/bin/bash
# session 8 call 10: the 1000 x 1000 update's input-gradient partials added in clusters of its
# 16 column tiles (distributed shared memory), so the dx kernel leaves mlp-wide's chain;
# GPU tests, epochs against 9f8ec1a's module (head.so), each kernel alone (ncu)
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep -E "TF32.*(600|1100|1000 out 1000)" $OUT/test-cuda-parity.txt | head
for rep in 1 2 3; do
  MODULE=$PWD/.carry/s7/head.so bash .carry/s7/epochs.sh $B head mlp-wide
  bash .carry/s7/epochs.sh $B new mlp-wide
done 2>&1 | tee $OUT/epochs.txt
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 200 --launch-count 14 \
  $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-new.txt 2>&1
grep -E "^  [a-z_]+.*\(|gpu__time_duration" $OUT/ncu-new.txt | paste - - | awk '{print $1, $2, $(NF)}' | head -14
