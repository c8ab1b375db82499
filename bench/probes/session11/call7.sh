#!/bin/bash
# session 11 call 7: the data gradient's epilogue that forms the weights below issues the loads of
# three n8 tiles together, then their sums ("new"), against 631699f's module ("head", call 6's)
# and 0cb1d26's ("prev"); GPU tests of new; three rounds of the cnn,
# rotating the order; ncu of new's convolution kernels (time, instructions, shared wavefronts)
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
  head) MODULE=$PWD/.carry/s11/head.so bash bench/probes/session7/epochs.sh $B head $2;;
  new) bash bench/probes/session7/epochs.sh $B new $2;; esac; }
{ run prev cnn; run head cnn; run new cnn
  run new cnn; run prev cnn; run head cnn
  run head cnn; run new cnn; run prev cnn; } 2>&1 | tee $OUT/epochs.txt
for v in new head; do
  M=$PWD/$B/gpu/libtrainbench-cuda.so; [ $v = head ] && M=$PWD/.carry/s11/head.so
  TRAINBENCH_CUDA_MODULE=$M timeout 150 ncu --clock-control none --cache-control none \
    -k regex:'conv_tc_forward|conv_tc_wgrad' --launch-skip 12 --launch-count 6 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
    $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > $OUT/ncu-$v.txt 2>&1
  echo "ncu $v rc=$?"; grep -E "^  [a-zA-Z_ ]+.*\(|gpu__time|inst_executed|shared" $OUT/ncu-$v.txt | sed 's/  */ /g' | cut -c1-110
done
