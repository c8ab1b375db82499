#!/bin/bash
# variant.sh OUT FILES...: the session's variant modules. The module with FILES (gpu .cu paths,
# as edited in the working tree) compiled for sm_90 with the meson build's flags and linked with
# the build's other objects, which `.carry/s6/stash.sh out` had moved to /tmp/objstash (the
# objects of .carry/bconv, built from the same tree); the result is OUT/libtrainbench-cuda.so.
set -e
out=$1; shift; mkdir -p $out/o; cp /tmp/objstash/*.o $out/o/
for f in "$@"; do
  /usr/local/cuda/bin/nvcc -gencode=arch=compute_90,code=sm_90 -std=c++17 -O3 -lineinfo -Xcompiler=-fPIC,-fvisibility=hidden -Igpu -Iengine -I/usr/local/cuda/include -c $f -o $out/o/$(basename $f .cu).o
done
/usr/local/cuda/bin/nvcc -shared -o $out/libtrainbench-cuda.so $out/o/*.o -L/usr/local/cuda/lib64 -Xlinker=-rpath=/usr/local/cuda/lib64 -lcublas -lcublasLt -lcudnn -Xlinker=--version-script=gpu/libtrainbench-cuda.map
rm -rf $out/o
