#!/bin/bash
# session 6 call 8: weights requested before griddepcontrol.wait (dense forward, update kernels)
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training; do
  $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head
grep "dense_backward_update.*TF32" $OUT/test-cuda-parity.txt | head -8
for rep in 1 2 3; do bash .carry/s6/epochs.sh $B new mlp-wide; done 2>&1 | tee $OUT/epochs.txt
for rep in 1 2; do bash .carry/s6/epochs.sh $B new mlp-small cnn; done 2>&1 | tee -a $OUT/epochs.txt
