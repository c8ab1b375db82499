#!/bin/bash
# session 8 call 4: where dense_loss_kernel<true> (mlp-wide's output layer with its dx)
# spends the 2.9 us it takes over dense_loss alone (ncu: 10.4 against 7.5 us, call 3):
# per-instruction stall samples; then the kernels' times with the branch only where the
# output layer updates itself (not the cnn's, nor mlp-small's)
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
timeout 150 ncu --clock-control none -k regex:dense_loss_kernel --launch-skip 100 --launch-count 1 \
  --section WarpStateStats --section SourceCounters --page source --print-source sass --csv \
  $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 120 --limit-train 8192 --limit-test 64 --quiet > $OUT/ncu-loss-source.csv 2>&1
echo "ncu rc=$? $(wc -l < $OUT/ncu-loss-source.csv) lines"
timeout 100 ncu --clock-control none -k regex:dense_loss_kernel --launch-skip 100 --launch-count 1 \
  --section WarpStateStats --section SpeedOfLight --section LaunchStats --section Occupancy \
  $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 120 --limit-train 8192 --limit-test 64 --quiet > $OUT/ncu-loss-stats.txt 2>&1
grep -E "Duration|Stall|Warp Cycles|Registers|Achieved" $OUT/ncu-loss-stats.txt | head -30
for rep in 1 2; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-wide mlp-small cnn
  bash .carry/s7/epochs.sh $B new mlp-wide mlp-small cnn
done 2>&1 | tee $OUT/epochs.txt
