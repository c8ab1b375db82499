#!/bin/bash
# session 10 call 10: the review's mends (the pooling ops' two entry points each folded into
# one function, the forward kernel's epilogues sharing their lane and channel-row loops, the
# pooling tests in one function): GPU tests on the working tree's build, and the cnn, three pairs
# alternating, against cab66bc's module ("head") on the same CLI
B=.carry/bconv
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
run () { case $1 in head) MODULE=$PWD/.carry/s10/head.so bash .carry/s9/epochs.sh $B head $2;;
  mend) bash .carry/s9/epochs.sh $B mend $2;; esac; }
{ for rep in 1 2 3; do
    if [ $((rep % 2)) = 1 ]; then run head cnn; run mend cnn; else run mend cnn; run head cnn; fi
  done; } 2>&1 | tee $OUT/epochs.txt
