#!/bin/bash
# session 7 call 1: final figures of HEAD (0e70fbe, GPU code of 0ba6ecf + refactors), memcheck, ncu of the conv kernels
bash bench/probes/final-bench.sh gpu h200-final14
B=.carry/bfinal
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section InstructionStats \
  -k regex:conv_tc_ --launch-skip 8 --launch-count 4 \
  $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 4 --limit-train 2048 --limit-test 64 --quiet > $OUT/ncu-conv.txt 2>&1
grep -E "conv_tc|Duration|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Stall|Registers" $OUT/ncu-conv.txt | head -60
