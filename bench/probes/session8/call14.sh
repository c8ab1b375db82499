#!/bin/bash
# session 8 call 14: right after final17 (0745ea4), on the same machine: 0745ea4's module
# against final15's, three pairs, to tell the machine from the change. (As it ran, this
# comment said the host read as SkylakeX where earlier ones read as Cooperlake; every final
# run's sysinfo.txt says SkylakeX.)
B=.carry/bfinal
for rep in 1 2 3; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-wide cnn mlp-small
  MODULE=$PWD/$B/gpu/libtrainbench-cuda.so bash .carry/s7/epochs.sh $B head mlp-wide cnn mlp-small
done 2>&1 | tee $OUT/epochs.txt
