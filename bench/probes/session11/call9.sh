#!/bin/bash
# session 11 call 9: the review's mends (one 2 x 2 maximum and one pooled store shared by the
# pooling kernels and the convolution that pools; the generic window search for the maxima's
# other windows; the fragments' rows and pixels from FwdLane; the weight gradient's partials
# derived) against b8adbc8's module ("prev", final28's): GPU tests, then the cnn and mlp-small,
# three rounds, rotating; the same losses and accuracy are expected (nothing computed changed)
B=.carry/bconv
for f in .carry/s11b/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
mv .carry/s11b/new.so $B/gpu/libtrainbench-cuda.so  # carried compressed (the carry limit)
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
run () { case $1 in prev) MODULE=$PWD/.carry/s11b/prev.so bash bench/probes/session7/epochs.sh $B prev $2;;
  new) bash bench/probes/session7/epochs.sh $B new $2;; esac; }
{ for p in cnn mlp-small; do run prev $p; run new $p; run new $p; run prev $p; run prev $p; run new $p; done; } 2>&1 | tee $OUT/epochs.txt
