/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-optimizers.c: three updates of every optimizer of the CPU backend
 * against values worked out here from Keras' formulas (tf.keras 2.x
 * optimizer_v2), written out step by step in double precision.
 */

#include "test-util.h"
#include "nn-backend-abi.h"

#include <math.h>
#include <string.h>

#define P 3

static const NnBackendOps *ops;
static void *ctx;

/* The same parameters and gradients for every optimizer. Epsilons are large
 * (0.01) where they are a hyperparameter, so where epsilon enters a formula
 * (sqrt (v) + eps, not sqrt (v + eps)) changes the result. */
static const double p_init[P] = { 0.5, -1.0, 2.0 };
static const double g1[P] = { 0.1, -0.2, 0.3 };
static const double g2[P] = { -0.05, 0.4, 0.0 };
static const double g3[P] = { 0.2, 0.1, -0.3 };

/* Run three updates of `opt` from p_init with `slots` state slots (prefilled
 * with `state_init`) and compare the parameters after each step with
 * want1/want2/want3. */
static void
run (const char *name, NnBackendOptimizer opt, int slots, float state_init,
     const double want1[P], const double want2[P], const double want3[P])
{
  const double *grads[3] = { g1, g2, g3 };
  const double *wants[3] = { want1, want2, want3 };
  float *params, *grad, *state;
  int64_t *step;

  ops->alloc (ctx, P * sizeof (float), (void **) &params);
  ops->alloc (ctx, P * sizeof (float), (void **) &grad);
  ops->alloc (ctx, 2 * P * sizeof (float), (void **) &state);
  ops->alloc (ctx, sizeof (int64_t), (void **) &step);
  for (int i = 0; i < P; i++)
    params[i] = (float) p_init[i];
  for (int i = 0; i < slots * P; i++)
    state[i] = state_init;

  for (int s = 0; s < 3; s++)
    {
      for (int i = 0; i < P; i++)
        grad[i] = (float) grads[s][i];
      int rc = ops->optimizer_update (ctx, &opt, params, grad, state, P, P, step);
      tap_ok (rc == 0, "%s step %d runs", name, s + 1);
      for (int i = 0; i < P; i++)
        tap_close (params[i], wants[s][i], 1e-5, 1e-6, "%s step %d parameter %d", name, s + 1, i);
    }
  tap_ok (*step == 3, "%s: step counter ends at 3 (got %lld)", name, (long long) *step);
  ops->free (ctx, params);
  ops->free (ctx, grad);
  ops->free (ctx, state);
  ops->free (ctx, step);
}

static void
test_sgd (void)
{
  const double lr = 0.1;
  double w1[P], w2[P], w3[P];
  NnBackendOptimizer opt = { NN_BK_OPT_SGD, 0, 0.1f, 0.0f, 0, 0, 0, 0 };

  for (int i = 0; i < P; i++)
    {
      w1[i] = p_init[i] - lr * g1[i];
      w2[i] = w1[i] - lr * g2[i];
      w3[i] = w2[i] - lr * g3[i];
    }
  run ("sgd", opt, 1, 0.0f, w1, w2, w3);
}

static void
test_momentum (int nesterov)
{
  const double lr = 0.1, m = 0.9;
  double w1[P], w2[P], w3[P];
  NnBackendOptimizer opt = { NN_BK_OPT_SGD, nesterov, 0.1f, 0.9f, 0, 0, 0, 0 };

  for (int i = 0; i < P; i++)
    {
      double v0 = 0.0;
      double v1 = m * v0 - lr * g1[i];
      w1[i] = nesterov ? p_init[i] + m * v1 - lr * g1[i] : p_init[i] + v1;
      double v2 = m * v1 - lr * g2[i];
      w2[i] = nesterov ? w1[i] + m * v2 - lr * g2[i] : w1[i] + v2;
      double v3 = m * v2 - lr * g3[i];
      w3[i] = nesterov ? w2[i] + m * v3 - lr * g3[i] : w2[i] + v3;
    }
  run (nesterov ? "sgd nesterov" : "sgd momentum", opt, 1, 0.0f, w1, w2, w3);
}

