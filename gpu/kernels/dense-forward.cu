/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dense-forward.cu: the fused dense forward (product, bias, activation and
 * the next dropout) in one kernel on TF32 tensor cores, for sm_90 and newer.
 *
 * A batch of 32 rows through a 784 -> 1000 layer is a long sum over few
 * outputs: cuBLAS splits the sum over blocks (split-K), adds the partial
 * sums in a second kernel, and our epilogue kernel applies bias,
 * activation and dropout: three dependent kernels, each mostly waiting on
 * its launch and its first loads (mlp-wide's two hidden layers in a
 * replayed graph).
 *
 * Here the blocks that share a tile of outputs form a thread-block cluster
 * (sm_90): each sums one slice of k, sends its partial sums of each row of
 * the tile to the block that stores that row (distributed shared memory),
 * and after a cluster barrier each adds what it received in rank order, so
 * results are deterministic, and applies the epilogue as it stores y. One
 * kernel, no scratch in global memory, no counters.
 *
 * Block (rank, column tile, row tile): DF_BM batch rows x BN outputs (64
 * or 32), its k slice in stages of DF_KS fetched by cp.async DF_STAGES - 1
 * ahead of the tensor cores (mma m16n8k8: x is A, w is B). Operands are
 * rounded to TF32 (nearest), so the route is taken only where TF32 is
 * allowed. Device code only: the geometry and the arguments are in
 * kernels/dense-forward.h, the launch in ops/dense-forward.cc.
 */

#include "kernels/dense-forward.h"
#include "kernels/launch.cuh"
#include "kernels/copy-async.cuh"
#include "kernels/epilogue.cuh"
#include "kernels/mma.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* Stage copies, 16 bytes a copy (in and out are multiples of 4), zeros past
 * n, k_end and out: the (DF_BM, DF_KS) block of x at (m0, k), and the
 * (DF_KS, BN) block of w at (k, n0). */
__device__ __forceinline__ void
fetch_x (const DenseCluster &d, float *stage, int m0, int k, int k_end)
{
  int r = threadIdx.x / (DF_KS / 4), kq = (threadIdx.x % (DF_KS / 4)) * 4;
  bool in = m0 + r < d.n && k + kq < k_end;
  copy_async16 (stage + r * DF_XS + kq, in ? d.x + (size_t) (m0 + r) * d.in + k + kq : d.x, in);
}

template <int BN>
__device__ __forceinline__ void
fetch_w (const DenseCluster &d, float *stage, int n0, int k, int k_end)
{
  const int WS = BN + 8;
  float *ws = stage + DF_BM * DF_XS;
#pragma unroll
  for (int i = threadIdx.x; i < DF_KS * BN / 4; i += DF_THREADS)
    {
      int r = i / (BN / 4), cq = (i % (BN / 4)) * 4;
      bool in = k + r < k_end && n0 + cq < d.out;
      copy_async16 (ws + r * WS + cq, in ? d.w + (size_t) (k + r) * d.out + n0 + cq : d.w, in);
    }
}

