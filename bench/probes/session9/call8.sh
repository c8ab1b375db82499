#!/bin/bash
# session 9 call 8: call 7 again for "S" against 68b015d's module ("head", .carry/bfinal; call 7's
# head runs failed: epochs.sh looked for .carry/bconv's module), five pairs a preset, alternating
B=.carry/bfinal
for f in .carry/s9/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
run () { case $1 in head) MODULE=$PWD/$B/gpu/libtrainbench-cuda.so bash .carry/s9/epochs.sh $B head $2;;
  *) MODULE=$PWD/.carry/s9/$1.so bash .carry/s9/epochs.sh $B $1 $2;; esac; }
for p in mlp-small cnn; do
  for rep in 1 2 3 4 5; do
    if [ $((rep % 2)) = 1 ]; then run head $p; run S $p; else run S $p; run head $p; fi
  done
done 2>&1 | tee $OUT/epochs.txt
