#!/bin/bash
# session 9 call 9: GPU tests of the working tree's build (68b015d + the small-n split for k >= 128,
# "head2", .carry/bconv); "D4": the cluster dense forward in clusters of four (was eight),
# against head2, mlp-wide and mlp-small, five pairs each, alternating
B=.carry/bconv
for f in .carry/s9/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training test-cuda-lost; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
run () { case $1 in head2) bash .carry/s9/epochs.sh $B head2 $2;;
  *) MODULE=$PWD/.carry/s9/$1.so bash .carry/s9/epochs.sh $B $1 $2;; esac; }
for p in mlp-wide mlp-small; do
  for rep in 1 2 3 4 5; do
    if [ $((rep % 2)) = 1 ]; then run head2 $p; run D4 $p; else run D4 $p; run head2 $p; fi
  done
done 2>&1 | tee $OUT/epochs.txt
