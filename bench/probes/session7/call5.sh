#!/bin/bash
# session 7 call 5: conv-wgmma v3 (loader without divisions)
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
for rep in 1 2; do
  TRAINBENCH_CUDA_WGMMA=0 bash .carry/s7/epochs.sh $B mma cnn
  bash .carry/s7/epochs.sh $B wgmma cnn
done 2>&1 | tee $OUT/epochs.txt
timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section Occupancy --section InstructionStats \
    -k regex:conv_wg_forward --launch-skip 2 --launch-count 2 \
    $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 3 --limit-train 2048 --limit-test 64 --quiet > $OUT/ncu-wg.txt 2>&1
grep -E "conv_wg|Duration|Warp Cycles Per Issued|Achieved Occupancy|Issued Instructions  |Compute \(SM\)|Theoretical Occ" $OUT/ncu-wg.txt | head -24
