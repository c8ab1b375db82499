#!/bin/bash
# session 7 call 6: conv-wgmma forward only where it pays (data pass on mma.sync below 64 filters), loader pointers; ncu per-SASS counts
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-parity test-cuda-training; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
for rep in 1 2 3; do
  TRAINBENCH_CUDA_WGMMA=0 bash .carry/s7/epochs.sh $B mma cnn
  bash .carry/s7/epochs.sh $B wgmma cnn
done 2>&1 | tee $OUT/epochs.txt
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum -k regex:conv_ \
  $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 2 --limit-train 2048 --limit-test 64 --quiet > $OUT/ncu-conv.txt 2>&1
grep -E "conv_|duration|inst_exec" $OUT/ncu-conv.txt | tail -22
timeout 150 ncu --clock-control none --section SourceCounters --page source --print-source sass --csv \
  -k regex:conv_wg_forward --launch-skip 1 --launch-count 1 \
  $B/app/trainbench-cli train --preset cnn --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 2 --limit-train 2048 --limit-test 64 --quiet > $OUT/ncu-source.csv 2>$OUT/ncu-source.err
echo "source csv: $(wc -l < $OUT/ncu-source.csv) lines"; tail -3 $OUT/ncu-source.err
