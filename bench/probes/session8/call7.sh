#!/bin/bash
# session 8 call 7: why the cnn's step is 4-8 us longer on this session's module though it
# takes no branch (calls 4-6): the branch stream synchronized too (TB_PROBE_SYNC_BRANCH),
# the branch's lane not opened at all (TB_PROBE_NO_BRANCH_LANE: 36 MiB less allocated before
# the model's buffers), against final15's module; mlp-wide as it is
B=.carry/bconv
for rep in 1 2 3; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev cnn
  TB_PROBE_SYNC_BRANCH=1 bash .carry/s7/epochs.sh $B sync-br cnn
  bash .carry/s7/epochs.sh $B nosync cnn
  TB_PROBE_NO_BRANCH_LANE=1 bash .carry/s7/epochs.sh $B no-lane cnn
done 2>&1 | tee $OUT/epochs.txt
