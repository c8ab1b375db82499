/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-cpu-kernels.c: every build of the CPU backend's loops that this CPU
 * runs (x86-64-v4, x86-64-v3, baseline) gives the same bits as the
 * baseline, on lengths that are not multiples of any vector width and on
 * unaligned starts; the backend uses the widest one; and the engine's own
 * exp and log (nn-cpu-math.h) are within 1.5 ulp of expl and logl. */

#include "test-util.h"

#include "cpu/nn-cpu-kernels.h"
#include "cpu/nn-cpu-math.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

enum
{
  LEN = 4099, /* odd: every loop has a tail */
};

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static float
uniform (float lo, float hi)
{
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * (float) (rng >> 40) / 16777216.0f;
}

static void
fill (float *v, size_t n, float lo, float hi)
{
  for (size_t i = 0; i < n; i++)
    v[i] = uniform (lo, hi);
}

/* The buffers one kernel call reads and writes, from the same seed for
 * every table. */
typedef struct
{
  float a[LEN + 1], b[LEN + 1], c[LEN + 1], d[LEN + 1], e[LEN + 1];
  uint8_t bytes[LEN + 1];
  float out[2 * LEN + 2];
  float sum;
} Bufs;

static void
setup (Bufs *s, uint64_t seed)
{
  rng = seed;
  fill (s->a, LEN + 1, -2.0f, 2.0f);
  fill (s->b, LEN + 1, -1.0f, 1.0f);
  fill (s->c, LEN + 1, 0.0f, 1.0f);
  fill (s->d, LEN + 1, 0.0f, 0.5f);
  fill (s->e, LEN + 1, 0.0f, 0.5f);
  for (size_t i = 0; i <= LEN; i++)
    s->bytes[i] = (uint8_t) (i * 37u + (unsigned) seed);
  memset (s->out, 0, sizeof s->out);
  s->sum = 0.0f;
}

/* Runs case `which` of the table on s (starting one float in, so no
 * vector load is aligned); returns its name, NULL past the last. */
static const char *
run_case (const NnCpuKernels *k, int which, Bufs *s)
{
  /* a: values or parameters, b: gradients, c d e: state */
  float *a = s->a + 1, *b = s->b + 1, *c = s->c + 1, *d = s->d + 1;
  size_t n = LEN;
  NnConvShape cs = { 3, 2, 9, 11, 4, 3, 3, 2, 1, 1, 0, 5, 9 };
  switch (which)
    {
    case 0: k->sgd (a, b, n, 0.01f); return "sgd";
    case 1: k->momentum (a, b, c, n, 0.01f, 0.9f, 0); return "momentum";
    case 2: k->momentum (a, b, c, n, 0.01f, 0.9f, 1); return "nesterov";
    case 3: k->adam (a, b, c, d, n, 0.9f, 0.999f, 0.001f, 1e-7f); return "adam";
    case 4: k->adadelta (a, b, c, d, n, 1.0f, 0.95f, 1e-7f); return "adadelta";
    case 5: k->rmsprop (a, b, c, n, 0.001f, 0.9f, 1e-7f); return "rmsprop";
    case 6: k->adagrad (a, b, c, n, 0.01f, 1e-7f); return "adagrad";
    case 7:
      k->dropout (s->out + 1, a, n, 12345, 7, 3, (uint64_t) (0.2f * 16777216.0f), 1.25f);
      return "dropout";
    case 8: k->bias_act_rows (NN_BK_ACT_RELU, a, b, 37, 110); return "bias relu rows";
    case 9: k->bias_act_rows (NN_BK_ACT_SIGMOID, a, b, 37, 110); return "bias sigmoid rows";
    case 10: k->bias_act_rows (NN_BK_ACT_TANH, a, NULL, 37, 110); return "tanh rows";
    case 11: k->bias_act_rows (NN_BK_ACT_LINEAR, a, b, 37, 110); return "bias rows";
    case 12: k->bias_act_plane (NN_BK_ACT_RELU, a, 0.25f, n); return "bias relu plane";
    case 13: k->bias_act_plane (NN_BK_ACT_SIGMOID, a, -0.5f, n); return "bias sigmoid plane";
    case 14: k->bias_act_plane (NN_BK_ACT_TANH, a, 0.1f, n); return "bias tanh plane";
    case 15:
      s->sum = k->act_backward_sum (NN_BK_ACT_RELU, a, b, n);
      return "relu backward sum";
    case 16:
      s->sum = k->act_backward_sum (NN_BK_ACT_SIGMOID, c, b, n);
      return "sigmoid backward sum";
    case 17:
      s->sum = k->act_backward_sum (NN_BK_ACT_LINEAR, a, b, n);
      return "linear backward sum";
    case 18:
      k->act_backward_rows (NN_BK_ACT_RELU, a, b, s->out + 1, 29, 131, 140);
      return "relu backward rows";
    case 19:
      k->act_backward_rows (NN_BK_ACT_TANH, c, b, s->out + 1, 29, 131, 140);
      return "tanh backward rows";
    case 20: k->bytes_to_float (s->out + 1, s->bytes + 1, n, 1.0f / 255); return "bytes";
    case 21: k->maxpool2_row (a, b, s->out + 1, n / 2); return "maxpool2 row";
    case 22:
      k->maxpool2_row_backward (a, b, c, s->out + 1, s->out + 2 + LEN, n / 2);
      return "maxpool2 row backward";
    case 23:
      /* (3, 2, 9, 11) input, 4 filters 3 x 3, stride 2 x 1, pad 1 x 0 */
      k->im2col (&cs, a, 1, 2, s->out + 1);
      return "im2col";
    case 24:
      k->col2im (&cs, a, 1, 2, s->out + 1);
      return "col2im";
    default:
      return NULL;
    }
}

