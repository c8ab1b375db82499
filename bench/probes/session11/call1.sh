#!/bin/bash
# session 11 call 1: the second convolution's data gradient forms the first convolution's
# weight gradient (conv2d_backward_below, ABI 11) instead of writing the first layer's output
# gradient. GPU tests; the cnn five pairs, alternating, against 0cb1d26's module ("prev", an
# ABI 10 module: the same CLI then runs the separate ops); ncu on the kernels involved
B=.carry/bconv
for f in .carry/s11/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
mv .carry/s11/new.so $B/gpu/libtrainbench-cuda.so  # carried compressed (the carry limit)
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep -E "weights below" $OUT/test-cuda-parity.txt | cut -c1-260
run () { case $1 in prev) MODULE=$PWD/.carry/s11/prev.so bash bench/probes/session7/epochs.sh $B prev $2;;
  new) bash bench/probes/session7/epochs.sh $B new $2;; esac; }
{ for rep in 1 2 3 4 5; do
    if [ $((rep % 2)) = 1 ]; then run prev cnn; run new cnn; else run new cnn; run prev cnn; fi
  done
  run prev mlp-small; run new mlp-small; } 2>&1 | tee $OUT/epochs.txt
for v in new prev; do
  M=$PWD/$B/gpu/libtrainbench-cuda.so; [ $v = prev ] && M=$PWD/.carry/s11/prev.so
  TRAINBENCH_CUDA_MODULE=$M timeout 150 ncu --clock-control none --cache-control none \
    -k regex:'conv_tc_forward|conv_direct_wgrad|conv_tc_wgrad|conv_tc_sum' --launch-skip 30 --launch-count 12 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > $OUT/ncu-$v.txt 2>&1
  echo "ncu $v rc=$?"; grep -E "^  [a-zA-Z_ ]+.*\(|gpu__time|dram__bytes|inst_executed" $OUT/ncu-$v.txt | sed 's/  */ /g' | cut -c1-110
done
