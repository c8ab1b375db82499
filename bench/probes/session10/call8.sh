#!/bin/bash
# session 10 call 8: final23, then three more runs of the cnn with the same build on the same
# machine (the command as it ran, the epochs.sh path spelled out from the repository root)
bash bench/probes/final-bench.sh gpu h200-final23 && for i in 1 2 3; do MODULE=$PWD/.carry/bfinal/gpu/libtrainbench-cuda.so bash .carry/s9/epochs.sh .carry/bfinal extra cnn 2>/dev/null || true; done
