#!/bin/bash
# session 7 call 10: dense_loss with 16 warps a row for 768 inputs and more (mlp-wide's output layer); prev.so = final15's module
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep "dense_loss" $OUT/test-cuda-parity.txt | head -12
for rep in 1 2 3; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-wide
  bash .carry/s7/epochs.sh $B new mlp-wide
done 2>&1 | tee $OUT/epochs.txt
for v in prev new; do
  M=$PWD/$B/gpu/libtrainbench-cuda.so; [ $v = prev ] && M=$PWD/.carry/s7/prev.so
  TRAINBENCH_CUDA_MODULE=$M timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:dense_loss --launch-skip 2 --launch-count 3 \
    $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 6 --limit-train 2048 --limit-test 64 --quiet 2>&1 | grep -E "duration" | sed "s/^/$v /"
done
