#!/bin/bash
# variant.sh NAME "NVCC DEFINES": conv-wgmma.o rebuilt with the defines, linked into .carry/s7/NAME.so
set -e
cd /work/main/.carry/bconv
mkdir -p /tmp/var-$1
/usr/local/cuda/bin/nvcc -gencode=arch=compute_90a,code=sm_90a -std=c++17 -O3 -lineinfo -Xcompiler=-fPIC,-fvisibility=hidden $2 -I/work/main/gpu -I/work/main/engine -I/usr/local/cuda/include -c ../../gpu/kernels/conv-wgmma.cu -o /tmp/var-$1/conv-wgmma.o 2>&1 | grep -v C7519 || true
objs=$(for o in nn-cuda-backend nn-cuda-blas nn-cuda-conv bias-act conv-direct conv-igemm conv-wgmma dense-forward dense-update dropout fill gather-batch optimizer pool2d softmax-xent; do if [ $o = conv-wgmma ]; then echo /tmp/var-$1/conv-wgmma.o; else echo gpu/$o.o; fi; done)
/usr/local/cuda/bin/nvcc -shared -o /work/main/.carry/s7/$1.so $objs -L/usr/local/cuda/lib64 -Xlinker=-rpath=/usr/local/cuda/lib64 -lcublas -lcublasLt -lcudnn -Xlinker=--version-script=/work/main/gpu/libtrainbench-cuda.map -Xlinker=--no-undefined
ls -la /work/main/.carry/s7/$1.so
