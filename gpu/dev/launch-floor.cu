/* SPDX-License-Identifier: GPL-3.0-or-later */
/* launch-floor.cu: the launch-latency floor on this GPU, to judge how far a
 * training step of many small kernels is from it. Times empty kernels
 * launched one by one on a stream and replayed as a CUDA graph of N nodes.
 * Build: nvcc -O2 -gencode=arch=compute_90,code=sm_90 launch-floor.cu -o launch-floor
 */

#include <cuda_runtime.h>
#include <stdio.h>

#include "dev-check.cuh"

__global__ void
empty_kernel (float *p)
{
  if (p != NULL && threadIdx.x == 1024)
    p[0] = 1.0f;
}

int
main (void)
{
  cudaStream_t s;
  cudaEvent_t a, b;
  float ms;
  const int reps = 2000;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));

  for (int i = 0; i < 100; i++)
    empty_kernel<<<1, 32, 0, s>>> (NULL);
  CHECK (cudaStreamSynchronize (s));
  CHECK (cudaEventRecord (a, s));
  for (int i = 0; i < reps; i++)
    empty_kernel<<<1, 32, 0, s>>> (NULL);
  CHECK (cudaEventRecord (b, s));
  CHECK (cudaEventSynchronize (b));
  CHECK (cudaEventElapsedTime (&ms, a, b));
  printf ("stream launches: %.2f us per empty kernel\n", ms * 1000.0 / reps);

  int sizes[] = { 1, 8, 15, 20, 30 };
  for (int k = 0; k < 5; k++)
    {
      int n = sizes[k];
      cudaGraph_t g;
      cudaGraphExec_t e;
      CHECK (cudaStreamBeginCapture (s, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < n; i++)
        empty_kernel<<<132, 256, 0, s>>> (NULL);
      CHECK (cudaStreamEndCapture (s, &g));
      CHECK (cudaGraphInstantiate (&e, g, 0));
      for (int i = 0; i < 50; i++)
        CHECK (cudaGraphLaunch (e, s));
      CHECK (cudaStreamSynchronize (s));
      CHECK (cudaEventRecord (a, s));
      for (int i = 0; i < reps; i++)
        CHECK (cudaGraphLaunch (e, s));
      CHECK (cudaEventRecord (b, s));
      CHECK (cudaEventSynchronize (b));
      CHECK (cudaEventElapsedTime (&ms, a, b));
      printf ("graph of %2d empty kernels (132 blocks): %.2f us per replay, %.2f us per kernel\n", n,
              ms * 1000.0 / reps, ms * 1000.0 / reps / n);
      cudaGraphExecDestroy (e);
      cudaGraphDestroy (g);
    }
  return 0;
}
