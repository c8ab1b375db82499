/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-cuda-training.c: 50 training steps of each preset on the CPU and on
 * CUDA (TF32 off) from the same seed, so the same initial weights, data
 * order and dropout masks; the per-step losses must agree. The CUDA run goes
 * through the trainer's captured-graph path from its second step on.
 * Skips, saying why, when no CUDA device is usable.
 *
 * Tolerance: each step's loss within 1% of the CPU's (float summation order
 * differs between cuBLAS/cuDNN and OpenBLAS, and Adam amplifies the
 * difference for near-zero gradients), the mean of the last 10 steps within
 * 0.5% or 1e-4 (the synthetic set is easy, losses reach 1e-5), and the final
 * weights within 5% (relative norm).
 */

#include "gpu-test-util.h"

#define STEPS 50
#define TOL_STEP 1e-2
#define TOL_TAIL 5e-3
#define TOL_TAIL_ABS 1e-4 /* the synthetic set is easy: losses reach 1e-5 */
#define TOL_WEIGHTS 5e-2

typedef struct
{
  int count;
  float loss[STEPS + 8];
} Losses;

static bool
collect_cb (const NnProgress *p, void *data)
{
  Losses *l = data;
  if (p->kind == NN_PROGRESS_STEP && l->count < STEPS + 8)
    l->loss[l->count++] = p->loss;
  return true;
}

/* Train `preset` for STEPS steps on `kind`; fills losses and (malloc'd) weights. */
static bool
train (const NnPreset *preset, NnDeviceKind kind, const NnDataset *data, Losses *losses,
       float **weights, int64_t *count, double *seconds)
{
  NnTrainConfig config;
  NnTrainer *trainer = NULL;
  NnRunResult result;
  NnError error;
  int steps_per_epoch = (data->train.count + preset->batch_size - 1) / preset->batch_size;

  nn_train_config_init (&config);
  config.spec_text = preset->spec;
  config.model_name = preset->name;
  config.optimizer = nn_optimizer_defaults (preset->optimizer);
  config.optimizer.lr = preset->lr;
  config.batch_size = preset->batch_size;
  config.epochs = (STEPS + steps_per_epoch - 1) / steps_per_epoch;
  config.seed = 7;
  config.device.kind = kind;
  config.device.tf32 = false;
  config.progress_every = 1;
  config.max_steps = STEPS;
  memset (losses, 0, sizeof *losses);
  memset (&result, 0, sizeof result);
  nn_error_clear (&error);
  *weights = NULL;

  if (nn_trainer_new (&config, data, &trainer, &error) != NN_OK)
    {
      tap_diag ("%s: %s", preset->name, error.message);
      return false;
    }
  nn_trainer_set_progress (trainer, collect_cb, losses);
  double t0 = _nn_now ();
  NnStatus status = nn_trainer_run (trainer, &result, &error);
  *seconds = _nn_now () - t0;
  if (status != NN_OK)
    tap_diag ("%s on %s: %s", preset->name, kind == NN_DEVICE_CPU ? "cpu" : "cuda", error.message);
  else
    {
      NnModel *model = nn_trainer_model (trainer);
      *count = nn_model_param_count (model);
      *weights = malloc ((size_t) *count * sizeof (float));
      if (nn_model_get_weights (model, *weights, *count, &error) != NN_OK)
        {
          tap_diag ("weights: %s", error.message);
          free (*weights);
          *weights = NULL;
          status = error.code;
        }
    }
  nn_run_result_clear (&result);
  nn_trainer_free (trainer);
  return status == NN_OK;
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
  /* Enough distinct samples for 50 batches of the MLPs; the CNN (batch 256)
   * cycles through its 16 batches about three times. */
  NnDataset *data = test_make_dataset (4096, 512, 10, 1, 28, 28, 99);
  if (!tap_ok (data != NULL, "synthetic data set (4096 + 512 images, 28x28)"))
    return tap_done ();

  for (int i = 0; i < preset_count; i++)
    {
      const NnPreset *preset = &presets[i];
      Losses cpu_l, gpu_l;
      float *cpu_w = NULL, *gpu_w = NULL;
      int64_t cpu_n = 0, gpu_n = 0;
      double cpu_s = 0, gpu_s = 0;

      bool ok_cpu = train (preset, NN_DEVICE_CPU, data, &cpu_l, &cpu_w, &cpu_n, &cpu_s);
      bool ok_gpu = train (preset, NN_DEVICE_CUDA, data, &gpu_l, &gpu_w, &gpu_n, &gpu_s);
      tap_ok (ok_cpu && ok_gpu && cpu_l.count == STEPS && gpu_l.count == STEPS,
              "%s: %d steps on the CPU (%.2f s) and on CUDA (%.2f s)", preset->name, STEPS, cpu_s,
              gpu_s);
      if (!(ok_cpu && ok_gpu && cpu_l.count == STEPS && gpu_l.count == STEPS))
        {
          free (cpu_w);
          free (gpu_w);
          continue;
        }
      double worst = 0.0, tail_cpu = 0.0, tail_gpu = 0.0;
      int worst_step = 0;
      for (int s = 0; s < STEPS; s++)
        {
          double rel = fabs ((double) gpu_l.loss[s] - cpu_l.loss[s])
                       / fmax (fabs ((double) cpu_l.loss[s]), 1e-3);
          if (!(rel <= worst))
            {
              worst = rel;
              worst_step = s + 1;
            }
          if (s >= STEPS - 10)
            {
              tail_cpu += cpu_l.loss[s] / 10.0;
              tail_gpu += gpu_l.loss[s] / 10.0;
            }
        }
      tap_diag ("%s: loss step 1 cpu %.6f cuda %.6f; step %d cpu %.6f cuda %.6f", preset->name,
                cpu_l.loss[0], gpu_l.loss[0], STEPS, cpu_l.loss[STEPS - 1], gpu_l.loss[STEPS - 1]);
      tap_ok (worst <= TOL_STEP, "%s: every step's loss within %.0f%% (worst %.2g at step %d)",
              preset->name, TOL_STEP * 100, worst, worst_step);
      tap_close (tail_gpu, tail_cpu, TOL_TAIL, TOL_TAIL_ABS, "%s: mean loss of the last 10 steps",
                 preset->name);
      double ew = cpu_n == gpu_n ? gpu_rel_err (gpu_w, cpu_w, (size_t) cpu_n) : INFINITY;
      tap_ok (ew <= TOL_WEIGHTS, "%s: final weights agree (rel err %.2g over %lld)", preset->name,
              ew, (long long) cpu_n);
      free (cpu_w);
      free (gpu_w);
    }
  nn_dataset_free (data);
  return tap_done ();
}
