#!/bin/bash
# session 9 call 2: where mlp-wide's loss kernel and cluster forwards spend their time
# (ncu --set full, warm caches, one launch each, HEAD's module)
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for k in dense_loss_kernel dense_cluster_kernel dense_update_tc_kernel; do
  timeout 150 ncu --set full --import-source no --clock-control none --cache-control none -k regex:$k -s 40 -c 1 --print-details all \
    $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-full-$k.txt 2>&1
  echo "== $k rc=$?"; grep -E "Duration|Registers Per|Achieved Occupancy|Block Limit|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Stall|Memory Throughput|L2 Hit|Elapsed Cycles" $OUT/ncu-full-$k.txt | head -30
done
