#!/bin/bash
# session 10 call 6: a chosen progress interval rounded up to whole graphs of 8 steps (the cnn's
# 11 -> 16, mlp-small's and mlp-wide's 93 -> 96), the working tree's CLI ("whole", .carry/s10/whole)
# against 9a79815's ("head", .carry/bfinal), both on 9a79815's module; three pairs a preset,
# alternating; and the cnn with TRAINBENCH_GRAPH_STEPS=11 on head's CLI (one graph an interval)
M=$PWD/.carry/bfinal/gpu/libtrainbench-cuda.so
run () { case $1 in head) MODULE=$M bash .carry/s9/epochs.sh .carry/bfinal head $2;;
  whole) MODULE=$M bash .carry/s9/epochs.sh .carry/s10/whole whole $2;;
  g11) TRAINBENCH_GRAPH_STEPS=11 MODULE=$M bash .carry/s9/epochs.sh .carry/bfinal g11 $2;; esac; }
{ for p in cnn mlp-small mlp-wide; do
    for rep in 1 2 3; do
      if [ $((rep % 2)) = 1 ]; then run head $p; run whole $p; else run whole $p; run head $p; fi
    done
  done
  run g11 cnn; run g11 cnn; } 2>&1 | tee $OUT/epochs.txt
