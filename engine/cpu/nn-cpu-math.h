/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cpu-math.h: exp and log in double for the CPU backend's loss, the
 * engine's own, so Linux and Windows compute the same values at about the
 * same speed. mingw-w64's exp and log are x87 code (f2xm1, fyl2x): 20.8
 * and 33.9 ns a call on the 2-core development machine against glibc's
 * 6.0 and 6.5, and the loss op of an mlp-small step (32 rows of 10
 * classes) took 9.3 us under wine against 3.7 on Linux; with these, 4.4
 * under wine, and on Linux the rows' exps and logs alone 3.3 us against
 * glibc's 3.2 (best of 2000; bench/results/
 * local2core-windows-wine-cpu-2026-12-01.md). exp is within 1.3 ulp, log
 * within 0.9 (test-cpu-kernels checks both against expl and logl); the
 * loss rounds what it computes from them to float, where an ulp or two of
 * a double almost never shows: mlp-small's two epochs gave the same losses,
 * accuracies and loss curve to the last bit as with glibc's. */
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline double
_nn_cpu_bits_double (uint64_t u)
{
  double d;
  memcpy (&d, &u, sizeof d);
  return d;
}

static inline uint64_t
_nn_cpu_double_bits (double d)
{
  uint64_t u;
  memcpy (&u, &d, sizeof u);
  return u;
}

/* e^x. x = (64 k + j) ln 2 / 64 + r with |r| <= ln 2 / 128 (ln 2 / 64 in
 * two parts, the first with 32 trailing zero bits, so its product with an
 * integer below 2^32 is exact); e^x = 2^k 2^(j/64) e^r, 2^(j/64) from the
 * table (each correctly rounded), e^r - 1 from its Taylor series to r^5
 * (the rest below 2^-55); 2^k in two steps where it alone is not a normal
 * double. */
static inline double
_nn_cpu_exp (double x)
{
  static const double pow2[64] = {
    0x1.0000000000000p+0, 0x1.02c9a3e778061p+0, 0x1.059b0d3158574p+0, 0x1.0874518759bc8p+0,
    0x1.0b5586cf9890fp+0, 0x1.0e3ec32d3d1a2p+0, 0x1.11301d0125b51p+0, 0x1.1429aaea92de0p+0,
    0x1.172b83c7d517bp+0, 0x1.1a35beb6fcb75p+0, 0x1.1d4873168b9aap+0, 0x1.2063b88628cd6p+0,
    0x1.2387a6e756238p+0, 0x1.26b4565e27cddp+0, 0x1.29e9df51fdee1p+0, 0x1.2d285a6e4030bp+0,
    0x1.306fe0a31b715p+0, 0x1.33c08b26416ffp+0, 0x1.371a7373aa9cbp+0, 0x1.3a7db34e59ff7p+0,
    0x1.3dea64c123422p+0, 0x1.4160a21f72e2ap+0, 0x1.44e086061892dp+0, 0x1.486a2b5c13cd0p+0,
    0x1.4bfdad5362a27p+0, 0x1.4f9b2769d2ca7p+0, 0x1.5342b569d4f82p+0, 0x1.56f4736b527dap+0,
    0x1.5ab07dd485429p+0, 0x1.5e76f15ad2148p+0, 0x1.6247eb03a5585p+0, 0x1.6623882552225p+0,
    0x1.6a09e667f3bcdp+0, 0x1.6dfb23c651a2fp+0, 0x1.71f75e8ec5f74p+0, 0x1.75feb564267c9p+0,
    0x1.7a11473eb0187p+0, 0x1.7e2f336cf4e62p+0, 0x1.82589994cce13p+0, 0x1.868d99b4492edp+0,
    0x1.8ace5422aa0dbp+0, 0x1.8f1ae99157736p+0, 0x1.93737b0cdc5e5p+0, 0x1.97d829fde4e50p+0,
    0x1.9c49182a3f090p+0, 0x1.a0c667b5de565p+0, 0x1.a5503b23e255dp+0, 0x1.a9e6b5579fdbfp+0,
    0x1.ae89f995ad3adp+0, 0x1.b33a2b84f15fbp+0, 0x1.b7f76f2fb5e47p+0, 0x1.bcc1e904bc1d2p+0,
    0x1.c199bdd85529cp+0, 0x1.c67f12e57d14bp+0, 0x1.cb720dcef9069p+0, 0x1.d072d4a07897cp+0,
    0x1.d5818dcfba487p+0, 0x1.da9e603db3285p+0, 0x1.dfc97337b9b5fp+0, 0x1.e502ee78b3ff6p+0,
    0x1.ea4afa2a490dap+0, 0x1.efa1bee615a27p+0, 0x1.f50765b6e4540p+0, 0x1.fa7c1819e90d8p+0,
  };
  static const double LN2_64_HI = 6.93147180369123816490e-01 / 64; /* 0x3fe62e42fee00000 / 64 */
  static const double LN2_64_LO = 1.90821492927058770002e-10 / 64;
  static const double INV = 92.332482616893656; /* 64 / ln 2 */

  if (!(x < 709.782712893384 && x > -745.2)) /* NaN, or e^x past a double's range */
    return x != x ? x : x > 0.0 ? HUGE_VAL : 0.0;
  /* round to the nearest integer: adding 1.5 * 2^52 leaves no fraction
   * bits (SSE2 has no rounding instruction; nearbyint would be a call) */
  double kd = (x * INV + 6755399441055744.0) - 6755399441055744.0;
  int64_t ki = (int64_t) kd;
  double r = (x - kd * LN2_64_HI) - kd * LN2_64_LO;
  /* in two halves (Estrin), so the additions do not wait on each other */
  double r2 = r * r;
  double q = r + r2 * ((0.5 + r * (1.0 / 6)) + r2 * (1.0 / 24 + r * (1.0 / 120)));
  double t = pow2[ki & 63];
  double er = t + t * q;
  int k = (int) (ki >> 6); /* floor (ki / 64) */
  if (k >= -1021 && k <= 1023)
    return er * _nn_cpu_bits_double ((uint64_t) (k + 1023) << 52);
  /* k in [-1076, -1022] or 1024: 2^k as 2^(k - h) * 2^h */
  int h = k / 2;
  return er * _nn_cpu_bits_double ((uint64_t) (k - h + 1023) << 52)
         * _nn_cpu_bits_double ((uint64_t) (h + 1023) << 52);
}

