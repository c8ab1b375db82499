#!/bin/bash
# session 10 call 11: final24 (.carry/bfinal: 51843ac), then three more runs each of the cnn and
# mlp-wide with the same build on the same machine
bash bench/probes/final-bench.sh gpu h200-final24 && for i in 1 2 3; do MODULE=$PWD/.carry/bfinal/gpu/libtrainbench-cuda.so bash .carry/s9/epochs.sh .carry/bfinal extra cnn mlp-wide 2>/dev/null || true; done
