#!/bin/bash
# session 11 call 5 (call 4 rerun): where the data gradient that forms the weights below spends its time (ncu
# sections and source counters, one launch), and the first convolution's forward (rerun as
# call 5 with demangled names as ncu writes them: "(int)32, (bool)1")
B=.carry/bconv
for f in .carry/s11/*.xz; do python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" $f; done
mv .carry/s11/nopf.so $B/gpu/libtrainbench-cuda.so  # call 2's module, 99d9797's code
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for k in 'regex:conv_tc_forward_kernel<\(int\)32'; do
  timeout 150 ncu --clock-control none --cache-control none --kernel-name-base demangled -k "$k" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters --section LaunchStats --section Occupancy \
    --section MemoryWorkloadAnalysis --section SchedulerStats --section InstructionStats \
    $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > "$OUT/ncu-$(echo $k | tr -dc 'a-z0-9_').txt" 2>&1
  echo "ncu $k rc=$?"
done
TRAINBENCH_CUDA_MODULE=$PWD/.carry/s11/prev.so timeout 150 ncu --clock-control none --cache-control none --kernel-name-base demangled -k 'regex:conv_tc_forward_kernel<\(int\)32' --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats \
    $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 12 --limit-train 4096 --limit-test 256 --quiet > "$OUT/ncu-prev-dgrad.txt" 2>&1
echo "ncu prev rc=$?"
ls -la $OUT
