#!/bin/bash
# session 9 call 12: compute-sanitizer's racecheck and synccheck on a few training steps of
# mlp-wide (the cluster loss kernel) and mlp-small (the small-n split), HEAD's module
B=.carry/bfinal
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
export PATH=$PATH:/usr/local/cuda/bin
for tool in racecheck synccheck; do
  for p in mlp-wide mlp-small; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $B/app/trainbench-cli train --preset $p \
      --device cuda:0 --tf32 on --dataset $D --epochs 1 --max-steps 8 --limit-train 512 --limit-test 64 --quiet \
      > $OUT/$tool-$p.txt 2>&1
    echo "$tool $p: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/$tool-$p.txt | tr '\n' ' ')"
  done
done
