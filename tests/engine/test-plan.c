/* test-plan.c: the plan of a training pass (nn-plan.c) for each preset and
 * a spec with dropouts, on the CPU table and on one with the fused dense
 * ops (run by the CPU's own gemm, bias_act and dropout ops in the order the
 * separate ops run): which steps it has, which are fused, and that one
 * training pass gives bit-identical gradients with fusion on and off.
 */

#include "test-util.h"

#include "nn-plan.h"

#include <stdlib.h>
#include <string.h>

#define BATCH 4

static const NnBackendOps *cpu;
static NnBackendOps dense_ops; /* the CPU table with dense_forward and dense_backward */

static int
composed_dense_forward (void *ctx, int act, int n, int in, int out, const float *x,
                        const float *w, const float *bias, float *y, float *drop_y, float rate,
                        uint64_t seed, const int64_t *step)
{
  int rc = cpu->gemm (ctx, 0, 0, n, out, in, 1.0f, x, in, w, out, 0.0f, y, out);
  if (rc == 0)
    rc = cpu->bias_act_forward (ctx, act, y, bias, n, out, 1);
  if (rc == 0 && rate > 0.0f)
    rc = cpu->dropout_forward (ctx, drop_y, y, (size_t) n * (size_t) out, rate, seed, step);
  return rc;
}

static int
composed_dense_backward (void *ctx, int act, int n, int in, int out, const float *x,
                         const float *w, const float *y, float *dy, float *dw, float *dbias,
                         float *dx, float rate, uint64_t seed, const int64_t *step)
{
  int rc = 0;
  if (rate > 0.0f)
    rc = cpu->dropout_backward (ctx, dy, dy, (size_t) n * (size_t) out, rate, seed, step);
  if (rc == 0)
    rc = cpu->bias_act_backward (ctx, act, y, dy, dbias, n, out, 1);
  if (rc == 0)
    rc = cpu->gemm (ctx, 1, 0, in, out, n, 1.0f, x, in, dy, out, 0.0f, dw, out);
  if (rc == 0 && dx != NULL)
    rc = cpu->gemm (ctx, 0, 1, n, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in);
  return rc;
}

/* A model of `spec` on `ops` for BATCH images of `input`, its batch uploaded. */
static NnModel *
model_of (const char *spec, NnInputShape input, const NnBackendOps *ops)
{
  NnDeviceOptions device = { .kind = NN_DEVICE_CPU, .threads = 1 };
  size_t size = (size_t) BATCH * input.channels * input.height * input.width;
  float *x = malloc (sizeof (float) * size);
  int32_t labels[BATCH] = { 0, 1, 2, 3 };
  NnSpec *parsed = NULL;
  NnModel *m = NULL;
  NnError error;
  uint64_t rng = 5;

  nn_error_clear (&error);
  for (size_t i = 0; i < size; i++)
    x[i] = test_randf (&rng, 0.0f, 1.0f);
  _nn_model_set_test_ops (ops);
  NnStatus status = nn_spec_parse (spec, &parsed, &error);
  if (status == NN_OK)
    status = nn_model_new (parsed, input, BATCH, &device, 3, &m, &error);
  _nn_model_set_test_ops (NULL);
  nn_spec_free (parsed);
  if (status == NN_OK)
    status = _nn_model_upload_batch (m, x, labels, BATCH, &error);
  free (x);
  if (status != NN_OK)
    {
      tap_diag ("%s: %s", spec, error.message);
      nn_model_free (m);
      return NULL;
    }
  return m;
}

/* The parameters' gradients of one training pass (malloc'd), fusion on or off. */
static float *
gradients (NnModel *m, bool fusion)
{
  NnPass pass = { .n = BATCH, .training = true, .logits = true };
  NnError error;
  float *grads = malloc (sizeof (float) * (size_t) m->param_count);

  nn_error_clear (&error);
  _nn_plan_set_fusion (fusion);
  m->backend.ops->fill (m->backend.ctx, m->grads, 0.0f, (size_t) m->param_count);
  NnStatus status = _nn_model_forward_loss (m, &pass, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY,
                                            m->scratch[0], &error);
  if (status == NN_OK)
    status = _nn_model_backward (m, &pass, NULL, &error);
  _nn_plan_set_fusion (-1);
  if (status != NN_OK)
    {
      tap_diag ("%s", error.message);
      free (grads);
      return NULL;
    }
  m->backend.ops->download (m->backend.ctx, grads, m->grads,
                            sizeof (float) * (size_t) m->param_count);
  return grads;
}

