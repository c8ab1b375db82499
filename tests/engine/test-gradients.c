/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-gradients.c: finite-difference checks of every layer kind and loss.
 *
 * For a small model on a few random samples, the analytic gradient of the
 * mean loss (backward through the backend ops) is compared with central
 * differences for every parameter and every input value.
 */

#include "test-util.h"

#include "nn-model-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 3
#define DROPOUT_STEP 5

typedef struct
{
  const char *title;
  const char *spec;
  NnInputShape input;
  NnLossKind loss;
  bool training; /* dropout active, with the mask of DROPOUT_STEP */
} GradCase;

typedef struct
{
  NnModel *model;
  const GradCase *c;
  float *x;          /* (BATCH, in_size) host */
  int32_t labels[BATCH];
} Setup;

static bool
check (NnStatus status, const NnError *error, const char *what)
{
  if (status == NN_OK)
    return true;
  tap_diag ("%s: %s", what, error->message);
  return false;
}

static NnPass
pass_of (const Setup *s)
{
  NnPass pass = { .n = BATCH, .training = s->c->training,
                  .logits = s->c->loss != NN_LOSS_MEAN_SQUARED_ERROR };
  return pass;
}

/* The mean loss of the batch at the current parameters and s->x. */
static double
loss_at (Setup *s, NnError *error)
{
  NnModel *m = s->model;
  const NnBackendOps *ops = m->backend.ops;
  NnPass pass = pass_of (s);
  float stats[2];

  if (_nn_model_upload_batch (m, s->x, s->labels, BATCH, error) != NN_OK
      || _nn_model_forward (m, &pass, error) != NN_OK)
    return NAN;
  ops->fill (m->backend.ctx, m->stats, 0.0f, 2);
  if (ops->loss (m->backend.ctx, (int) s->c->loss, _nn_model_output (m), m->labels, m->targets,
                 NULL, m->stats, BATCH, m->classes) != 0)
    return NAN;
  ops->download (m->backend.ctx, stats, m->stats, sizeof stats);
  return stats[0] / BATCH;
}

/* Compare one analytic gradient with the central difference; a kink of relu
 * or a switch of the max inside the step makes a difference meaningless, so
 * such points are found by a second, smaller step and skipped. */
static bool
grad_matches (double analytic, double numeric, double numeric_half)
{
  double scale = fmax (fabs (analytic), fabs (numeric));
  if (fabs (analytic - numeric) <= 5e-4 + 1e-2 * scale)
    return true;
  /* not smooth at this point: the two steps disagree with each other too */
  return fabs (numeric - numeric_half) > 5e-4 + 5e-2 * scale;
}

