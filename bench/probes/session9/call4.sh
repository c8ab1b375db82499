#!/bin/bash
# session 9 call 4: the cnn's step kernel by kernel with warm caches (ncu), 68b015d's module
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
timeout 200 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --launch-skip 300 --launch-count 60 \
  $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 40 --limit-train 10240 --limit-test 256 --quiet > $OUT/ncu-cnn.txt 2>&1
echo "rc=$?"; grep -E "^  [a-zA-Z_]+.*\(|gpu__time_duration" $OUT/ncu-cnn.txt | paste - - | awk '{print $1, $2, $3, $(NF)}' | head -60
