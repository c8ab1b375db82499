#!/bin/bash
# session 8 call 9: is the cnn slower on this session's module (HEAD, 9f8ec1a, which takes no
# branch for the cnn)? Five alternating pairs, the order swapped each time, against final15's
# module; mlp-small too
B=.carry/bfinal
for rep in 1 2 3 4 5; do
  if [ $((rep % 2)) = 1 ]; then
    MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev cnn mlp-small
    MODULE=$PWD/$B/gpu/libtrainbench-cuda.so bash .carry/s7/epochs.sh $B head cnn mlp-small
  else
    MODULE=$PWD/$B/gpu/libtrainbench-cuda.so bash .carry/s7/epochs.sh $B head cnn mlp-small
    MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev cnn mlp-small
  fi
done 2>&1 | tee $OUT/epochs.txt
