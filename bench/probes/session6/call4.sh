#!/bin/bash
# session 6 call 4: cluster dense forward variants (BN, STAGES, SPLIT): dense-bench and epochs
B=.carry/bconv
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for v in 0 1 2 3 4; do
  echo "variant $v"; TRAINBENCH_CUDA_DF_VARIANT=$v $B/dense-bench 2>&1 | grep -E "dense_forward +32 x (128|1000)|variant"
done | tee $OUT/dense-bench.txt
for rep in 1 2; do for v in off 0 1 2 3 4; do for p in mlp-wide mlp-small; do TRAINBENCH_CUDA_DF_VARIANT=$v bash .carry/s6/epochs.sh $B v$v $p; done; done; done 2>&1 | tee $OUT/epochs.txt
TRAINBENCH_CUDA_DF_VARIANT=1 $B/tests/gpu/test-cuda-parity > $OUT/parity1.txt 2>&1; echo "parity v1 rc=$? notok=$(grep -c '^not ok' $OUT/parity1.txt)"
TRAINBENCH_CUDA_DF_VARIANT=4 $B/tests/gpu/test-cuda-parity > $OUT/parity4.txt 2>&1; echo "parity v4 rc=$? notok=$(grep -c '^not ok' $OUT/parity4.txt)"
