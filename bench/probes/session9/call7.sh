#!/bin/bash
# session 9 call 7: two variants against 68b015d's module ("head", .carry/bfinal): "S", the
# small-n products' warps a row by k >= 128 -> 8 (was k >= 512; mlp-small's and the cnn's
# 128 -> 10 output layers get one row a block); "F", the cluster dense forward in clusters of
# 16 blocks (non-portable; was 8). Epochs in rotating order; F's kernels listed (ncu)
B=.carry/bfinal
for f in .carry/s9/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
D=.carry/data/fashion-mnist
run () { case $1 in head) bash .carry/s9/epochs.sh $B head $2;;
  *) MODULE=$PWD/.carry/s9/$1.so bash .carry/s9/epochs.sh $B $1 $2;; esac; }
{ for p in mlp-small cnn; do
    for v in head S; do run $v $p; done; for v in S head; do run $v $p; done
    for v in head S; do run $v $p; done; for v in S head; do run $v $p; done
  done
  for p in mlp-wide mlp-small; do
    for v in head F; do run $v $p; done; for v in F head; do run $v $p; done
    for v in head F; do run $v $p; done; for v in F head; do run $v $p; done
  done; } 2>&1 | tee $OUT/epochs.txt
TRAINBENCH_CUDA_MODULE=$PWD/.carry/s9/F.so timeout 100 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --launch-skip 200 --launch-count 8 \
  $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-F.txt 2>&1
echo "== ncu F"; grep -E "^  [a-zA-Z_]+.*\(|gpu__time_duration" $OUT/ncu-F.txt | paste - - | awk '{print $1, $2, $3, $4, $(NF)}' | head -8
