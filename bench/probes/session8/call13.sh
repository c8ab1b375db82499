#!/bin/bash
# session 8 call 13: mlp-small on HEAD's module (f74833c; it takes no branch) against final15's,
# eight alternating pairs, the order swapped each round: is its step ~0.9 us longer (call 9)?
B=.carry/bfinal
for rep in 1 2 3 4 5 6 7 8; do
  if [ $((rep % 2)) = 1 ]; then
    MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-small
    MODULE=$PWD/$B/gpu/libtrainbench-cuda.so bash .carry/s7/epochs.sh $B head mlp-small
  else
    MODULE=$PWD/$B/gpu/libtrainbench-cuda.so bash .carry/s7/epochs.sh $B head mlp-small
    MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-small
  fi
done 2>&1 | tee $OUT/epochs.txt
