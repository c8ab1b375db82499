#!/bin/bash
# session 7 call 11: the tensor-core update kernel adds its input tile's partial dx itself (last block), no dx kernel; prev.so = final15's module
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
grep "dense_backward_update adam n 32 in 1000 out 1000" $OUT/test-cuda-parity.txt | head -4
for rep in 1 2 3; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-wide
  bash .carry/s7/epochs.sh $B new mlp-wide
done 2>&1 | tee $OUT/epochs.txt
for rep in 1 2; do
  MODULE=$PWD/.carry/s7/prev.so bash .carry/s7/epochs.sh $B prev mlp-small cnn
  bash .carry/s7/epochs.sh $B new mlp-small cnn
done 2>&1 | tee -a $OUT/epochs.txt
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:dense_update --launch-skip 8 --launch-count 4 \
    $B/app/trainbench-cli train --preset mlp-wide --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 6 --limit-train 2048 --limit-test 64 --quiet 2>&1 | grep -E "dense_update|duration"