template <int BN>
static __device__ __forceinline__ void
dense_cluster_body (const DenseCluster &d)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  typedef DfShape<BN> S;
  const int NT = BN / 32; /* n8 tiles a warp */
  extern __shared__ float4 df_smem4[];
  float *smem = (float *) df_smem4;
  cg::cluster_group cluster = cg::this_cluster ();
  const int rank = (int) cluster.block_rank ();
  /* Distributed shared memory may be written only once every block of the
   * cluster runs: this arrival, waited for just before the partial sums
   * are sent, says so at no cost by then. */
  asm volatile ("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  const int n0 = blockIdx.y * BN, m0 = blockIdx.z * DF_BM;
  const int k0 = rank * d.chunk, k_end = min (d.in, k0 + d.chunk);
  const int stages = k_end > k0 ? (k_end - k0 + DF_KS - 1) / DF_KS : 0;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int wr = (warp & 1) * 16, wc = (warp >> 1) * 8 * NT; /* the warp's corner */
  float acc[NT][4] = {};

  /* DF_STAGES - 1 stages ahead: their weights before the kernel before
   * this one has finished where the op before did not write them
   * (weights_early in launch.cuh; they land in the first group), x once it
   * has. A group is committed for every stage, even past the slice, so that
   * the wait below counts alike in every block. */
  if (!d.early)
    nn_kernel_enter ();
#pragma unroll
  for (int s = 0; s < DF_STAGES - 1; s++)
    if (s < stages)
      fetch_w<BN> (d, smem + s * S::STAGE_FLOATS, n0, k0 + s * DF_KS, k_end);
  if (d.early)
    nn_kernel_enter ();
#pragma unroll
  for (int s = 0; s < DF_STAGES - 1; s++)
    {
      if (s < stages)
        fetch_x (d, smem + s * S::STAGE_FLOATS, m0, k0 + s * DF_KS, k_end);
      copy_async_commit ();
    }
  for (int s = 0; s < stages; s++)
    {
      int ahead = s + DF_STAGES - 1;
      if (ahead < stages)
        {
          float *stage = smem + (ahead % DF_STAGES) * S::STAGE_FLOATS;
          fetch_w<BN> (d, stage, n0, k0 + ahead * DF_KS, k_end);
          fetch_x (d, stage, m0, k0 + ahead * DF_KS, k_end);
        }
      copy_async_commit ();
      copy_async_wait_pending<DF_STAGES - 1> ();
      __syncthreads ();
      const float *xs = smem + (s % DF_STAGES) * S::STAGE_FLOATS, *ws = xs + DF_BM * DF_XS;
#pragma unroll
      for (int kk = 0; kk < DF_KS; kk += 8)
        {
          unsigned int a[4];
          a[0] = to_tf32 (xs[(wr + g) * DF_XS + kk + t]);
          a[1] = to_tf32 (xs[(wr + g + 8) * DF_XS + kk + t]);
          a[2] = to_tf32 (xs[(wr + g) * DF_XS + kk + t + 4]);
          a[3] = to_tf32 (xs[(wr + g + 8) * DF_XS + kk + t + 4]);
#pragma unroll
          for (int j = 0; j < NT; j++)
            {
              int col = wc + j * 8 + g;
              mma_tf32 (acc[j], a, to_tf32 (ws[(kk + t) * S::WS + col]),
                        to_tf32 (ws[(kk + t + 4) * S::WS + col]));
            }
        }
      __syncthreads (); /* the buffer is fetched into again DF_STAGES - 1 stages on */
    }
  copy_async_wait ();
  __syncthreads ();

  /* The block's partial sums go to the ranks that add them: rows ROWS q ..
   * to rank q, into its receive area at this block's rank. Sent rather
   * than fetched, the sums need one cluster barrier after them, not a
   * second one keeping each block's shared memory alive for the others. */
  float *recv = smem + DF_STAGES * S::STAGE_FLOATS;
  asm volatile ("barrier.cluster.wait.aligned;" ::: "memory");
#pragma unroll
  for (int j = 0; j < NT; j++)
#pragma unroll
    for (int h = 0; h < 2; h++)
      {
        int r = wr + g + 8 * h, col = wc + j * 8 + 2 * t;
        float *to = cluster.map_shared_rank (recv, r / S::ROWS);
        *(float2 *) (to + (rank * S::ROWS + r % S::ROWS) * S::RS + col)
          = make_float2 (acc[j][2 * h], acc[j][2 * h + 1]);
      }
  cluster.sync ();

  /* This block's rows of the tile, summed over the ranks in order. */
  const int64_t step = epilogue_step (d.e);
  for (int o = threadIdx.x; o < S::ROWS * BN; o += DF_THREADS)
    {
      const int rl = o / BN, c = o % BN, r = rank * S::ROWS + rl;
      float sum = 0.0f;
#pragma unroll
      for (int q = 0; q < DF_SPLIT; q++)
        sum += recv[(q * S::ROWS + rl) * S::RS + c];
      if (m0 + r < d.n && n0 + c < d.out)
        store_out (d.e, step, sum, m0 + r, n0 + c, d.out, 1.0f, 0.0f, d.y, d.out);
    }
#else
  nn_kernel_enter ();
#endif
}

/* The two tile widths the host launches (df_wide and df_narrow in
 * ops/dense-forward.cc). */
#define DENSE_CLUSTER_KERNEL(BN)                                                                   \
  extern "C" __global__ void __launch_bounds__ (DF_THREADS)                                        \
  NN_KERNEL_NAME1 (dense_cluster_kernel, BN) (DenseCluster d)                                      \
  {                                                                                                \
    dense_cluster_body<BN> (d);                                                                    \
  }
DENSE_CLUSTER_KERNEL (64)
DENSE_CLUSTER_KERNEL (32)
