#!/bin/bash
# session 7 call 3: conv-wgmma after the smem-allowance fix; A/B without the proxy fence; ncu stalls
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
  MODULE=$PWD/.carry/s7/nofence.so bash .carry/s7/epochs.sh $B nofence cnn
done 2>&1 | tee $OUT/epochs.txt
for v in base nofence; do
  M=$PWD/$B/gpu/libtrainbench-cuda.so; [ $v = nofence ] && M=$PWD/.carry/s7/nofence.so
  TRAINBENCH_CUDA_MODULE=$M timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy \
    -k regex:conv_wg_forward --launch-skip 2 --launch-count 2 \
    $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 3 --limit-train 2048 --limit-test 64 --quiet > $OUT/ncu-$v.txt 2>&1
  echo "== $v"; grep -E "conv_wg|Duration|Warp Cycles Per Issued|Achieved Occupancy|Memory Throughput|L1/TEX Hit|Mem Busy|Compute \(SM\)" $OUT/ncu-$v.txt | head -24
  grep -E "stalled|Stall" $OUT/ncu-$v.txt | head -8
done
