#!/bin/bash
# session 10 call 3: the convolution pools straight from its fragments (rows of 8 or 24; no
# staging), the backward from the maxima two windows a thread. GPU tests; the cnn five pairs,
# alternating, against f57e2b1's module ("prev"); ncu on the pooling and convolution kernels
B=.carry/bconv
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep -E "maxima|its max pooling" $OUT/test-cuda-parity.txt | cut -c1-200
run () { case $1 in prev) MODULE=$PWD/.carry/s10/prev.so bash .carry/s9/epochs.sh $B prev $2;;
  new) bash .carry/s9/epochs.sh $B new $2;; esac; }
{ for rep in 1 2 3 4 5; do
    if [ $((rep % 2)) = 1 ]; then run prev cnn; run new cnn; else run new cnn; run prev cnn; fi
  done; } 2>&1 | tee $OUT/epochs.txt
timeout 120 ncu --clock-control none --cache-control none -k regex:'pool_|conv_tc_forward|dropout' --launch-skip 12 --launch-count 3 \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > $OUT/ncu-new.txt 2>&1
echo "ncu rc=$?"; grep -E "^  [a-zA-Z_ ]+.*\(|gpu__time|dram__bytes|inst_executed" $OUT/ncu-new.txt | sed 's/  */ /g' | cut -c1-100
