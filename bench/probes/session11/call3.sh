#!/bin/bash
# session 11 call 3: call 2's module ("nopf") against the same with the block's rows of the
# layer below's y prefetched into L2 as the data gradient's block starts ("new"), and 0cb1d26's
# ("prev"); GPU tests of new; three rounds of the cnn, rotating the order; ncu of new's kernels
B=.carry/bconv
for f in .carry/s11/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
mv .carry/s11/new.so $B/gpu/libtrainbench-cuda.so  # carried compressed (the carry limit)
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
run () { case $1 in prev) MODULE=$PWD/.carry/s11/prev.so bash bench/probes/session7/epochs.sh $B prev $2;;
  nopf) MODULE=$PWD/.carry/s11/nopf.so bash bench/probes/session7/epochs.sh $B nopf $2;;
  new) bash bench/probes/session7/epochs.sh $B new $2;; esac; }
{ run prev cnn; run nopf cnn; run new cnn
  run new cnn; run prev cnn; run nopf cnn
  run nopf cnn; run new cnn; run prev cnn; } 2>&1 | tee $OUT/epochs.txt
timeout 150 ncu --clock-control none --cache-control none \
  -k regex:'conv_tc_forward|conv_direct_wgrad' --launch-skip 20 --launch-count 8 \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
  $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > $OUT/ncu-new.txt 2>&1
echo "ncu rc=$?"; grep -E "^  [a-zA-Z_ ]+.*\(|gpu__time|dram__bytes|inst_executed|hit_rate" $OUT/ncu-new.txt | sed 's/  */ /g' | cut -c1-110