/* |got - want| in units of the last place of the double nearest want */
static double
ulps (double got, long double want)
{
  double w = (double) want;
  if (got == w)
    return 0.0;
  double unit = nextafter (fabs (w), INFINITY) - fabs (w);
  return (double) (fabsl ((long double) got - want) / unit);
}

/* exp over the loss's range (x <= 0, down to where e^x is 0) and up to
 * where it overflows, log over (0, 1e300]; the specials of both. */
static void
test_math (void)
{
  double worst_exp = 0.0, at_exp = 0.0, worst_log = 0.0, at_log = 0.0;
  rng = 42;
  for (int i = 0; i < 400000; i++)
    {
      double u = (double) uniform (0.0f, 1.0f) + (double) uniform (0.0f, 1.0f) * 0x1p-24;
      double x = i % 4 == 0 ? -745.0 + 1454.0 * u : -40.0 * u;
      double e = ulps (_nn_cpu_exp (x), expl ((long double) x));
      if (e > worst_exp)
        worst_exp = e, at_exp = x;
      double y = i % 2 == 0 ? 1.0 + 999.0 * u : exp (1380.0 * u - 690.0);
      double l = ulps (_nn_cpu_log (y), logl ((long double) y));
      if (l > worst_log)
        worst_log = l, at_log = y;
    }
  tap_ok (worst_exp <= 1.5, "exp: within 1.5 ulp of expl (worst %.3f at %.17g)", worst_exp,
          at_exp);
  tap_ok (worst_log <= 1.5, "log: within 1.5 ulp of logl (worst %.3f at %.17g)", worst_log,
          at_log);
  tap_ok (_nn_cpu_exp (0.0) == 1.0 && _nn_cpu_exp (-800.0) == 0.0
            && _nn_cpu_exp (710.0) == HUGE_VAL && isnan (_nn_cpu_exp (NAN))
            && _nn_cpu_exp (-745.1) > 0.0 && _nn_cpu_exp (709.78) < HUGE_VAL,
          "exp: 1 at 0, 0 and infinity past the ends, NaN for NaN");
  tap_ok (_nn_cpu_log (1.0) == 0.0 && _nn_cpu_log (0.0) == -HUGE_VAL
            && isnan (_nn_cpu_log (-1.0)) && isnan (_nn_cpu_log (NAN))
            && _nn_cpu_log (HUGE_VAL) == HUGE_VAL
            && ulps (_nn_cpu_log (0x1p-1074), logl (0x1p-1074L)) <= 1.5
            && ulps (_nn_cpu_log (0x1.8p-1040), logl (0x1.8p-1040L)) <= 1.5,
          "log: 0 at 1, -infinity at 0, NaN below, a subnormal's log");
}

static bool
same_bits (const Bufs *x, const Bufs *y)
{
  return memcmp (x, y, sizeof *x) == 0;
}

int
main (void)
{
  int count = 0;
  const NnCpuKernels *const *sets = _nn_cpu_kernel_sets (&count);
  const char *forced = getenv ("TRAINBENCH_CPU_KERNELS");

  tap_ok (count >= 1 && strcmp (sets[count - 1]->isa, "baseline") == 0,
          "the baseline build is there and runs (%d builds run here)", count);
  for (int i = 0; i < count; i++)
    tap_diag ("runs here: %s", sets[i]->isa);
  if (forced == NULL || forced[0] == '\0')
    tap_ok (_nn_cpu_kernels () == sets[0], "the backend uses the widest (%s)",
            _nn_cpu_kernels ()->isa);
  else
    tap_diag ("TRAINBENCH_CPU_KERNELS=%s: the backend uses %s", forced,
              _nn_cpu_kernels ()->isa);

  Bufs *ref = malloc (sizeof *ref), *got = malloc (sizeof *got);
  for (int which = 0;; which++)
    {
      setup (ref, 1000 + (uint64_t) which);
      const char *name = run_case (sets[count - 1], which, ref);
      if (name == NULL)
        break;
      for (int i = 0; i < count - 1; i++)
        {
          setup (got, 1000 + (uint64_t) which);
          run_case (sets[i], which, got);
          tap_ok (same_bits (ref, got), "%s: %s gives the baseline's bits", name,
                  sets[i]->isa);
        }
      if (count == 1)
        tap_skip ("only the baseline build runs on this CPU", "%s", name);
    }
  free (ref);
  free (got);
  test_math ();
  return tap_done ();
}
