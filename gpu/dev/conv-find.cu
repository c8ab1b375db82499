/* SPDX-License-Identifier: GPL-3.0-or-later */
/* conv-find.cu: what cuDNN's Find measures for the cnn preset's two
 * convolutions (batch 256, float, NCHW and NHWC), with TF32 off (FMA math) and on,
 * for each direction: the top algorithms, their time and workspace. A dev
 * aid for choosing the next speed-up; not part of the module.
 * Build: nvcc -O2 -I/usr/local/cuda/include conv-find.cu -o conv-find -lcudnn
 */

#include <cuda_runtime.h>
#include <cudnn.h>
#include <stdio.h>

#define CK(x)                                                                                      \
  do                                                                                               \
    {                                                                                              \
      cudnnStatus_t st_ = (x);                                                                     \
      if (st_ != CUDNN_STATUS_SUCCESS)                                                             \
        {                                                                                          \
          printf ("%s: %s\n", #x, cudnnGetErrorString (st_));                                      \
          return 1;                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

static int
find (cudnnHandle_t h, int n, int c, int hw, int k, cudnnMathType_t math, cudnnTensorFormat_t fmt)
{
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  int out = hw - 2, found = 0;
  CK (cudnnCreateTensorDescriptor (&x));
  CK (cudnnCreateTensorDescriptor (&y));
  CK (cudnnCreateFilterDescriptor (&w));
  CK (cudnnCreateConvolutionDescriptor (&conv));
  CK (cudnnSetTensor4dDescriptor (x, fmt, CUDNN_DATA_FLOAT, n, c, hw, hw));
  CK (cudnnSetTensor4dDescriptor (y, fmt, CUDNN_DATA_FLOAT, n, k, out, out));
  CK (cudnnSetFilter4dDescriptor (w, CUDNN_DATA_FLOAT, fmt, k, c, 3, 3));
  CK (cudnnSetConvolution2dDescriptor (conv, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                       CUDNN_DATA_FLOAT));
  CK (cudnnSetConvolutionMathType (conv, math));
  printf ("conv n %d c %d %dx%d -> k %d, %s, %s\n", n, c, hw, hw, k,
          math == CUDNN_FMA_MATH ? "FMA (TF32 off)" : "tensor op (TF32 on)",
          fmt == CUDNN_TENSOR_NCHW ? "NCHW" : "NHWC");

  cudnnConvolutionFwdAlgoPerf_t f[16];
  CK (cudnnFindConvolutionForwardAlgorithm (h, x, w, conv, y, 16, &found, f));
  for (int i = 0; i < found && i < 4; i++)
    printf ("  fwd    algo %d status %d %8.1f us ws %8zu math %d\n", f[i].algo, f[i].status,
            f[i].time * 1000, f[i].memory, f[i].mathType);
  cudnnConvolutionBwdDataAlgoPerf_t d[16];
  CK (cudnnFindConvolutionBackwardDataAlgorithm (h, w, y, conv, x, 16, &found, d));
  for (int i = 0; i < found && i < 4; i++)
    printf ("  data   algo %d status %d %8.1f us ws %8zu math %d\n", d[i].algo, d[i].status,
            d[i].time * 1000, d[i].memory, d[i].mathType);
  cudnnConvolutionBwdFilterAlgoPerf_t b[16];
  CK (cudnnFindConvolutionBackwardFilterAlgorithm (h, x, y, conv, w, 16, &found, b));
  for (int i = 0; i < found && i < 4; i++)
    printf ("  filter algo %d status %d %8.1f us ws %8zu math %d\n", b[i].algo, b[i].status,
            b[i].time * 1000, b[i].memory, b[i].mathType);
  return 0;
}

int
main (void)
{
  cudnnHandle_t h;
  CK (cudnnCreate (&h));
  printf ("cuDNN %zu\n", cudnnGetVersion ());
  for (int m = 0; m < 2; m++)
    for (int f = 0; f < 2; f++)
      {
        cudnnMathType_t math = m == 0 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
        cudnnTensorFormat_t fmt = f == 0 ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
        find (h, 256, 1, 28, 32, math, fmt);
        find (h, 256, 32, 26, 64, math, fmt);
      }
  return 0;
}
