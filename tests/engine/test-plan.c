/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-plan.c: the plan of a training pass (nn-plan.c) for each preset and
 * a spec with dropouts, on the CPU table and on one that runs dense layers
 * as fused steps too (by the CPU's own gemm, bias_act and dropout ops in
 * the order the separate ops run): which steps it has, which are fused,
 * how they are described, and that one training pass gives bit-identical
 * gradients with fusion on and off. On a table that says it runs every
 * fused step there is, the plans of the presets' runs as nn_train_plan
 * describes them.
 */

#include "test-util.h"
#include "json-check.h"

#include "nn-plan.h"

#include <stdlib.h>
#include <string.h>

#define BATCH 4

static const NnBackendOps *cpu;
static NnBackendOps dense_ops; /* the CPU table with dense layers as fused steps */
static NnBackendOps every_ops; /* a table that runs every fused step, for plans only */

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

/* Dense layers as fused steps, without the update or the layer below;
 * the CPU's own fused step (a convolution with its bias and activation). */
static int
dense_supported (void *ctx, const NnBackendStep *s)
{
  if (s->kind != NN_BK_STEP_DENSE)
    return cpu->step_supported (ctx, s);
  return s->act != NN_BK_ACT_SOFTMAX && s->update.opt == NULL
         && s->below.kind == NN_BK_BELOW_NONE && !(s->flags & NN_BK_STEP_DZ_IN);
}

static int
dense_run (void *ctx, const NnBackendStep *s)
{
  if (s->kind != NN_BK_STEP_DENSE)
    return cpu->step_run (ctx, s);
  if (!s->backward)
    return composed_dense_forward (ctx, s->act, s->n, s->dense.in, s->dense.out, s->x, s->w, s->b,
                                   s->y, s->drop.y, s->drop.rate, s->drop.seed, s->step);
  return composed_dense_backward (ctx, s->act, s->n, s->dense.in, s->dense.out, s->x, s->w, s->y,
                                  s->dy, s->dw, s->db, s->dx, s->drop.rate, s->drop.seed,
                                  s->step);
}

/* Every fused step the engine asks about (an element-wise activation; the
 * output's input gradient from logits): a table with them plans every
 * fusion there is, and its plans are described, never run. */
static int
every_supported (void *ctx, const NnBackendStep *s)
{
  (void) ctx;
  if (s->kind == NN_BK_STEP_OUTPUT_LOSS && s->dx != NULL)
    return s->act == NN_BK_ACT_LINEAR;
  return s->act != NN_BK_ACT_SOFTMAX;
}

