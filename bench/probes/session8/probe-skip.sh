#!/bin/bash
# upper bounds: mlp-wide's step with the output layer's update left out, the gather left out, both
B=.carry/bconv
for r in 1 2; do
bash .carry/s7/epochs.sh $B base mlp-wide
TB_PROBE_SKIP_OUT=1 bash .carry/s7/epochs.sh $B skip-out mlp-wide
TB_PROBE_SKIP_GATHER=1 bash .carry/s7/epochs.sh $B skip-gath mlp-wide
TB_PROBE_SKIP_OUT=1 TB_PROBE_SKIP_GATHER=1 bash .carry/s7/epochs.sh $B skip-both mlp-wide
done
