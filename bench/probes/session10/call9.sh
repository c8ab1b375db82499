#!/bin/bash
# session 10 call 9: the whole change against where the session started, CLI and module: cab66bc
# ("now", .carry/bfinal) against f57e2b1 ("start", its CLI and module); three pairs a preset,
# alternating, to see that mlp-small and mlp-wide did not move (final23's mlp-small step was
# 19.3 us where final22's was 17.5)
for f in .carry/s10/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
run () { case $1 in now) MODULE=$PWD/.carry/bfinal/gpu/libtrainbench-cuda.so bash .carry/s9/epochs.sh .carry/bfinal now $2;;
  start) MODULE=$PWD/.carry/s10/prev.so bash .carry/s9/epochs.sh .carry/s10/prevcli start $2;; esac; }
{ for p in mlp-small mlp-wide cnn; do
    for rep in 1 2 3; do
      if [ $((rep % 2)) = 1 ]; then run start $p; run now $p; else run now $p; run start $p; fi
    done
  done; } 2>&1 | tee $OUT/epochs.txt
