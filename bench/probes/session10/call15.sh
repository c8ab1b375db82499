#!/bin/bash
# session 10 call 15: call 14's mlp-wide again, five pairs alternating (its three pairs had the
# mends' module 1 us slower at the median, within the spread)
B=.carry/bconv
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
run () { case $1 in head) MODULE=$PWD/.carry/s10/head.so bash bench/probes/session7/epochs.sh $B head $2;;
  mend) bash bench/probes/session7/epochs.sh $B mend $2;; esac; }
{ for rep in 1 2 3 4 5; do
    if [ $((rep % 2)) = 1 ]; then run head mlp-wide; run mend mlp-wide; else run mend mlp-wide; run head mlp-wide; fi
  done; } 2>&1 | tee $OUT/epochs.txt
