#!/bin/bash
# Does libgomp's wait policy explain the host's unstable 2-thread MLP steps?
# Median ms per step, each configuration twice, one build with OMP_WAIT_POLICY
# unset, active and passive. Its figures were not recorded in bench/results.
#   .carry/bfinal: the build bench/results/README.md describes
# Reproduce: `meson setup .carry/bfinal -Dgui=disabled -Dcuda=disabled`,
# Fashion-MNIST's IDX files in .carry/data/fashion-mnist, then
# `bash bench/probes/wait-policy-probe.sh` from the repository root.
D=.carry/data/fashion-mnist
CLI=.carry/bfinal/app/trainbench-cli
one () { # policy threads preset steps
  env ${1:+OMP_WAIT_POLICY=$1} $CLI train --preset $3 --dataset $D --epochs 1 --threads $2 --max-steps $4 --quiet --out /tmp/r.json >/tmp/log 2>&1 || cat /tmp/log
  python3 -c "
import json; r=json.load(open('/tmp/r.json')); s=r['steps']; print('${1:-default}', $2, '$3', 'median_ms', round(s['seconds_median']*1000,3), 'p10', round(s['seconds_p10']*1000,3), 'p90', round(s['seconds_p90']*1000,3), 'epoch_s', round(r['epochs'][0]['seconds'],3))"
}
for rep in 1 2; do for pol in "" active passive; do
  one "$pol" 2 mlp-wide 1875; one "$pol" 16 mlp-small 1875; one "$pol" 2 mlp-small 1875
done; done