static void
run_case (const GradCase *c)
{
  NnError error;
  NnSpec *spec = NULL;
  Setup s = { 0 };
  NnDeviceOptions device = { .kind = NN_DEVICE_CPU, .threads = 1 };
  NnStatus status;
  uint64_t rng = 1234;
  float *weights = NULL, *grads = NULL, *gx = NULL, *input_grad;
  int64_t count, in_count;
  int bad = 0, skipped = 0, checked = 0;
  double worst = 0.0;
  int64_t zero_step = DROPOUT_STEP;
  const double eps = 1e-3;

  nn_error_clear (&error);
  status = nn_spec_parse (c->spec, &spec, &error);
  if (!tap_ok (check (status, &error, c->spec), "%s: spec parses", c->title))
    return;
  status = nn_model_new (spec, c->input, BATCH, &device, 7, &s.model, &error);
  nn_spec_free (spec);
  if (!tap_ok (check (status, &error, c->spec), "%s: model builds", c->title))
    return;
  s.c = c;
  count = s.model->param_count;
  in_count = (int64_t) BATCH * s.model->in_size;
  s.x = malloc (sizeof (float) * (size_t) in_count);
  weights = malloc (sizeof (float) * (size_t) (count + 1));
  grads = malloc (sizeof (float) * (size_t) (count + 1));
  gx = malloc (sizeof (float) * (size_t) in_count);
  for (int64_t i = 0; i < in_count; i++)
    s.x[i] = test_randf (&rng, -1.0f, 1.0f);
  for (int i = 0; i < BATCH; i++)
    s.labels[i] = i % s.model->classes;
  /* non-zero biases, so their gradients are exercised off the origin */
  nn_model_get_weights (s.model, weights, count, &error);
  for (int64_t i = 0; i < count; i++)
    weights[i] += test_randf (&rng, -0.2f, 0.2f);
  nn_model_set_weights (s.model, weights, count, &error);
  s.model->backend.ops->upload (s.model->backend.ctx, s.model->step, &zero_step, sizeof zero_step);

  /* analytic */
  {
    NnModel *m = s.model;
    const NnBackendOps *ops = m->backend.ops;
    NnPass pass = pass_of (&s);
    status = _nn_model_upload_batch (m, s.x, s.labels, BATCH, &error);
    if (status == NN_OK)
      status = _nn_model_forward (m, &pass, &error);
    if (status == NN_OK)
      status = _nn_model_check (m,
                                ops->loss (m->backend.ctx, (int) c->loss, _nn_model_output (m),
                                           m->labels, m->targets, m->scratch[0], m->stats, BATCH,
                                           m->classes),
                                "loss", &error);
    if (status == NN_OK)
      status = _nn_model_backward (m, &pass, &input_grad, &error);
    if (status == NN_OK)
      {
        ops->download (m->backend.ctx, grads, m->grads, sizeof (float) * (size_t) count);
        ops->download (m->backend.ctx, gx, input_grad, sizeof (float) * (size_t) in_count);
      }
  }
  if (!tap_ok (check (status, &error, "backward"), "%s: forward and backward run", c->title))
    goto out;

  /* numeric, every parameter */
  for (int64_t i = 0; i < count; i++)
    {
      float saved = weights[i];
      double plus, minus, plus_h, minus_h, numeric, half;
      weights[i] = saved + (float) eps;
      nn_model_set_weights (s.model, weights, count, &error);
      plus = loss_at (&s, &error);
      weights[i] = saved - (float) eps;
      nn_model_set_weights (s.model, weights, count, &error);
      minus = loss_at (&s, &error);
      weights[i] = saved + (float) (eps / 4);
      nn_model_set_weights (s.model, weights, count, &error);
      plus_h = loss_at (&s, &error);
      weights[i] = saved - (float) (eps / 4);
      nn_model_set_weights (s.model, weights, count, &error);
      minus_h = loss_at (&s, &error);
      weights[i] = saved;
      numeric = (plus - minus) / (2 * eps);
      half = (plus_h - minus_h) / (eps / 2);
      checked++;
      if (!grad_matches (grads[i], numeric, half))
        {
          if (bad < 5)
            tap_diag ("%s: parameter %lld: analytic %.6g, numeric %.6g", c->title, (long long) i,
                      grads[i], numeric);
          bad++;
        }
      else if (fabs (grads[i] - numeric) > 5e-4 + 1e-2 * fmax (fabs (grads[i]), fabs (numeric)))
        skipped++;
      worst = fmax (worst, fabs (grads[i] - numeric));
    }
  nn_model_set_weights (s.model, weights, count, &error);

  /* numeric, every input value */
  for (int64_t i = 0; i < in_count; i++)
    {
      float saved = s.x[i];
      double plus, minus, plus_h, minus_h, numeric, half;
      s.x[i] = saved + (float) eps;
      plus = loss_at (&s, &error);
      s.x[i] = saved - (float) eps;
      minus = loss_at (&s, &error);
      s.x[i] = saved + (float) (eps / 4);
      plus_h = loss_at (&s, &error);
      s.x[i] = saved - (float) (eps / 4);
      minus_h = loss_at (&s, &error);
      s.x[i] = saved;
      numeric = (plus - minus) / (2 * eps);
      half = (plus_h - minus_h) / (eps / 2);
      checked++;
      if (!grad_matches (gx[i], numeric, half))
        {
          if (bad < 5)
            tap_diag ("%s: input %lld: analytic %.6g, numeric %.6g", c->title, (long long) i, gx[i],
                      numeric);
          bad++;
        }
      else if (fabs (gx[i] - numeric) > 5e-4 + 1e-2 * fmax (fabs (gx[i]), fabs (numeric)))
        skipped++;
      worst = fmax (worst, fabs (gx[i] - numeric));
    }
  /* a few kinks are expected with relu and max; many mean a wrong gradient */
  tap_ok (bad == 0 && skipped * 20 <= checked,
          "%s: %d gradients match central differences (%d at kinks, largest difference %.2g)",
          c->title, checked, skipped, worst);

out:
  free (s.x);
  free (weights);
  free (grads);
  free (gx);
  nn_model_free (s.model);
}

/* The dropout mask is the one nn_dropout_keep defines, and it stays fixed
 * for a step: forward twice gives the same output, and a kept element is
 * scaled by 1 / (1 - rate). */
