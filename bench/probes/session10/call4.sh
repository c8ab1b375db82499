#!/bin/bash
# session 10 call 4: where the first convolution's weight gradient (conv_direct_wgrad_kernel,
# 27.5 us for 44 MB) and the pooling's backward from the maxima (20.7 us for 54 MB) wait: ncu's
# launch, occupancy, memory and warp-state sections, 9a79815's module
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
timeout 150 ncu --clock-control none --cache-control none -k regex:'conv_direct_wgrad_kernel|pool_backward_argmax' --launch-skip 8 --launch-count 2 \
  --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section SpeedOfLight \
  $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > $OUT/ncu-sections.txt 2>&1
echo "ncu rc=$?"
grep -vE "^==|^ *-+ *$|^\s*$|OPT |Est\. |----" $OUT/ncu-sections.txt | grep -E "^  [a-z_]+.*\(|Duration|Throughput|Registers|Occupancy|Block Limit|Warp Cycles|Issued|Eligible|Active Warps|Stall|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Grid Size|Shared Memory Config|Dynamic Shared|Waves" | sed 's/  */ /g' | cut -c1-110
