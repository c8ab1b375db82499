#!/bin/bash
# session 6 call 1: the GPU tests on the unrun mends; epochs; cnn and mlp-wide kernel lists (ncu)
B=.carry/bconv
D=.carry/data/fashion-mnist
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
for t in test-cuda-devices test-cuda-parity test-cuda-training test-cuda-lost; do
  $B/tests/gpu/$t > $OUT/$t.txt 2>&1; echo "$t rc=$? ok=$(grep -c '^ok' $OUT/$t.txt) notok=$(grep -c '^not ok' $OUT/$t.txt)"
done
grep "^not ok" $OUT/test-*.txt | head
bash .carry/s5/epochs.sh $B new mlp-small mlp-wide cnn 2>&1 | tee $OUT/epochs.txt
for p in cnn mlp-wide; do
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
done
