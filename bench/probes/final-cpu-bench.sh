#!/bin/bash
# The CPU part of the final benchmark on the GPU machine's host: our engine
# (one full epoch of each preset) and the PyTorch peer in the same call. The
# build (.carry/bfinal), data and peer script: see bench/results/README.md.
set -u
python3 bench/bench.py --cli .carry/bfinal/app/trainbench-cli --data .carry/data/fashion-mnist \
  --devices cpu --threads 2,16 --peer .carry/peer/torch_seed_models.py --peer-cpu-steps 40 \
  --label h200host-cpu-final --results $OUT 2>&1 | tail -9
