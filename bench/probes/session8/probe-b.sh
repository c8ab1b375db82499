#!/bin/bash
# upper bound: mlp-wide's 1000x1000 update beside the 784x1000 one, its dx on cuBLAS first
B=.carry/bconv
for r in 1 2; do
bash .carry/s7/epochs.sh $B base mlp-wide
TB_PROBE_B=serial bash .carry/s7/epochs.sh $B dx-cublas mlp-wide
TB_PROBE_B=branch bash .carry/s7/epochs.sh $B l2-beside mlp-wide
TB_PROBE_B=branch TB_PROBE_SKIP_OUT=1 bash .carry/s7/epochs.sh $B beside+noout mlp-wide
done
