#!/bin/bash
# session 10 call 1: max pooling that records its maxima, and the cnn's second convolution with
# its pooling as one kernel (ABI 10). GPU tests; the cnn five pairs of runs, alternating, against
# f57e2b1's module ("prev", ABI 9: the engine runs the old ops with it); mlp-small and mlp-wide
# once each way; then the cnn's step kernel by kernel with warm caches (ncu)
B=.carry/bconv
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep -E "maxima|its max pooling" $OUT/test-cuda-parity.txt | head -20
run () { case $1 in prev) MODULE=$PWD/.carry/s10/prev.so bash .carry/s9/epochs.sh $B prev $2;;
  new) bash .carry/s9/epochs.sh $B new $2;; esac; }
{ for rep in 1 2 3 4 5; do
    if [ $((rep % 2)) = 1 ]; then run prev cnn; run new cnn; else run new cnn; run prev cnn; fi
  done
  for p in mlp-small mlp-wide; do run prev $p; run new $p; done; } 2>&1 | tee $OUT/epochs.txt
timeout 200 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --launch-skip 300 --launch-count 60 \
  $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 40 --limit-train 10240 --limit-test 256 --quiet > $OUT/ncu-cnn.txt 2>&1
echo "ncu rc=$?"; grep -E "^  [a-zA-Z_]+.*\(|gpu__time_duration" $OUT/ncu-cnn.txt | paste - - | awk '{print $1, $2, $3, $(NF)}' | head -30
