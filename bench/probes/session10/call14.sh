#!/bin/bash
# session 10 call 14: the second review's mends (dense_loss_dx's cluster kernel loads its weights
# in one place before or after the wait; which output rows the convolution pools, derived from the
# warp's tiles): GPU tests on the working tree's build, then mlp-wide (which runs that kernel) and
# the cnn, three pairs each alternating, against e6f31fa's module ("head") on the same CLI
B=.carry/bconv
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
run () { case $1 in head) MODULE=$PWD/.carry/s10/head.so bash bench/probes/session7/epochs.sh $B head $2;;
  mend) bash bench/probes/session7/epochs.sh $B mend $2;; esac; }
{ for p in mlp-wide cnn; do
    for rep in 1 2 3; do
      if [ $((rep % 2)) = 1 ]; then run head $p; run mend $p; else run mend $p; run head $p; fi
    done
  done; } 2>&1 | tee $OUT/epochs.txt
