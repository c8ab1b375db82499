#!/bin/bash
# session 9 call 10: where the 1000 x 1000 update kernel (dense_update_tc_kernel) and the
# 784 x 1000 one stall, line by line (ncu source page, warm caches), eb2a146's module
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for s in 41 42; do
timeout 150 ncu --section SourceCounters --section WarpStateStats --import-source yes --clock-control none --cache-control none \
  -k regex:dense_update_tc_kernel -s $s -c 1 --page source --print-source cuda --csv \
  $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-src-$s.csv 2>&1
echo "rc=$? lines=$(wc -l < $OUT/ncu-src-$s.csv)"
done
head -3 $OUT/ncu-src-41.csv | cut -c1-600
