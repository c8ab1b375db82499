#!/bin/bash
# session 6 call 3: the cluster dense forward alone (dense-bench, forced route) and in the step (ncu)
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
$B/dense-bench 2>&1 | grep -E "dense_forward" | tee $OUT/dense-bench.txt
for p in mlp-wide cnn; do
timeout 150 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
  $B/app/trainbench-cli train --preset $p --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 4 --limit-train 2048 --limit-test 64 --quiet > $OUT/ncu-$p.csv 2>/dev/null
python3 - $OUT/ncu-$p.csv <<'PY'
import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
hdr=None; ks={}; order=[]
for r in rows:
    if 'Kernel Name' in r: hdr=r; continue
    if hdr and len(r)==len(hdr):
        d=dict(zip(hdr,r)); key=(d['ID'],d['Kernel Name'][:90])
        if key not in ks: ks[key]={}; order.append(key)
        ks[key][d['Metric Name']]=d['Metric Value']
idx=[i for i,k in enumerate(order) if 'gather' in k[1]]
tot=0
for key in order[idx[2]:idx[3]]:
    v=float(ks[key].get('gpu__time_duration.sum').replace(',',''))
    tot+=v
    print('%-90s %9.0f'%(key[1],v))
print('sum', tot)
PY
timeout 150 ncu --clock-control none --cache-control none -k regex:dense_cluster --launch-skip 2 --launch-count 2 \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
  $B/app/trainbench-cli train --preset $p --device cuda --dataset $D --epochs 1 --tf32 on --max-steps 4 --limit-train 2048 --limit-test 64 --quiet > $OUT/ncu-full-$p.txt 2>&1
grep -E "dense_cluster|Duration|Cluster|Occupancy|Stall|Throughput|Waves|Block Limit|Registers|Shared Memory|L2 Hit|Mem Busy|Max Bandwidth|One or More|No Eligible|Issued Warp|Warp Cycles" $OUT/ncu-full-$p.txt | head -60
done