static void
check_dropout_mask (void)
{
  NnError error;
  NnSpec *spec = NULL;
  NnModel *model = NULL;
  NnDeviceOptions device = { .kind = NN_DEVICE_CPU, .threads = 1 };
  NnInputShape input = { 1, 4, 5 };
  NnPass train = { .n = 2, .training = true, .logits = true };
  NnPass infer = { .n = 2, .training = false, .logits = true };
  float x[40], y[40], y2[40];
  int64_t step = 11;
  int kept = 0, wrong = 0;
  NnStatus status;

  nn_error_clear (&error);
  status = nn_spec_parse ("flatten; dropout 0.5", &spec, &error);
  if (status == NN_OK)
    status = nn_model_new (spec, input, 2, &device, 99, &model, &error);
  nn_spec_free (spec);
  if (!tap_ok (check (status, &error, "dropout model"), "dropout: model builds"))
    return;
  for (int i = 0; i < 40; i++)
    x[i] = 0.5f + (float) i;
  model->backend.ops->upload (model->backend.ctx, model->step, &step, sizeof step);
  _nn_model_upload_batch (model, x, NULL, 2, &error);
  _nn_model_forward (model, &train, &error);
  model->backend.ops->download (model->backend.ctx, y, _nn_model_output (model), sizeof y);
  _nn_model_forward (model, &train, &error);
  model->backend.ops->download (model->backend.ctx, y2, _nn_model_output (model), sizeof y2);
  for (int i = 0; i < 40; i++)
    {
      int keep = nn_dropout_keep (_nn_layer_seed (model, model->layers[1]), step, (uint64_t) i,
                                  0.5f);
      kept += keep;
      if (y[i] != y2[i] || fabsf (y[i] - (keep ? x[i] * 2.0f : 0.0f)) > 1e-5f)
        wrong++;
    }
  tap_ok (wrong == 0 && kept > 5 && kept < 35,
          "dropout: training output is the fixed mask scaled by 1/(1-rate) (%d of 40 kept)", kept);
  _nn_model_forward (model, &infer, &error);
  model->backend.ops->download (model->backend.ctx, y, _nn_model_output (model), sizeof y);
  wrong = 0;
  for (int i = 0; i < 40; i++)
    if (y[i] != x[i])
      wrong++;
  tap_ok (wrong == 0, "dropout: identity in inference");
  nn_model_free (model);
}

int
main (void)
{
  static const GradCase cases[] = {
    { "dense (sigmoid, then softmax + sparse cross-entropy)",
      "flatten; dense 4 sigmoid; dense 3 softmax", { 1, 2, 3 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "conv2d valid", "conv2d 2 3 tanh; flatten; dense 3 softmax", { 2, 5, 5 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "conv2d same", "conv2d 2 3 tanh padding=same; flatten; dense 3 softmax", { 2, 4, 5 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "conv2d stride 2", "conv2d 3 3 tanh stride=2; flatten; dense 3 softmax", { 1, 7, 6 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "conv2d stride 2 same", "conv2d 2 3 tanh stride=2 padding=same; flatten; dense 3 softmax",
      { 2, 6, 5 }, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "conv2d kernel 1x3", "conv2d 2 1x3 tanh; flatten; dense 3 softmax", { 2, 3, 5 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "conv2d relu", "conv2d 3 3 relu; flatten; dense 3 softmax", { 1, 5, 5 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "maxpool", "conv2d 2 3 tanh; maxpool 2; flatten; dense 3 softmax", { 1, 6, 6 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "maxpool with overhang", "maxpool 2 padding=same; flatten; dense 3 softmax", { 2, 5, 5 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "avgpool", "avgpool 2; flatten; dense 3 softmax", { 2, 4, 6 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "avgpool with overhang", "conv2d 2 2 tanh; avgpool 2 padding=same; flatten; dense 3 softmax",
      { 1, 6, 6 }, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "avgpool 3 stride 2", "avgpool 3 stride=2; flatten; dense 3 softmax", { 1, 7, 7 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "flatten between dense layers", "flatten; dense 5 tanh; flatten; dense 3", { 2, 2, 2 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "dropout (fixed mask)", "flatten; dense 6 tanh; dropout 0.5; dense 3 softmax", { 1, 2, 4 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, true },
    { "conv dropout (fixed mask)", "conv2d 2 3 tanh; dropout 0.25; flatten; dense 3 softmax",
      { 1, 5, 5 }, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, true },
    { "relu", "flatten; dense 6; relu; dense 3 softmax", { 1, 2, 3 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "sigmoid", "flatten; dense 5; activation sigmoid; dense 3 softmax", { 1, 2, 3 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "tanh", "flatten; dense 5; activation tanh; dense 3 softmax", { 1, 2, 3 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "softmax inside the model", "flatten; dense 5; activation softmax; dense 3 softmax",
      { 1, 2, 3 }, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "relu on a conv output", "conv2d 2 2; relu; flatten; dense 3 softmax", { 1, 4, 4 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "last activation layer softmax (fused)", "flatten; dense 3; activation softmax", { 1, 2, 3 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "sparse cross-entropy on logits (no softmax)", "flatten; dense 4 tanh; dense 3", { 1, 2, 3 },
      NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, false },
    { "categorical cross-entropy", "flatten; dense 4 tanh; dense 3 softmax", { 1, 2, 3 },
      NN_LOSS_CATEGORICAL_CROSSENTROPY, false },
    { "mse through softmax", "flatten; dense 4 tanh; dense 3 softmax", { 1, 2, 3 },
      NN_LOSS_MEAN_SQUARED_ERROR, false },
    { "mse on a linear output", "flatten; dense 4 sigmoid; dense 3", { 1, 2, 3 },
      NN_LOSS_MEAN_SQUARED_ERROR, false },
    { "mse through a softmax layer", "flatten; dense 3; activation softmax", { 1, 2, 3 },
      NN_LOSS_MEAN_SQUARED_ERROR, false },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    run_case (&cases[i]);
  check_dropout_mask ();
  return tap_done ();
}
