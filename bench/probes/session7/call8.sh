#!/bin/bash
# session 7 call 8: conv-wgmma with the two-filter epilogue; in-pipeline kernel times (nsys) with and without it
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
export PATH=$PATH:/usr/local/cuda/bin
for t in test-cuda-parity test-cuda-training; do
  timeout 200 $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head -20
for rep in 1 2 3; do
  TRAINBENCH_CUDA_WGMMA=0 bash .carry/s7/epochs.sh $B mma cnn
  bash .carry/s7/epochs.sh $B wgmma cnn
done 2>&1 | tee $OUT/epochs.txt
which nsys || ls /usr/local/cuda/bin | grep -i nsys
for v in 0 1; do
  TRAINBENCH_CUDA_WGMMA=$v timeout 120 nsys profile -o $OUT/nsys-wgmma$v --force-overwrite true \
    $B/app/trainbench-cli train --preset cnn --device cuda:0 --dataset $D --epochs 1 --tf32 on --quiet --out /tmp/n.json > $OUT/nsys-run$v.txt 2>&1
  nsys stats --report cuda_gpu_kern_sum --format csv $OUT/nsys-wgmma$v.nsys-rep > $OUT/nsys-kern$v.csv 2>/dev/null
  echo "== wgmma=$v"; head -14 $OUT/nsys-kern$v.csv | cut -d, -f1-4,9 
  rm -f $OUT/nsys-wgmma$v.nsys-rep $OUT/nsys-wgmma$v.sqlite
done