static void
test_adam (void)
{
  const double lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 0.01;
  double w1[P], w2[P], w3[P];
  NnBackendOptimizer opt = { NN_BK_OPT_ADAM, 0, 0.01f, 0, 0.9f, 0.999f, 0, 0.01f };

  for (int i = 0; i < P; i++)
    {
      /* t = 1 */
      double m1 = (1 - b1) * g1[i];
      double v1 = (1 - b2) * g1[i] * g1[i];
      double a1 = lr * sqrt (1 - b2) / (1 - b1);
      w1[i] = p_init[i] - a1 * m1 / (sqrt (v1) + eps);
      /* t = 2 */
      double m2 = b1 * m1 + (1 - b1) * g2[i];
      double v2 = b2 * v1 + (1 - b2) * g2[i] * g2[i];
      double a2 = lr * sqrt (1 - b2 * b2) / (1 - b1 * b1);
      w2[i] = w1[i] - a2 * m2 / (sqrt (v2) + eps);
      /* t = 3 */
      double m3 = b1 * m2 + (1 - b1) * g3[i];
      double v3 = b2 * v2 + (1 - b2) * g3[i] * g3[i];
      double a3 = lr * sqrt (1 - b2 * b2 * b2) / (1 - b1 * b1 * b1);
      w3[i] = w2[i] - a3 * m3 / (sqrt (v3) + eps);
    }
  run ("adam", opt, 2, 0.0f, w1, w2, w3);
}

static void
test_adadelta (void)
{
  const double lr = 1.0, rho = 0.95, eps = 1e-7;
  double w1[P], w2[P], w3[P];
  NnBackendOptimizer opt = { NN_BK_OPT_ADADELTA, 0, 1.0f, 0, 0, 0, 0.95f, 1e-7f };

  for (int i = 0; i < P; i++)
    {
      double eg = 0, ed = 0, d;
      /* step 1 */
      eg = rho * eg + (1 - rho) * g1[i] * g1[i];
      d = sqrt (ed + eps) / sqrt (eg + eps) * g1[i];
      ed = rho * ed + (1 - rho) * d * d;
      w1[i] = p_init[i] - lr * d;
      /* step 2 */
      eg = rho * eg + (1 - rho) * g2[i] * g2[i];
      d = sqrt (ed + eps) / sqrt (eg + eps) * g2[i];
      ed = rho * ed + (1 - rho) * d * d;
      w2[i] = w1[i] - lr * d;
      /* step 3 */
      eg = rho * eg + (1 - rho) * g3[i] * g3[i];
      d = sqrt (ed + eps) / sqrt (eg + eps) * g3[i];
      w3[i] = w2[i] - lr * d;
    }
  run ("adadelta", opt, 2, 0.0f, w1, w2, w3);
}

static void
test_rmsprop (void)
{
  const double lr = 0.01, rho = 0.9, eps = 0.01;
  double w1[P], w2[P], w3[P];
  NnBackendOptimizer opt = { NN_BK_OPT_RMSPROP, 0, 0.01f, 0, 0, 0, 0.9f, 0.01f };

  for (int i = 0; i < P; i++)
    {
      double v1 = (1 - rho) * g1[i] * g1[i];
      w1[i] = p_init[i] - lr * g1[i] / (sqrt (v1) + eps);
      double v2 = rho * v1 + (1 - rho) * g2[i] * g2[i];
      w2[i] = w1[i] - lr * g2[i] / (sqrt (v2) + eps);
      double v3 = rho * v2 + (1 - rho) * g3[i] * g3[i];
      w3[i] = w2[i] - lr * g3[i] / (sqrt (v3) + eps);
    }
  run ("rmsprop", opt, 1, 0.0f, w1, w2, w3);
}

static void
test_adagrad (void)
{
  const double lr = 0.01, eps = 0.01, a0 = 0.1;
  double w1[P], w2[P], w3[P];
  NnBackendOptimizer opt = { NN_BK_OPT_ADAGRAD, 0, 0.01f, 0, 0, 0, 0, 0.01f };

  for (int i = 0; i < P; i++)
    {
      double a1 = a0 + g1[i] * g1[i];
      w1[i] = p_init[i] - lr * g1[i] / (sqrt (a1) + eps);
      double a2 = a1 + g2[i] * g2[i];
      w2[i] = w1[i] - lr * g2[i] / (sqrt (a2) + eps);
      double a3 = a2 + g3[i] * g3[i];
      w3[i] = w2[i] - lr * g3[i] / (sqrt (a3) + eps);
    }
  run ("adagrad", opt, 1, 0.1f, w1, w2, w3);
}

int
main (void)
{
  NnBackendOptions options = { 1, 0 };
  char error[256] = "";

  ops = nn_backend_cpu_get ();
  if (!tap_ok (ops->context_new (0, &options, &ctx, error, sizeof error) == 0,
               "cpu context %s", error))
    return tap_done ();

  test_sgd ();
  test_momentum (0);
  test_momentum (1);
  test_adam ();
  test_adadelta ();
  test_rmsprop ();
  test_adagrad ();

  ops->context_free (ctx);
  return tap_done ();
}
