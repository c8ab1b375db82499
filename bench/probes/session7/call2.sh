#!/bin/bash
# session 7 call 2: the warpgroup-MMA forward and data gradient (conv-wgmma.cu): tests, cnn A/B, ncu
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep "warpgroup" $OUT/test-cuda-parity.txt | head -6
for rep in 1 2; do
  TRAINBENCH_CUDA_WGMMA=0 bash .carry/s6/epochs.sh $B mma cnn
  bash .carry/s6/epochs.sh $B wgmma cnn
done 2>&1 | tee $OUT/epochs.txt
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:conv_ \
  $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 3 --limit-train 2048 --limit-test 64 --quiet > $OUT/ncu-conv.txt 2>&1
grep -E "conv_|duration" $OUT/ncu-conv.txt | tail -24
