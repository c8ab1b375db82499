#!/bin/bash
# session 9 call 3: dense_loss_dx in thread-block clusters, four blocks a row ("c4", the commit's
# build) or eight ("c8", a variant), against 6631cc4's module ("prev"): GPU tests, mlp-wide
# four rounds in rotating order, each step kernel's time with warm caches (ncu)
B=.carry/bconv
for f in .carry/s9/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep "dense_loss.*dx\|dense_loss_dx" $OUT/test-cuda-parity.txt | head -12
run () { case $1 in prev) MODULE=$PWD/.carry/s9/prev.so bash .carry/s9/epochs.sh $B prev mlp-wide;;
  c4) bash .carry/s9/epochs.sh $B c4 mlp-wide;;
  c8) MODULE=$PWD/.carry/s9/c8.so bash .carry/s9/epochs.sh $B c8 mlp-wide;; esac; }
{ for v in prev c4 c8; do run $v; done
  for v in c4 c8 prev; do run $v; done
  for v in c8 prev c4; do run $v; done
  for v in prev c4 c8; do run $v; done; } 2>&1 | tee $OUT/epochs.txt
timeout 100 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --launch-skip 200 --launch-count 16 \
  $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-c4.txt 2>&1
echo "== ncu c4 (warm caches)"; grep -E "^  [a-zA-Z_]+.*\(|gpu__time_duration" $OUT/ncu-c4.txt | paste - - | awk '{print $1, $2, $(NF)}' | head -16