/* ln x. x = 2^e (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)); with
 * s = f / (2 + f), ln (1 + f) = 2 atanh s = f - (f^2/2 - s (f^2/2 + R)),
 * R = sum of 2 s^(2j) / (2j + 1) for j = 1..10 (the rest below 2^-60 of
 * the result); then plus e ln 2 in two parts. */
static inline double
_nn_cpu_log (double x)
{
  static const double LN2_HI = 6.93147180369123816490e-01;
  static const double LN2_LO = 1.90821492927058770002e-10;

  uint64_t u = _nn_cpu_double_bits (x);
  int e = 0;
  /* one test for what is not a positive normal double: 0, subnormal,
   * negative (sign bit set), infinite or NaN */
  if (u - 0x0010000000000000ull >= 0x7fe0000000000000ull)
    {
      if (!(x > 0.0) || x == HUGE_VAL) /* NaN, 0, negative, infinite */
        return x == 0.0 ? -HUGE_VAL : x == HUGE_VAL ? x : (x - x) / (x - x);
      /* subnormal: scale into the normal range first */
      u = _nn_cpu_double_bits (x * 18014398509481984.0); /* 2^54 */
      e = -54;
    }
  /* the exponent that puts the mantissa in [sqrt(1/2), sqrt(2)), whose
   * bits start at 0x3fe6a09e667f3bcd: the high 12 bits of u minus those,
   * taken as a signed number */
  uint64_t t = u - 0x3fe6a09e667f3bcdull;
  e += (int) ((int64_t) t >> 52);
  double m = _nn_cpu_bits_double (u - (t & 0xfff0000000000000ull));
  double f = m - 1.0;
  double s = f / (2.0 + f);
  double z = s * s;
  /* R = z (c1 + c2 z + ... + c10 z^9), c_j = 2 / (2j + 1), in pairs
   * (Estrin), so the products do not wait on each other */
  double z2 = z * z, z4 = z2 * z2;
  double p01 = 2.0 / 3 + z * (2.0 / 5), p23 = 2.0 / 7 + z * (2.0 / 9);
  double p45 = 2.0 / 11 + z * (2.0 / 13), p67 = 2.0 / 15 + z * (2.0 / 17);
  double p89 = 2.0 / 19 + z * (2.0 / 21);
  double R = z * (((p01 + z2 * p23) + z4 * (p45 + z2 * p67)) + (z4 * z4) * p89);
  double hfsq = 0.5 * f * f;
  double ed = (double) e;
  return ed * LN2_HI - ((hfsq - (s * (hfsq + R) + ed * LN2_LO)) - f);
}
