#!/bin/bash
# session 10 call 12: final25 (.carry/bfinal: ea20f74, the code of e6f31fa), then three more runs
# of each preset with the same build on the same machine
bash bench/probes/final-bench.sh gpu h200-final25 && for i in 1 2 3; do MODULE=$PWD/.carry/bfinal/gpu/libtrainbench-cuda.so bash .carry/s9/epochs.sh .carry/bfinal extra cnn mlp-wide mlp-small 2>/dev/null || true; done
