#!/bin/bash
# session 10 call 2: why call 1's kernels were slower. Variants of the working tree's module:
# "apart" (the convolution pools without the dropout; dropout_forward's kernel after it) and
# "bw2" (the backward from the maxima two windows a thread, float4 stores); the cnn in rotating
# order against "new" (call 1's) and "prev" (f57e2b1's); then ncu's speed-of-light, occupancy and
# launch sections on the pooling and convolution-forward kernels of prev, new, apart and bw2
B=.carry/bconv
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
D=.carry/data/fashion-mnist
mod () { case $1 in new) echo $PWD/$B/gpu/libtrainbench-cuda.so;; *) echo $PWD/.carry/s10/$1.so;; esac; }
run () { MODULE=$(mod $1) bash .carry/s9/epochs.sh $B $1 cnn; }
{ for v in prev new apart bw2; do run $v; done
  for v in bw2 apart new prev; do run $v; done
  for v in apart prev bw2 new; do run $v; done; } 2>&1 | tee $OUT/epochs.txt
for v in prev new apart bw2; do
  TRAINBENCH_CUDA_MODULE=$(mod $v) timeout 120 ncu --clock-control none --cache-control none -k regex:'pool_|conv_tc_forward|dropout' --launch-skip 12 --launch-count 4 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --metrics smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > $OUT/ncu-$v.txt 2>&1
  echo "== $v rc=$?"
  grep -E "^  [a-zA-Z_ ]+.*\(|Duration|dram__bytes|inst_executed|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|Compute \(SM\) Thr" $OUT/ncu-$v.txt | sed 's/  */ /g' | cut -c1-110
done
