#!/bin/bash
# session 10 call 7: nn_dropout_keep's test as an integer threshold on the top 24 bits, without
# splitmix's last step (the same masks); the working tree's build ("int", .carry/bconv, with
# call 6's whole-graph intervals too) against 9a79815's module on the same CLI ("head"). GPU
# tests; pairs alternating, the cnn four, mlp-small and mlp-wide two
B=.carry/bconv
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
run () { case $1 in head) MODULE=$PWD/.carry/s10/head.so bash .carry/s9/epochs.sh $B head $2;;
  int) bash .carry/s9/epochs.sh $B int $2;; esac; }
{ for p in cnn cnn mlp-small mlp-wide; do
    for rep in 1 2; do
      if [ $((rep % 2)) = 1 ]; then run head $p; run int $p; else run int $p; run head $p; fi
    done
  done; } 2>&1 | tee $OUT/epochs.txt
