#!/bin/bash
# session 9 call 5: mlp-small's step kernel by kernel with warm caches (ncu), 68b015d's module;
# whether nsys is there (a timeline of the replayed graph's kernels)
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
which nsys; ls /usr/local/cuda/bin | grep -i nsys; ls /opt/nvidia 2>/dev/null
timeout 100 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --launch-skip 200 --launch-count 24 \
  $B/app/trainbench-cli train --preset mlp-small --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-small.txt 2>&1
echo "rc=$?"; grep -E "^  [a-zA-Z_]+.*\(|gpu__time_duration" $OUT/ncu-small.txt | paste - - | awk '{print $1, $2, $3, $(NF)}' | head -24
