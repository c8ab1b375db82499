#!/bin/bash
# session 8 call 6: dense_loss_kernel<true> also works out the layer below's dropout mask of its first columns when it starts;
# GPU tests, epochs against final15's module (the branch only where the output layer updates itself), each kernel's time alone (ncu)
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
for rep in 1 2; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-wide mlp-small cnn
  bash .carry/s7/epochs.sh $B new mlp-wide mlp-small cnn
done 2>&1 | tee $OUT/epochs.txt
TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 200 --launch-count 16 \
  $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-new.txt 2>&1
grep -E "^  [a-z_]+.*\(|gpu__time_duration" $OUT/ncu-new.txt | paste - - | awk '{print $1, $2, $(NF)}' | head -16
