#!/bin/bash
# session 9 call 11 (final21): the final benchmark of 204a8bf on a fresh machine, then three more
# runs of each preset with the same module, for the machine's spread
bash bench/probes/final-bench.sh gpu h200-final21
B=.carry/bfinal
for rep in 1 2 3; do
  MODULE=$PWD/$B/gpu/libtrainbench-cuda.so bash .carry/s9/epochs.sh $B final21 mlp-small mlp-wide cnn
done 2>&1 | tee $OUT/epochs.txt
