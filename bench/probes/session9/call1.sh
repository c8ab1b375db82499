#!/bin/bash
# session 9 call 1: the 1000 x 1000 update's input-gradient partials added by the last block of
# each row of tiles, the dx kernel gone; "end": after the block's update (the commit), "early":
# right after its partials (a variant); "prev": 6631cc4's module. GPU tests, mlp-wide A/B/C,
# three rounds in rotating order, then each kernel's time in the step with warm caches (ncu)
B=.carry/bconv
for f in .carry/s9/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
run () { case $1 in prev) MODULE=$PWD/.carry/s9/prev.so bash .carry/s9/epochs.sh $B prev mlp-wide;;
  end) bash .carry/s9/epochs.sh $B end mlp-wide;;
  early) MODULE=$PWD/.carry/s9/early.so bash .carry/s9/epochs.sh $B early mlp-wide;; esac; }
{ for v in prev end early; do run $v; done
  for v in end early prev; do run $v; done
  for v in early prev end; do run $v; done
  for v in prev end early; do run $v; done; } 2>&1 | tee $OUT/epochs.txt
for m in end prev; do
  [ $m = prev ] && export TRAINBENCH_CUDA_MODULE=$PWD/.carry/s9/prev.so
  timeout 100 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --launch-skip 200 --launch-count 16 \
    $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-$m.txt 2>&1
  echo "== ncu $m (warm caches)"; grep -E "^  [a-zA-Z_]+.*\(|gpu__time_duration" $OUT/ncu-$m.txt | paste - - | awk '{print $1, $2, $(NF)}' | head -16
done
