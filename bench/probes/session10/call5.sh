#!/bin/bash
# session 10 call 5: variants of 9a79815's module ("new"): "k2" (the first convolution's weight
# gradient with two filters a warp and three blocks a multiprocessor, 80 registers, where it had
# four filters and two blocks, 122) and "bw4" (the backward from the maxima four windows a
# thread). Parity for each; the cnn in rotating order, three rounds; each kernel alone (ncu)
B=.carry/bconv
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
D=.carry/data/fashion-mnist
mod () { case $1 in new) echo $PWD/$B/gpu/libtrainbench-cuda.so;; *) echo $PWD/.carry/s10/$1.so;; esac; }
for v in k2 bw4; do
  TRAINBENCH_CUDA_MODULE=$(mod $v) timeout 200 $B/tests/gpu/test-cuda-parity > $OUT/parity-$v.txt 2>&1
  echo "parity $v rc=$? ok=$(grep -c '^ok' $OUT/parity-$v.txt) notok=$(grep -c '^not ok' $OUT/parity-$v.txt)"
done
run () { MODULE=$(mod $1) bash .carry/s9/epochs.sh $B $1 cnn; }
{ for v in new k2 bw4; do run $v; done
  for v in bw4 new k2; do run $v; done
  for v in k2 bw4 new; do run $v; done; } 2>&1 | tee $OUT/epochs.txt
for v in new k2 bw4; do
  TRAINBENCH_CUDA_MODULE=$(mod $v) timeout 120 ncu --clock-control none --cache-control none -k regex:'conv_direct_wgrad|pool_backward' --launch-skip 8 --launch-count 4 \
    --metrics gpu__time_duration.sum $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > $OUT/ncu-$v.txt 2>&1
  echo "== $v"; grep -E "^  [a-zA-Z_ ]+.*\(|gpu__time" $OUT/ncu-$v.txt | sed 's/  */ /g' | paste - - | awk '{print $1, $2, $NF}'
done
