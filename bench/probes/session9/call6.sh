#!/bin/bash
# session 9 call 6: the dx kernel's loads of the partials all in flight together ("dx16", the
# working tree's build) against 68b015d's module ("prev"): GPU tests, mlp-wide five pairs in
# alternating order, the dx kernel alone (ncu, warm caches)
B=.carry/bconv
for f in .carry/s9/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
for rep in 1 2 3 4 5; do
  if [ $((rep % 2)) = 1 ]; then
    MODULE=$PWD/.carry/s9/prev.so bash .carry/s9/epochs.sh $B prev mlp-wide; bash .carry/s9/epochs.sh $B dx16 mlp-wide
  else
    bash .carry/s9/epochs.sh $B dx16 mlp-wide; MODULE=$PWD/.carry/s9/prev.so bash .carry/s9/epochs.sh $B prev mlp-wide
  fi
done 2>&1 | tee $OUT/epochs.txt
for m in dx16 prev; do
  [ $m = prev ] && export TRAINBENCH_CUDA_MODULE=$PWD/.carry/s9/prev.so
  timeout 100 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum -k regex:dense_update_dx_kernel --launch-skip 20 --launch-count 5 \
    $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 60 --limit-train 4096 --limit-test 64 --quiet > $OUT/ncu-$m.txt 2>&1
  echo "== ncu $m"; grep -E "gpu__time_duration" $OUT/ncu-$m.txt | awk '{print $(NF)}' | tr '\n' ' '; echo
done