/* The plan's forward and backward as "kind@layer" words, fusion on or off. */
static void
plan_words (NnModel *m, bool fusion, char *out, size_t size)
{
  NnPass pass = { .n = BATCH, .training = true, .logits = true };
  NnPlan plan;
  NnError error;
  size_t used = 0;

  out[0] = '\0';
  _nn_plan_set_fusion (fusion);
  if (_nn_plan_build (m, &pass, true, &plan, &error) != NN_OK)
    {
      _nn_plan_set_fusion (-1);
      return;
    }
  _nn_plan_set_fusion (-1);
  for (int32_t i = 0; i < plan.forward_count && used < size; i++)
    used += (size_t) snprintf (out + used, size - used, "%s%s@%d", i ? " " : "",
                               _nn_step_name (plan.forward[i].kind), plan.forward[i].layer);
  if (used < size)
    used += (size_t) snprintf (out + used, size - used, " |");
  for (int32_t i = 0; i < plan.backward_count && used < size; i++)
    used += (size_t) snprintf (out + used, size - used, " %s@%d",
                               _nn_step_name (plan.backward[i].kind), plan.backward[i].layer);
  _nn_plan_clear (&plan);
}

typedef struct
{
  const char *label;
  const char *spec;      /* NULL: the preset's */
  NnInputShape input;
  const char *fused;     /* the plan on the dense table, fusion on */
  const char *unfused;   /* fusion off (and on the CPU table) */
} Case;

int
main (void)
{
  cpu = nn_backend_cpu_get ();
  dense_ops = *cpu;
  dense_ops.dense_forward = composed_dense_forward;
  dense_ops.dense_backward = composed_dense_backward;

  NnInputShape mnist = { 1, 28, 28 };
  const Case cases[] = {
    /* the dropout above dense_1 applied by it in both directions */
    { "mlp-small", NULL, mnist, "layer@0 dense@1 dense@3 loss@3 | dense@3 dense@1",
      "layer@0 layer@1 layer@2 layer@3 loss@3 | layer@3 layer@2 layer@1" },
    { "mlp-wide", NULL, mnist, "layer@0 dense@1 dense@3 dense@5 loss@5 | dense@5 dense@3 dense@1",
      "layer@0 layer@1 layer@2 layer@3 layer@4 layer@5 loss@5 | layer@5 layer@4 layer@3 layer@2 "
      "layer@1" },
    /* the convolutions and pooling run their own ops on a table without
     * their fused ones */
    { "cnn", NULL, mnist,
      "layer@0 layer@1 layer@2 layer@3 layer@4 dense@5 dense@7 loss@7 | dense@7 dense@5 layer@4 "
      "layer@3 layer@2 layer@1 layer@0",
      "layer@0 layer@1 layer@2 layer@3 layer@4 layer@5 layer@6 layer@7 loss@7 | layer@7 layer@6 "
      "layer@5 layer@4 layer@3 layer@2 layer@1 layer@0" },
    { "dropouts", "flatten; dense 16 relu; dropout 0.5; dense 8 tanh; dropout 0.25; dense 4 softmax",
      { 1, 8, 8 },
      "layer@0 dense@1 dense@3 dense@5 loss@5 | dense@5 dense@3 dense@1",
      "layer@0 layer@1 layer@2 layer@3 layer@4 layer@5 loss@5 | layer@5 layer@4 layer@3 layer@2 "
      "layer@1" },
  };

  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      const Case *k = &cases[c];
      const char *spec = k->spec != NULL ? k->spec : nn_preset_find (k->label)->spec;
      NnModel *fused = model_of (spec, k->input, &dense_ops);
      NnModel *plain = model_of (spec, k->input, NULL);
      char on[1024], off[1024], cpu_on[1024];

      if (!tap_ok (fused != NULL && plain != NULL, "%s: the models are made", k->label))
        {
          nn_model_free (fused);
          nn_model_free (plain);
          continue;
        }
      plan_words (fused, true, on, sizeof on);
      plan_words (fused, false, off, sizeof off);
      plan_words (plain, true, cpu_on, sizeof cpu_on);
      tap_diag ("%s: fused: %s; unfused: %s", k->label, on, off);
      /* every dense layer below the softmax output runs the fused op, and a
       * dropout above one has no step of its own; with fusion off, or on a
       * table without the fused ops, every layer runs its own */
      tap_ok (strstr (on, "dense@") != NULL && strstr (off, "dense@") == NULL
                  && strcmp (off, cpu_on) == 0,
              "%s: dense steps fused only with fusion on and the fused ops", k->label);
      if (k->fused != NULL)
        tap_ok (strcmp (on, k->fused) == 0 && strcmp (off, k->unfused) == 0,
                "%s: the steps are %s / %s", k->label, k->fused, k->unfused);

      float *g_on = gradients (fused, true), *g_off = gradients (fused, false);
      float *g_cpu = gradients (plain, true);
      size_t bytes = sizeof (float) * (size_t) fused->param_count;
      tap_ok (g_on != NULL && g_off != NULL && g_cpu != NULL && memcmp (g_on, g_off, bytes) == 0
                  && memcmp (g_on, g_cpu, bytes) == 0,
              "%s: a training pass's gradients bit-identical with fusion on and off (%lld)",
              k->label, (long long) fused->param_count);
      free (g_on);
      free (g_off);
      free (g_cpu);
      nn_model_free (fused);
      nn_model_free (plain);
    }
  return tap_done ();
}
