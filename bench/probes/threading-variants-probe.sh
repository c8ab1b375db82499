#!/bin/bash
D=.carry/data/fashion-mnist
for v in A B C; do for t in 2 16; do for p in mlp-small mlp-wide cnn; do
  ms=600; [ $p = cnn ] && ms=30
  .carry/b$v/app/trainbench-cli train --preset $p --dataset $D --epochs 1 --threads $t --max-steps $ms --quiet --out /tmp/r.json >/tmp/log 2>&1 || cat /tmp/log
  python3 -c "
import json; r=json.load(open('/tmp/r.json')); s=r['steps']; print('$v', $t, '$p', 'median_ms', round(s['seconds_median']*1000,3), 'p10', round(s['seconds_p10']*1000,3), 'p90', round(s['seconds_p90']*1000,3))"
done; done; done
