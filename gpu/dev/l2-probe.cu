/* SPDX-License-Identifier: GPL-3.0-or-later */
/* l2-probe.cu: whether an optimizer's arrays stay in the GPU's L2 cache from
 * one step to the next, and what a persisting-access window over them
 * changes. An Adam-like float4 update (read p, g, m, v; write p, m, v, as
 * optimizer_vec_kernel does) and the same without the gradient (read p, m,
 * v; write them: an update fused into the weight gradient), over N
 * parameters held in one allocation, each as 50 nodes of a replayed graph,
 * for several N, plain (nothing set aside) and with the window (hit ratio
 * 1, persisting; the set-aside L2 just the window's size).
 * Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 l2-probe.cu -o l2-probe
 */

#include <cuda_runtime.h>
#include <stdio.h>

#include "dev-check.cuh"

template <bool GRAD>
__global__ void __launch_bounds__ (256)
update_kernel (float4 *p, const float4 *g, float4 *m, float4 *v, size_t quads)
{
  size_t q = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  if (q >= quads)
    return;
  float4 gq = GRAD ? g[q] : make_float4 (1e-3f, -1e-3f, 2e-3f, -2e-3f);
  float4 pq = p[q], mq = m[q], vq = v[q];
  float *gs = &gq.x, *ps = &pq.x, *ms = &mq.x, *vs = &vq.x;
#pragma unroll
  for (int j = 0; j < 4; j++)
    {
      ms[j] = 0.9f * ms[j] + 0.1f * gs[j];
      vs[j] = 0.999f * vs[j] + 0.001f * gs[j] * gs[j];
      ps[j] -= 1e-3f * ms[j] / (sqrtf (vs[j]) + 1e-7f);
    }
  p[q] = pq;
  m[q] = mq;
  v[q] = vq;
}

#define NODES 50
#define LAUNCHES 40

/* Microseconds per update, the best of 3 replays of LAUNCHES graphs. */
static double
time_update (cudaStream_t s, bool grad, float *base, size_t n, bool window)
{
  size_t quads = n / 4;
  float4 *p = (float4 *) base, *m = p + quads, *v = m + quads, *g = v + quads;
  cudaStreamAttrValue attr = {};
  if (window)
    {
      /* set aside just what the window holds */
      if (cudaDeviceSetLimit (cudaLimitPersistingL2CacheSize,
                              (grad ? 4 : 3) * quads * sizeof (float4))
          != cudaSuccess)
        {
          cudaGetLastError ();
          return -1.0; /* more than the device sets aside: -1 in the table */
        }
      /* p, m, v (and g when read): the arrays an update touches */
      attr.accessPolicyWindow.base_ptr = base;
      attr.accessPolicyWindow.num_bytes = (grad ? 4 : 3) * quads * sizeof (float4);
      attr.accessPolicyWindow.hitRatio = 1.0f;
      attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
      attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    }
  CHECK (cudaStreamSetAttribute (s, cudaStreamAttributeAccessPolicyWindow, &attr));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  unsigned int blocks = (unsigned int) ((quads + 255) / 256);
  CHECK (cudaStreamBeginCapture (s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < NODES; i++)
    if (grad)
      update_kernel<true><<<blocks, 256, 0, s>>> (p, g, m, v, quads);
    else
      update_kernel<false><<<blocks, 256, 0, s>>> (p, g, m, v, quads);
  CHECK (cudaStreamEndCapture (s, &graph));
  CHECK (cudaGraphInstantiate (&exec, graph, 0));
  cudaEvent_t a, b;
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  CHECK (cudaGraphLaunch (exec, s));
  CHECK (cudaStreamSynchronize (s));
  double best = 1e30;
  for (int trial = 0; trial < 3; trial++)
    {
      float ms;
      CHECK (cudaEventRecord (a, s));
      for (int i = 0; i < LAUNCHES; i++)
        CHECK (cudaGraphLaunch (exec, s));
      CHECK (cudaEventRecord (b, s));
      CHECK (cudaEventSynchronize (b));
      CHECK (cudaEventElapsedTime (&ms, a, b));
      double us = ms * 1000.0 / (LAUNCHES * NODES);
      if (us < best)
        best = us;
    }
  cudaGraphExecDestroy (exec);
  cudaGraphDestroy (graph);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  attr = {};
  cudaStreamSetAttribute (s, cudaStreamAttributeAccessPolicyWindow, &attr);
  cudaCtxResetPersistingL2Cache ();
  cudaDeviceSetLimit (cudaLimitPersistingL2CacheSize, 0);
  return best;
}

int
main (void)
{
  /* mlp-small, the cnn, mlp-wide's two hidden layers, mlp-wide, 1.5 x that */
  const size_t sizes[] = { 101770, 1199882, 1784000, 1796010, 2700000, 4000000 };
  int dev = 0, l2 = 0, persist_max = 0, window_max = 0;
  cudaStream_t s;
  float *base;
  cudaGetDevice (&dev);
  cudaDeviceGetAttribute (&l2, cudaDevAttrL2CacheSize, dev);
  cudaDeviceGetAttribute (&persist_max, cudaDevAttrMaxPersistingL2CacheSize, dev);
  cudaDeviceGetAttribute (&window_max, cudaDevAttrMaxAccessPolicyWindowSize, dev);
  printf ("L2 %.1f MB, persisting at most %.1f MB, window at most %.1f MB\n", l2 / 1e6,
          persist_max / 1e6, window_max / 1e6);
  cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  cudaMalloc (&base, 4 * sizeof (float) * 4000000);
  cudaMemset (base, 0, 4 * sizeof (float) * 4000000);
  printf ("%10s %8s | %14s %14s | %14s %14s\n", "params", "MB p+m+v", "p,g,m,v plain",
          "window", "p,m,v plain", "window");
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    {
      size_t n = sizes[k] / 4 * 4;
      double a = time_update (s, true, base, n, false);
      double b = time_update (s, true, base, n, true);
      double c = time_update (s, false, base, n, false);
      double d = time_update (s, false, base, n, true);
      printf ("%10zu %8.1f | %11.2f us %11.2f us | %11.2f us %11.2f us\n", n, 12e-6 * n, a, b, c,
              d);
    }
  return 0;
}
