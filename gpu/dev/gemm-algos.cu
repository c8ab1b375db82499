/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gemm-algos.cu: how fast cuBLASLt's candidate algorithms run the presets'
 * dense products, against the one cublasSgemm picks, each as a node of a
 * replayed graph (as a training step runs it): is choosing an algorithm by
 * measuring worth it? TF32 on, row-major products as _nn_cuda_gemm takes
 * them (the operands swapped into cuBLAS's column-major order).
 * Build (from the repository root):
 *   nvcc -O2 -std=c++17 -gencode=arch=compute_90,code=sm_90 gpu/dev/gemm-algos.cu \
 *     -lcublasLt -lcublas -o gemm-algos
 * Run: gemm-algos
 */

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dev-check.cuh"

#define REPEATS 50
#define LAUNCHES 20
#define CANDIDATES 64

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Microseconds per call of body () as a node of a replayed graph, or -1. */
template <typename F>
static double
time_graph (cudaStream_t s, F body)
{
  cudaGraph_t g;
  cudaGraphExec_t x;
  CHECK (cudaStreamBeginCapture (s, cudaStreamCaptureModeThreadLocal));
  bool ok = true;
  for (int r = 0; r < REPEATS && ok; r++)
    ok = body ();
  if (cudaStreamEndCapture (s, &g) != cudaSuccess || !ok)
    {
      cudaGetLastError ();
      return -1.0;
    }
  if (cudaGraphInstantiate (&x, g, 0) != cudaSuccess)
    {
      cudaGetLastError ();
      cudaGraphDestroy (g);
      return -1.0;
    }
  CHECK (cudaGraphLaunch (x, s));
  CHECK (cudaStreamSynchronize (s));
  double best = 1e30;
  for (int t = 0; t < 3; t++)
    {
      double t0 = now ();
      for (int i = 0; i < LAUNCHES; i++)
        CHECK (cudaGraphLaunch (x, s));
      CHECK (cudaStreamSynchronize (s));
      double us = (now () - t0) * 1e6 / (LAUNCHES * REPEATS);
      best = us < best ? us : best;
    }
  cudaGraphExecDestroy (x);
  cudaGraphDestroy (g);
  return best;
}

int
main (void)
{
  /* row-major C (m, n) = op (A) op (B), k deep: the presets' products */
  static const struct
  {
    const char *what;
    int ta, tb, m, n, k;
  } shapes[] = {
    { "mlp-small dense 1 forward", 0, 0, 32, 128, 784 },
    { "mlp-wide dense 1 forward", 0, 0, 32, 1000, 784 },
    { "mlp-wide dense 2 forward", 0, 0, 32, 1000, 1000 },
    { "mlp-wide dense 1 dW", 1, 0, 784, 1000, 32 },
    { "mlp-wide dense 2 dW", 1, 0, 1000, 1000, 32 },
    { "mlp-wide dense 2 dx", 0, 1, 32, 1000, 1000 },
    { "cnn dense 1 forward", 0, 0, 256, 128, 9216 },
    { "cnn dense 1 dW", 1, 0, 9216, 128, 256 },
    { "cnn dense 1 dx", 0, 1, 256, 9216, 128 },
  };
  cudaStream_t s;
  cublasHandle_t blas;
  cublasLtHandle_t lt;
  size_t ws_bytes = 32u << 20;
  void *ws;
  float *a, *b, *c;
  const float one = 1.0f, zero = 0.0f;

  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaMalloc (&ws, ws_bytes));
  CHECK (cudaMalloc (&a, 16u << 20));
  CHECK (cudaMalloc (&b, 16u << 20));
  CHECK (cudaMalloc (&c, 16u << 20));
  CHECK (cudaMemset (a, 0, 16u << 20));
  CHECK (cudaMemset (b, 0, 16u << 20));
  cublasCreate (&blas);
  cublasSetStream (blas, s);
  cublasSetWorkspace (blas, ws, ws_bytes);
  cublasSetMathMode (blas, CUBLAS_TF32_TENSOR_OP_MATH);
  cublasLtCreate (&lt);

  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    {
      int ta = shapes[i].ta, tb = shapes[i].tb, m = shapes[i].m, n = shapes[i].n, k = shapes[i].k;
      int lda = ta ? m : k, ldb = tb ? k : n, ldc = n;
      /* column-major: C^T (n, m) = op (B)^T (n, k) op (A)^T (k, m) */
      cublasOperation_t opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N, opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
      double sgemm = time_graph (s, [&] {
        return cublasSgemm (blas, opb, opa, n, m, k, &one, b, ldb, a, lda, &zero, c, ldc)
               == CUBLAS_STATUS_SUCCESS;
      });

      cublasLtMatmulDesc_t desc;
      cublasLtMatrixLayout_t la, lb, lc;
      cublasLtMatmulPreference_t pref;
      cublasLtMatmulDescCreate (&desc, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F);
      cublasLtMatmulDescSetAttribute (desc, CUBLASLT_MATMUL_DESC_TRANSA, &opb, sizeof opb);
      cublasLtMatmulDescSetAttribute (desc, CUBLASLT_MATMUL_DESC_TRANSB, &opa, sizeof opa);
      /* first operand: B^T as stored (column-major, ldb), second: A^T */
      cublasLtMatrixLayoutCreate (&lb, CUDA_R_32F, tb ? k : n, tb ? n : k, ldb);
      cublasLtMatrixLayoutCreate (&la, CUDA_R_32F, ta ? m : k, ta ? k : m, lda);
      cublasLtMatrixLayoutCreate (&lc, CUDA_R_32F, n, m, ldc);
      cublasLtMatmulPreferenceCreate (&pref);
      cublasLtMatmulPreferenceSetAttribute (pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                            &ws_bytes, sizeof ws_bytes);
      cublasLtMatmulHeuristicResult_t res[CANDIDATES];
      int found = 0;
      cublasLtMatmulAlgoGetHeuristic (lt, desc, lb, la, lc, lc, pref, CANDIDATES, res, &found);
      double best = 1e30, first = -1.0;
      int best_i = -1;
      for (int r = 0; r < found; r++)
        {
          if (res[r].state != CUBLAS_STATUS_SUCCESS)
            continue;
          double t = time_graph (s, [&] {
            return cublasLtMatmul (lt, desc, &one, b, lb, a, la, &zero, c, lc, c, lc,
                                   &res[r].algo, ws, ws_bytes, s)
                   == CUBLAS_STATUS_SUCCESS;
          });
          if (r == 0)
            first = t;
          if (t > 0 && t < best)
            {
              best = t;
              best_i = r;
            }
        }
      int split = 0, tile = 0, algo_id = 0;
      if (best_i >= 0)
        {
          cublasLtMatmulAlgoConfigGetAttribute (&res[best_i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                                &split, sizeof split, NULL);
          cublasLtMatmulAlgoConfigGetAttribute (&res[best_i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID,
                                                &tile, sizeof tile, NULL);
          cublasLtMatmulAlgoConfigGetAttribute (&res[best_i].algo, CUBLASLT_ALGO_CONFIG_ID,
                                                &algo_id, sizeof algo_id, NULL);
        }
      printf ("%-28s %4d x %4d x %4d%s%s  cublasSgemm %6.2f us  Lt first %6.2f  best of %2d %6.2f "
              "(#%d: algo %d tile %d split %d)\n",
              shapes[i].what, m, n, k, ta ? " A^T" : "", tb ? " B^T" : "", sgemm, first, found,
              best, best_i, algo_id, tile, split);
      cublasLtMatmulPreferenceDestroy (pref);
      cublasLtMatrixLayoutDestroy (la);
      cublasLtMatrixLayoutDestroy (lb);
      cublasLtMatrixLayoutDestroy (lc);
      cublasLtMatmulDescDestroy (desc);
    }
  return 0;
}
