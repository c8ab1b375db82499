#!/bin/bash
# session 6 call 9: weights requested early, A/B against 8757bfb's module (head) in the same call
B=.carry/bconv
for rep in 1 2 3; do for p in mlp-wide mlp-small; do
  bash .carry/s6/epochs.sh $B new $p; MODULE=$PWD/.carry/s6/head.so bash .carry/s6/epochs.sh $B head $p
done; done 2>&1 | tee $OUT/epochs.txt
