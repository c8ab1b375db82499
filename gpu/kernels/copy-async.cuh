/* SPDX-License-Identifier: GPL-3.0-or-later */
/* copy-async.cuh: asynchronous global-to-shared copies (cp.async, sm_80),
 * shared by the implicit-GEMM convolutions (conv-igemm.cu) and the cluster
 * dense forward (dense-forward.cu): a kernel issues the copies of its next
 * tile and works on the current one while they fly.
 */
#pragma once

/* 4-byte asynchronous copy; `in` false writes a zero (padding). */
__device__ __forceinline__ void
copy_async (float *dst, const float *src, bool in)
{
  unsigned int d = (unsigned int) __cvta_generic_to_shared (dst);
  asm volatile ("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(d), "l"(src),
                "r"(in ? 4 : 0));
}

__device__ __forceinline__ void
copy_async_commit (void)
{
  asm volatile ("cp.async.commit_group;" ::);
}

/* Wait until at most N committed groups are still in flight. */
template <int N>
__device__ __forceinline__ void
copy_async_wait_pending (void)
{
  asm volatile ("cp.async.wait_group %0;" ::"n"(N));
}

/* 16-byte asynchronous copy, global to shared. */
__device__ __forceinline__ void
copy_async16 (float *dst, const float *src, bool in = true)
{
  unsigned int d = (unsigned int) __cvta_generic_to_shared (dst);
  asm volatile ("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src),
                "r"(in ? 16 : 0));
}

__device__ __forceinline__ void
copy_async_wait (void)
{
  asm volatile ("cp.async.wait_all;" ::);
}

/* 4-byte asynchronous copy of a value known to be in the tensor. */
__device__ __forceinline__ void
copy_async_in (float *dst, const float *src)
{
  unsigned int d = (unsigned int) __cvta_generic_to_shared (dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(src));
}
