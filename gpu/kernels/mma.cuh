/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mma.cuh: TF32 tensor-core operands and the m16n8k8 product, shared by
 * the implicit-GEMM convolutions (conv-igemm.cu) and the dense layer's
 * backward with the update (dense-update.cu).
 *
 * Fragments of mma.sync.aligned.m16n8k8.row.col (lane = 4 g + t): A (16 x
 * 8) a0 = A[g][t], a1 = A[g + 8][t], a2 = A[g][t + 4], a3 = A[g + 8][t + 4];
 * B (8 x 8) b0 = B[t][g], b1 = B[t + 4][g]; C (16 x 8) c0 = C[g][2 t],
 * c1 = C[g][2 t + 1], c2 = C[g + 8][2 t], c3 = C[g + 8][2 t + 1].
 */
#pragma once

/* TF32 operand from a float: adding half a TF32 unit to the bits rounds to
 * nearest (ties away from zero) once the tensor core drops the 13 low bits.
 * cvt.rna.tf32.f32 does the same at a quarter of the rate (16 per clock per
 * SM), which made it the implicit-GEMM forward kernel's bottleneck. */
__device__ __forceinline__ unsigned int
to_tf32 (float x)
{
  return __float_as_uint (x) + 0x1000u;
}

__device__ __forceinline__ void
mma_tf32 (float c[4], const unsigned int a[4], unsigned int b0, unsigned int b1)
{
  asm volatile ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