static int
planned_only (void *ctx, const NnBackendStep *s)
{
  (void) ctx;
  (void) s;
  return NN_BACKEND_UNSUPPORTED;
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
  m->fusion = fusion;
  m->backend.ops->fill (m->backend.ctx, m->grads, 0.0f, (size_t) m->param_count);
  NnStatus status = _nn_model_forward_loss (m, &pass, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY,
                                            m->scratch[0], &error);
  if (status == NN_OK)
    status = _nn_model_backward (m, &pass, NULL, &error);
  m->fusion = true;
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
  m->fusion = fusion;
  NnStatus status = _nn_plan_build (m, &pass, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, &plan,
                                    &error);
  m->fusion = true;
  if (status != NN_OK)
    return;
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

/* Describes the plan of a training pass (fusion on) of m: its text into
 * `text` and whether the JSON array of its steps parses and lists, in
 * order, the kinds the plan has. */
static bool
describe (NnModel *m, char *text, size_t size)
{
  NnPass pass = { .n = BATCH, .training = true, .logits = true };
  NnPlan plan;
  NnPlanStep *steps = NULL;
  int32_t count = 0;
  NnError error;
  NnJson json;
  JcParser jp;
  bool ok;

  text[0] = '\0';
  nn_error_clear (&error);
  m->fusion = true;
  ok = _nn_plan_build (m, &pass, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, &plan, &error) == NN_OK;
  if (!ok)
    return false;
  ok = _nn_plan_describe (m, &plan, &steps, &count, &error) == NN_OK
       && count == plan.forward_count + plan.backward_count;
  if (ok)
    nn_plan_format (steps, count, text, size);
  _nn_json_init (&json);
  if (ok)
    _nn_plan_json (&json, steps, count);
  ok = ok && _nn_json_ok (&json) && jc_parse (&jp, json.data, json.len);
  if (ok)
    {
      int32_t seen = 0;
      for (int i = 0; i < jp.count; i++)
        if (strcmp (jp.entries[i].path, "[].kind") == 0)
          {
            int32_t at = seen - plan.forward_count;
            const NnStep *st = at < 0 ? &plan.forward[seen] : &plan.backward[at];
            char want[40];
            snprintf (want, sizeof want, "\"%s\"", _nn_step_name (st->kind));
            ok = ok && seen < count && strcmp (jp.entries[i].value, want) == 0;
            seen++;
          }
      ok = ok && seen == count && jc_find (&jp, "[].layers") != NULL
           && jc_find (&jp, "[].fused_with") != NULL;
      free (jp.entries);
    }
  _nn_json_free (&json);
  free (steps);
  _nn_plan_clear (&plan);
  return ok;
}

/* The plan of a run of `preset` on the CPU as nn_train_plan describes it,
 * with the models made on `ops` (NULL: the CPU table), fusion on or off;
 * "" on failure. */
static void
train_plan_text (const char *preset, const NnBackendOps *ops, bool fusion, char *text,
                 size_t size)
{
  NnTrainConfig config;
  NnPlanStep *steps = NULL;
  int32_t count = 0;
  NnError error;

  text[0] = '\0';
  nn_train_config_init (&config);
  nn_train_config_use_preset (&config, nn_preset_find (preset));
  config.device.threads = 1;
  nn_error_clear (&error);
  config.conditions.fused = fusion;
  _nn_model_set_test_ops (ops);
  NnStatus status = nn_train_plan (&config, (NnInputShape){ 1, 28, 28 }, &steps, &count, &error);
  _nn_model_set_test_ops (NULL);
  if (status != NN_OK)
    {
      tap_diag ("%s: %s", preset, error.message);
      return;
    }
  nn_plan_format (steps, count, text, size);
  free (steps);
}

/* Whether every fused step of a plan's text is a convolution's forward,
 * the one fused step the CPU runs. */
static bool
only_conv_fused (const char *text)
{
  for (const char *line = text; *line != '\0';)
    {
      const char *end = strchr (line, '\n');
      size_t len = end != NULL ? (size_t) (end - line) : strlen (line);
      bool fused = len >= 6 && memcmp (line + len - 6, " fused", 6) == 0;
      if (fused && strncmp (line, "forward   conv          ", 24) != 0)
        return false;
      line += len + (end != NULL);
    }
  return true;
}

typedef struct
{
  const char *label;
  const char *spec;      /* NULL: the preset's */
  NnInputShape input;
  const char *fused;     /* the plan on the dense table, fusion on */
  const char *unfused;   /* fusion off (and on the CPU table) */
  const char *line;      /* a line of the fused plan's text */
} Case;

int
main (void)
{
  cpu = nn_backend_cpu_get ();
  dense_ops = *cpu;
  dense_ops.step_supported = dense_supported;
  dense_ops.step_run = dense_run;

  NnInputShape mnist = { 1, 28, 28 };
  const Case cases[] = {
    /* the dropout above dense_1 applied by it in both directions */
    { "mlp-small", NULL, mnist, "layer@0 dense@1 dense@3 loss@3 | dense@3 dense@1",
      "layer@0 layer@1 layer@2 layer@3 loss@3 | layer@3 layer@2 layer@1",
      "backward  dense         layers 2-3 (dense 128 relu + dropout 0.2), fused\n" },
    { "mlp-wide", NULL, mnist, "layer@0 dense@1 dense@3 dense@5 loss@5 | dense@5 dense@3 dense@1",
      "layer@0 layer@1 layer@2 layer@3 layer@4 layer@5 loss@5 | layer@5 layer@4 layer@3 layer@2 "
      "layer@1",
      "forward   dense         layers 4-5 (dense 1000 relu + dropout 0.2), fused\n" },
    /* the convolutions' forwards run with their bias and activation, as
     * on the CPU; the pooling and the convolutions' backward their own ops
     * on a table without their fused steps */
    { "cnn", NULL, mnist,
      "conv@0 conv@1 layer@2 layer@3 layer@4 dense@5 dense@7 loss@7 | dense@7 dense@5 layer@4 "
      "layer@3 layer@2 layer@1 layer@0",
      "layer@0 layer@1 layer@2 layer@3 layer@4 layer@5 layer@6 layer@7 loss@7 | layer@7 layer@6 "
      "layer@5 layer@4 layer@3 layer@2 layer@1 layer@0",
      "backward  layer         layer 3 (maxpool 2)\n" },
    { "dropouts", "flatten; dense 16 relu; dropout 0.5; dense 8 tanh; dropout 0.25; dense 4 softmax",
      { 1, 8, 8 },
      "layer@0 dense@1 dense@3 dense@5 loss@5 | dense@5 dense@3 dense@1",
      "layer@0 layer@1 layer@2 layer@3 layer@4 layer@5 loss@5 | layer@5 layer@4 layer@3 layer@2 "
      "layer@1",
      "forward   dense         layer 6 (dense 4 softmax), fused\n" },
  };

  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      const Case *k = &cases[c];
      const char *spec = k->spec != NULL ? k->spec : nn_preset_find (k->label)->spec;
      NnModel *fused = model_of (spec, k->input, &dense_ops);
      NnModel *plain = model_of (spec, k->input, NULL);
      char on[1024], off[1024], cpu_on[1024], cpu_off[1024];

      if (!tap_ok (fused != NULL && plain != NULL, "%s: the models are made", k->label))
        {
          nn_model_free (fused);
          nn_model_free (plain);
          continue;
        }
      plan_words (fused, true, on, sizeof on);
      plan_words (fused, false, off, sizeof off);
      plan_words (plain, true, cpu_on, sizeof cpu_on);
      plan_words (plain, false, cpu_off, sizeof cpu_off);
      tap_diag ("%s: fused: %s; unfused: %s", k->label, on, off);
      /* every dense layer below the softmax output runs as a fused step,
       * and a dropout above one has no step of its own; with fusion off,
       * or on a table without dense steps, every dense layer runs its own
       * ops, and with fusion off every other layer too */
      tap_ok (strstr (on, "dense@") != NULL && strstr (off, "dense@") == NULL
                  && strstr (cpu_on, "dense@") == NULL && strcmp (off, cpu_off) == 0
                  && strstr (off, "conv@") == NULL,
              "%s: dense steps fused only with fusion on and the fused steps", k->label);
      if (k->fused != NULL)
        tap_ok (strcmp (on, k->fused) == 0 && strcmp (off, k->unfused) == 0,
                "%s: the steps are %s / %s", k->label, k->fused, k->unfused);

      /* its description: a line a step, saying which layers each covers
       * and which are fused, and the same steps as JSON */
      char text[4096], plain_text[4096];
      bool described = describe (fused, text, sizeof text);
      bool plain_described = describe (plain, plain_text, sizeof plain_text);
      tap_ok (described && plain_described && strstr (text, k->line) != NULL
                  && only_conv_fused (plain_text)
                  && strstr (plain_text, "forward   loss          ") != NULL,
              "%s: the plan described, as text and as JSON: '%.*s' (and on the CPU table "
              "nothing fused but convolutions' forwards)",
              k->label, (int) strlen (k->line) - 1, k->line);
      if (!described || strstr (text, k->line) == NULL)
        tap_diag ("%s", text);

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

  /* A run's plan, from nn_train_plan: on a table that plans every fusion
   * there is, each kind of fused step says what it runs; on the CPU's,
   * every layer runs its own ops. */
  every_ops = *cpu;
  every_ops.step_supported = every_supported;
  every_ops.step_run = planned_only;
  {
    char why[256] = "";
    tap_ok (_nn_backend_ops_valid (&every_ops, why, sizeof why), "the planning table is valid%s%s",
            why[0] ? ": " : "", why);
  }
  static const struct
  {
    const char *preset;
    const char *text;
  } runs[] = {
    { "mlp-small",
      "forward   layer         layer 1 (flatten)\n"
      "forward   dense         layers 2-3 (dense 128 relu + dropout 0.2), fused\n"
      /* one layer that learns below the output: no branch beside it */
      "forward   output_loss   layer 4 (dense 10 softmax), loss fused\n"
      "backward  dense_update  layer 4 (dense 10 softmax), optimizer update, dz of layer 2 "
      "fused\n"
      "backward  dense_update  layers 2-3 (dense 128 relu + dropout 0.2), optimizer update fused; "
      "from its dz, formed above\n" },
    { "mlp-wide",
      "forward   layer         layer 1 (flatten)\n"
      "forward   dense         layers 2-3 (dense 1000 relu + dropout 0.2), fused\n"
      "forward   dense         layers 4-5 (dense 1000 relu + dropout 0.2), fused\n"
      "forward   output_loss   layer 6 (dense 10 softmax), loss, input gradient, dz of layer 4 "
      "fused\n"
      "backward  dense_update  layer 6 (dense 10 softmax), optimizer update fused; on a branch "
      "beside the steps after it\n"
      "backward  dense_update  layers 4-5 (dense 1000 relu + dropout 0.2), optimizer update, dz "
      "of layer 2 fused; from its dz, formed above\n"
      "backward  dense_update  layers 2-3 (dense 1000 relu + dropout 0.2), optimizer update fused; "
      "after the branch is joined, from its dz, formed above\n" },
    { "cnn",
      "forward   conv          layer 1 (conv2d 32 3 relu), fused\n"
      "forward   conv_pool     layers 2-4 (conv2d 64 3 relu + maxpool 2 + dropout 0.25), maxima "
      "recorded fused\n"
      "forward   layer         layer 5 (flatten)\n"
      "forward   dense         layers 6-7 (dense 128 relu + dropout 0.5), fused\n"
      "forward   output_loss   layer 8 (dense 10 softmax), loss, input gradient, dz of layer 6 "
      "fused\n"
      "backward  dense_update  layer 8 (dense 10 softmax), optimizer update fused; on a branch "
      "beside the steps after it\n"
      "backward  dense_update  layers 6-7 (dense 128 relu + dropout 0.5), optimizer update fused; "
      "from its dz, formed above\n"
      "backward  layer         layer 5 (flatten)\n"
      "backward  pool_argmax   layers 2-4 (conv2d 64 3 relu + maxpool 2 + dropout 0.25), "
      "activation backward of layer 2 from the recorded maxima fused\n"
      "backward  conv_below    layers 1-2 (conv2d 32 3 relu + conv2d 64 3 relu), fused; from its "
      "dz, formed above\n" },
  };
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
    {
      char text[4096], cpu_text[4096], off_text[4096], cpu_off_text[4096];
      train_plan_text (runs[r].preset, &every_ops, true, text, sizeof text);
      train_plan_text (runs[r].preset, NULL, true, cpu_text, sizeof cpu_text);
      train_plan_text (runs[r].preset, &every_ops, false, off_text, sizeof off_text);
      train_plan_text (runs[r].preset, NULL, false, cpu_off_text, sizeof cpu_off_text);
      if (!tap_ok (strcmp (text, runs[r].text) == 0,
                   "%s: the plan of a run where every fusion is there says what each step runs",
                   runs[r].preset))
        tap_diag ("got:\n%s", text);
      tap_ok (cpu_text[0] != '\0' && only_conv_fused (cpu_text)
                  && strstr (off_text, "fused") == NULL && strcmp (off_text, cpu_off_text) == 0
                  && strncmp (off_text, "forward   layer         layer 1 (", 32) == 0,
              "%s: on the CPU a run's plan runs each layer's own ops but a convolution's "
              "forward, and with fusion off every layer's own",
              runs[r].preset);
    }
  {
    NnTrainConfig config;
    NnPlanStep *steps = (NnPlanStep *) &config;
    int32_t count = 5;
    NnError error;
    nn_train_config_init (&config);
    config.spec_text = "flatten; dense 10 softmax";
    config.batch_size = 0;
    nn_error_clear (&error);
    tap_ok (nn_train_plan (&config, (NnInputShape){ 1, 8, 8 }, &steps, &count, &error)
                    == NN_ERROR_INVALID_ARGUMENT
                && steps == NULL && count == 0 && strstr (error.message, "batch size") != NULL,
            "no plan for a run that cannot be: %s", error.message);
  }
  return tap_done ();
}
