#!/bin/bash
# session 8 call 2: why the branch did not pay (call 1): the output layer's narrow update
# (32 blocks of 256 threads, 92 registers) beside mlp-wide's 1000 x 1000 tensor-core update
# (256 blocks of 512 threads, 64 registers: two fill an SM's registers, 128 of 132 SMs);
# the narrow grid capped (TB_NARROW_BLOCKS, a grid-stride loop) so it fits the idle SMs; and
# each kernel's time alone (ncu) against final15's module
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for rep in 1 2; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-wide
  for cap in 0 4 8 12 16; do
    TB_NARROW_BLOCKS=$cap bash .carry/s7/epochs.sh $B cap$cap mlp-wide
  done
done 2>&1 | tee $OUT/epochs.txt
for m in prev new; do
  M=$PWD/$B/gpu/libtrainbench-cuda.so; [ $m = prev ] && M=$PWD/.carry/s7/prev.so
  TRAINBENCH_CUDA_MODULE=$M timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 200 --launch-count 16 \
    $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-$m.txt 2>&1
  echo "== $m"; grep -E "^  [a-z_]+.*\(|gpu__time_duration" $OUT/ncu-$m.txt | paste - - | awk '{print $1, $(NF)}' | head -16
done
