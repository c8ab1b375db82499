#!/bin/bash
# session 10 call 13: two small variants of ff291bf's module (.carry/bconv): "p4" (the first
# convolution's forward four positions a thread, 92 registers, where it took two) and "lb6" (the
# pooling backward from the maxima held to 40 registers for six blocks a multiprocessor, 20 bytes
# spilled; it had 48 and five); the cnn in rotating order, three rounds, and the two kernels
# alone (ncu)
B=.carry/bconv
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
D=.carry/data/fashion-mnist
mod () { case $1 in new) echo $PWD/$B/gpu/libtrainbench-cuda.so;; *) echo $PWD/.carry/s10/$1.so;; esac; }
run () { MODULE=$(mod $1) bash .carry/s9/epochs.sh $B $1 cnn; }
{ for v in new p4 lb6; do run $v; done
  for v in lb6 new p4; do run $v; done
  for v in p4 lb6 new; do run $v; done; } 2>&1 | tee $OUT/epochs.txt
for v in new p4 lb6; do
  TRAINBENCH_CUDA_MODULE=$(mod $v) timeout 120 ncu --clock-control none --cache-control none -k regex:'conv_direct_forward|pool_backward' --launch-skip 8 --launch-count 4 \
    --metrics gpu__time_duration.sum $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > $OUT/ncu-$v.txt 2>&1
  echo "== $v"; grep -E "^  [a-zA-Z_ ]+.*\(|gpu__time" $OUT/ncu-$v.txt | sed 's/  */ /g' | paste - - | awk '{print $1, $2, $NF}'
done
