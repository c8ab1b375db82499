/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-cuda-conditions.c: each of a run's conditions on CUDA (NnConditions:
 * batches from pinned or pageable host memory, no graph, the loss read
 * every step, no fused steps) and the articles' four together train each
 * preset as the default conditions do, from the same seed, and the result
 * records them. Skips, saying why, when no CUDA device is usable.
 *
 * Tolerance: the same data order, dropout masks and initial weights, so the
 * switches that leave the ops alone (data, graph, loss every step) give the
 * same losses up to the order the loss sums are added in (1e-4 relative);
 * fusion off runs other kernels (float summation order): the mean loss of
 * the last reports within 2 % or 1e-3, and the final test loss within 2 %.
 */

#include "gpu-test-util.h"

#define STEPS 48
#define EVERY 8
#define TOL_SAME 1e-4
#define TOL_TAIL 2e-2
#define TOL_TAIL_ABS 1e-3

typedef struct
{
  int count;
  float loss[STEPS / EVERY + 8];
} Losses;

static bool
collect_cb (const NnProgress *p, void *data)
{
  Losses *l = data;
  if (p->kind == NN_PROGRESS_STEP && l->count < STEPS / EVERY + 8)
    l->loss[l->count++] = p->loss;
  return true;
}

static bool
train (const NnPreset *preset, const NnDataset *data, NnConditions conditions, Losses *losses,
       NnRunResult *result)
{
  NnTrainConfig config;
  NnTrainer *trainer = NULL;
  NnError error;
  int steps_per_epoch = (data->train.count + preset->batch_size - 1) / preset->batch_size;

  nn_train_config_init (&config);
  nn_train_config_use_preset (&config, preset);
  config.epochs = (STEPS + steps_per_epoch - 1) / steps_per_epoch;
  config.seed = 11;
  config.device.kind = NN_DEVICE_CUDA;
  config.device.tf32 = false;
  config.progress_every = EVERY;
  config.max_steps = STEPS;
  config.conditions = conditions;
  memset (losses, 0, sizeof *losses);
  memset (result, 0, sizeof *result);
  nn_error_clear (&error);
  if (nn_trainer_new (&config, data, &trainer, &error) != NN_OK)
    {
      tap_diag ("%s: %s", preset->name, error.message);
      return false;
    }
  nn_trainer_set_progress (trainer, collect_cb, losses);
  NnStatus status = nn_trainer_run (trainer, result, &error);
  if (status != NN_OK)
    tap_diag ("%s (%s): %s", preset->name, nn_conditions_name (&conditions), error.message);
  nn_trainer_free (trainer);
  return status == NN_OK && result->epoch_count > 0;
}

static double
tail_mean (const Losses *l)
{
  double sum = 0;
  int n = 0;
  for (int i = l->count - 2; i < l->count; i++)
    if (i >= 0)
      {
        sum += l->loss[i];
        n++;
      }
  return n > 0 ? sum / n : NAN;
}

int
main (void)
{
  const char *reason = gpu_unusable_reason ();
  int preset_count = 0;
  const NnPreset *presets = nn_presets (&preset_count);

  if (reason != NULL)
    {
      printf ("1..0 # SKIP %s\n", reason);
      return 0;
    }
  NnDataset *data = test_make_dataset (4096, 512, 10, 1, 28, 28, 5);
  if (!tap_ok (data != NULL, "synthetic data set (4096 + 512 images, 28x28)"))
    return tap_done ();

  struct
  {
    const char *name;
    NnConditions c;
    bool same_ops; /* the very ops of the default, in the same order */
  } cases[7];
  int n = 0;
  NnConditions d = nn_conditions_default ();
  cases[n].name = "data pinned", cases[n].c = d, cases[n].c.data = NN_DATA_PINNED,
  cases[n++].same_ops = true;
  cases[n].name = "data pageable", cases[n].c = d, cases[n].c.data = NN_DATA_PAGEABLE,
  cases[n++].same_ops = true;
  cases[n].name = "graph off", cases[n].c = d, cases[n].c.graph = false, cases[n++].same_ops = true;
  cases[n].name = "loss every step", cases[n].c = d, cases[n].c.loss_every_step = true,
  cases[n++].same_ops = true;
  cases[n].name = "fusion off", cases[n].c = d, cases[n].c.fused = false, cases[n++].same_ops = false;
  cases[n].name = "article", cases[n].c = nn_conditions_article (), cases[n++].same_ops = false;

  for (int i = 0; i < preset_count; i++)
    {
      const NnPreset *preset = &presets[i];
      Losses base_l;
      NnRunResult base;

      bool ok = train (preset, data, d, &base_l, &base);
      tap_ok (ok && base.conditions.graph && base.conditions.data == NN_DATA_DEVICE
                  && base.conditions.fused,
              "%s: default conditions, a graph replayed (%.3f ms a step)", preset->name,
              base.step_seconds_median * 1e3);
      for (int k = 0; ok && k < n; k++)
        {
          Losses l;
          NnRunResult r;
          bool trained = train (preset, data, cases[k].c, &l, &r);
          bool recorded = trained && r.conditions.data == cases[k].c.data
                          && r.conditions.loss_every_step == cases[k].c.loss_every_step
                          && r.conditions.fused == cases[k].c.fused
                          && r.conditions.graph == cases[k].c.graph;
          bool unfused_plan = true;
          for (int32_t s = 0; trained && !cases[k].c.fused && s < r.plan_count; s++)
            unfused_plan = unfused_plan && !r.plan[s].fused;
          double worst = 0.0;
          for (int s = 0; trained && s < l.count && s < base_l.count; s++)
            worst = fmax (worst, fabs ((double) l.loss[s] - base_l.loss[s])
                                   / fmax (fabs ((double) base_l.loss[s]), 1e-3));
          double tail = tail_mean (&l), base_tail = tail_mean (&base_l);
          float test = trained ? r.epochs[r.epoch_count - 1].test_loss : NAN;
          float base_test = base.epochs[base.epoch_count - 1].test_loss;
          bool close = trained && l.count == base_l.count
                       && (cases[k].same_ops
                             ? worst <= TOL_SAME
                             : fabs (tail - base_tail) <= fmax (TOL_TAIL * base_tail, TOL_TAIL_ABS)
                                 && fabs ((double) test - base_test) <= TOL_TAIL * base_test + 1e-4);
          tap_ok (recorded && unfused_plan && close,
                  "%s, %s: the default's losses (worst report %.2g, last %.5f vs %.5f, test "
                  "%.5f vs %.5f), recorded (%.3f ms a step, %.2fx the default's)",
                  preset->name, cases[k].name, worst, tail, base_tail, (double) test,
                  (double) base_test, r.step_seconds_median * 1e3,
                  base.step_seconds_median > 0 ? r.step_seconds_median / base.step_seconds_median
                                               : 0.0);
          nn_run_result_clear (&r);
        }
      nn_run_result_clear (&base);
    }
  nn_dataset_free (data);
  return tap_done ();
}
