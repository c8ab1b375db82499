#!/bin/bash
# session 8 call 15: the same machine as call 14; the cnn alone, six pairs, the order swapped each
# round (in call 14 final15's module always ran first)
B=.carry/bfinal
for rep in 1 2 3 4 5 6; do
  if [ $((rep % 2)) = 1 ]; then
    MODULE=$PWD/$B/gpu/libtrainbench-cuda.so bash .carry/s7/epochs.sh $B head cnn
    MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev cnn
  else
    MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev cnn
    MODULE=$PWD/$B/gpu/libtrainbench-cuda.so bash .carry/s7/epochs.sh $B head cnn
  fi
done 2>&1 | tee $OUT/epochs.txt
