#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a Fashion-MNIST-shaped data set of seeded random bytes as IDX files:

  bench/synthetic-idx.py OUT_DIR

60,000 training and 10,000 test images of 28 x 28 with labels 0-9: the same
work per training step as the real set, for timing where the real set
cannot travel (a GPU machine without network, and a 64 MiB limit on what a
benchmark may carry). Accuracies on it mean nothing.
"""
import os
import random
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = random.Random(42)
for prefix, n in (("train", 60000), ("t10k", 10000)):
    with open(os.path.join(out, prefix + "-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">IIII", 0x803, n, 28, 28))
        f.write(rng.randbytes(n * 784))
    with open(os.path.join(out, prefix + "-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">II", 0x801, n))
        f.write(bytes(rng.randrange(10) for _ in range(n)))
