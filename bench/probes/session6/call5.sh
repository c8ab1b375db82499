#!/bin/bash
# session 6 call 5: approximate sqrt/div in the update rules; fused dense update for the cnn's batch of 256
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
TRAINBENCH_CUDA_FAST_UPDATE=1 $B/tests/gpu/test-cuda-parity > $OUT/parity-fast.txt 2>&1; echo "parity fast rc=$? ok=$(grep -c '^ok' $OUT/parity-fast.txt) notok=$(grep -c '^not ok' $OUT/parity-fast.txt)"
grep "^not ok" $OUT/parity-fast.txt | head -5
TRAINBENCH_CUDA_FAST_UPDATE=1 TRAINBENCH_CUDA_DU_MAXN=256 $B/tests/gpu/test-cuda-training > $OUT/training-both.txt 2>&1; echo "training both rc=$? ok=$(grep -c '^ok' $OUT/training-both.txt) notok=$(grep -c '^not ok' $OUT/training-both.txt)"
grep "^not ok" $OUT/training-both.txt | head -5
$B/tests/gpu/test-cuda-parity > $OUT/parity.txt 2>&1; echo "parity rc=$? ok=$(grep -c '^ok' $OUT/parity.txt) notok=$(grep -c '^not ok' $OUT/parity.txt)"
for rep in 1 2; do
  bash .carry/s6/epochs.sh $B base cnn
  TRAINBENCH_CUDA_DU_MAXN=256 bash .carry/s6/epochs.sh $B maxn256 cnn
  TRAINBENCH_CUDA_FAST_UPDATE=1 bash .carry/s6/epochs.sh $B fast cnn
  TRAINBENCH_CUDA_FAST_UPDATE=1 TRAINBENCH_CUDA_DU_MAXN=256 bash .carry/s6/epochs.sh $B both cnn
  bash .carry/s6/epochs.sh $B base mlp-wide mlp-small
  TRAINBENCH_CUDA_FAST_UPDATE=1 bash .carry/s6/epochs.sh $B fast mlp-wide mlp-small
done 2>&1 | tee $OUT/epochs.txt
