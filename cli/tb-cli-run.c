/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-run.c: the commands that train or evaluate: train, evaluate and
 * reproduce (every preset on every device, then a table side by side).
 * What the command line asks for is checked before any data set loads (a
 * usage error, nothing recorded); every run that starts, also a cancelled
 * or failed one, leaves a schema-1 result file.
 */

#include "tb-cli-common.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 32
#define MAX_PRESETS 16

/* ---------------------------------------------------------------- Ctrl-C and other stops */

/* The first Ctrl-C, SIGTERM or SIGHUP asks the running trainer to stop (the
 * run is saved as cancelled); a second one ends the process at once. Called
 * from a signal handler (POSIX) or a thread of the console's (Windows). */
static NnRunner *volatile current_runner;
static volatile sig_atomic_t interrupts;

static bool
interrupt_cb (TbCliStop why)
{
  static const char *const messages[] = {
    [TB_CLI_STOP_INTERRUPT] = "\ncancelling: the run is saved as cancelled (Ctrl-C again to quit "
                              "now)\n",
    [TB_CLI_STOP_TERMINATE] = "\nterminated (SIGTERM): stopping; the run is saved as cancelled\n",
    [TB_CLI_STOP_HANGUP] = "\nthe terminal went away (SIGHUP): stopping; the run is saved as "
                           "cancelled\n",
    [TB_CLI_STOP_CLOSE] = "\nthe console is closing: stopping; the run is saved as cancelled\n",
  };
  interrupts++;
  if (interrupts > 1 && why != TB_CLI_STOP_CLOSE)
    return false;
  if (interrupts == 1)
    tb_cli_os_write_error (messages[why]);
  if (current_runner != NULL)
    nn_runner_cancel (current_runner);
  return true;
}

/* ---------------------------------------------------------------- one run */

/* One training run of the CLI: the engine's recorded run (nn_runner_run:
 * load, build, train, write the result file) and what the CLI adds around
 * it: the weights file and the lines that say how it ended. */
typedef struct
{
  NnRunRequest request;          /* strings and data set borrowed */
  const char *save_weights;      /* weights file, or NULL */
  TbCliProgress *progress;
  NnRunner *runner;              /* owned, from run_begin to run_end */
} TbCliRun;

/* Make the run and let Ctrl-C reach it; a Ctrl-C that came before (while
 * the options were read, or the data set loaded) cancels it at once. False
 * when there is no memory for it (said already). */
static bool
run_begin (TbCliRun *run, const char *command)
{
  NnError error;

  nn_error_clear (&error);
  run->request.progress = tb_cli_progress_cb;
  run->request.progress_data = run->progress;
  if (nn_runner_new (&run->request, &run->runner, &error) != NN_OK)
    {
      tb_cli_error ("%s: %s", command, error.message);
      return false;
    }
  current_runner = run->runner;
  if (interrupts > 0)
    nn_runner_cancel (run->runner);
  return true;
}

static void
run_end (TbCliRun *run)
{
  current_runner = NULL;
  nn_runner_free (run->runner);
  run->runner = NULL;
}

static const char *
run_status_word (NnRunStatus status)
{
  switch (status)
    {
    case NN_RUN_COMPLETED: return "completed";
    case NN_RUN_CANCELLED: return "cancelled";
    case NN_RUN_FAILED: return "failed";
    }
  return "?";
}

/* Weights of a cancelled run are still a model; a failed one has none. A
 * run cancelled or failed before its model was built saves nothing. */
static int
run_save_weights (TbCliRun *run, NnStatus status, const char *command)
{
  NnModel *model = nn_runner_model (run->runner);
  NnError error;

  if (run->save_weights == NULL)
    return TB_CLI_EXIT_OK;
  if (status != NN_OK && status != NN_ERROR_CANCELLED)
    {
      if (nn_runner_prepare (run->runner, NULL) == NN_OK)
        tb_cli_error ("%s: not saving weights to %s: the run failed", command, run->save_weights);
      return TB_CLI_EXIT_OK;
    }
  if (model == NULL)
    return TB_CLI_EXIT_OK;
  nn_error_clear (&error);
  if (nn_model_save (model, run->save_weights, &error) != NN_OK)
    {
      tb_cli_error ("%s: --save-weights: cannot save the weights: %s", command, error.message);
      return TB_CLI_EXIT_FAILED;
    }
  if (!run->progress->quiet)
    tb_cli_print ("weights: %s\n", run->save_weights);
  return TB_CLI_EXIT_OK;
}

/* The parts' labels, as the app shows them (NnBreakdownPart order). */
static const char *const breakdown_labels[NN_BREAKDOWN_PARTS] = {
  [NN_BREAKDOWN_GEMM] = "Matrix products",
  [NN_BREAKDOWN_LOOPS] = "Engine loops",
  [NN_BREAKDOWN_JOIN_WAIT] = "Waiting at joins",
  [NN_BREAKDOWN_LAUNCH] = "Launching work",
  [NN_BREAKDOWN_COPY] = "Copies to the GPU",
  [NN_BREAKDOWN_SYNC_WAIT] = "Waiting for the GPU",
  [NN_BREAKDOWN_HOST] = "Host code",
};

/* Where the run's steps spent their time: one line a part, its mean
 * seconds per step and its share of the step. */
static void
print_breakdown (const NnRunResult *r, const char *prefix)
{
  const NnBreakdown *b = &r->breakdown;

  if (!b->measured)
    return;
  tb_cli_print ("%swhere a step's time went (mean of %lld steps, %.6f s each):\n", prefix,
                (long long) b->steps, b->step_seconds);
  for (int p = 0; p < NN_BREAKDOWN_PARTS; p++)
    if (nn_breakdown_part_on ((NnBreakdownPart) p, r->device.kind) || b->part_seconds[p] > 0)
      tb_cli_print ("%s  %-20s %10.6f s %6.1f %%\n", prefix, breakdown_labels[p],
                    b->part_seconds[p],
                    b->step_seconds > 0 ? 100.0 * b->part_seconds[p] / b->step_seconds : 0.0);
  if (b->device_busy_seconds >= 0)
    tb_cli_print ("%s  %-20s %10.6f s %6.1f %% (overlaps the parts above)\n", prefix, "GPU busy",
                  b->device_busy_seconds,
                  b->step_seconds > 0 ? 100.0 * b->device_busy_seconds / b->step_seconds : 0.0);
  if (r->device.kind != NN_DEVICE_CPU)
    tb_cli_print ("%s  %-20s %10.0f bytes a step\n", prefix, "copied to the GPU", b->copy_bytes);
  tb_cli_print ("%s  %-20s %10.3f s in all, apart from the steps\n", prefix, "evaluation",
                b->evaluation_seconds);
}

/* A result its file could not take (a runs folder that filled up or
 * became read-only while the run trained) is written into the system's
 * temporary folder instead, so that a finished run is never lost; says
 * where, or that it could not be saved at all. */
static void
save_elsewhere (TbCliRun *run, const char *command)
{
  const NnRunResult *r = nn_runner_result (run->runner);
  char folder[4096], name[512], path[4096];
  NnError error;

  if (!nn_runner_result_unwritten (run->runner))
    return;
  tb_cli_os_temp_folder (folder, sizeof folder);
  snprintf (name, sizeof name, "trainbench-%s.json", r->run_id);
  nn_error_clear (&error);
  if (nn_path_join (path, sizeof path, folder, name)
      && nn_runner_write_result (run->runner, path, &error) == NN_OK)
    tb_cli_error ("%s: the result is saved in %s instead", command, path);
  else
    tb_cli_error ("%s: the result could not be saved in the temporary folder either: %s",
                  command, error.message[0] ? error.message : "its name is too long");
}

/* Train once; the result file is written whatever happens: the file --out
 * names, or a new one in the runs folder that never replaces another run's.
 * Returns the exit status for it. */
static int
run_one (TbCliRun *run, const char *command)
{
  const NnRunResult *r;
  const char *prefix = run->progress->prefix ? run->progress->prefix : "";
  NnError error, werr;
  NnStatus status;
  int exit_status = TB_CLI_EXIT_OK;

  nn_error_clear (&error);
  status = nn_runner_run (run->runner, &error);
  tb_cli_progress_finish (run->progress);
  r = nn_runner_result (run->runner);
  if (status != NN_OK)
    exit_status = TB_CLI_EXIT_FAILED;
  if (run_save_weights (run, status, command) != TB_CLI_EXIT_OK)
    exit_status = TB_CLI_EXIT_FAILED;

  /* Report how it ended. */
  if (status == NN_OK && !run->progress->quiet && r->epoch_count > 0)
    tb_cli_print ("%scompleted in %.1f s: test loss %.4f, test accuracy %.4f\n", prefix,
                  r->total_seconds, r->epochs[r->epoch_count - 1].test_loss,
                  r->epochs[r->epoch_count - 1].test_accuracy);
  else if (status == NN_OK && !run->progress->quiet)
    tb_cli_print ("%scompleted in %.1f s (%lld steps)\n", prefix, r->total_seconds,
                  (long long) r->step_count);
  else if (status == NN_ERROR_CANCELLED)
    tb_cli_error ("%s: cancelled after %.1f s (%lld steps)", command, r->total_seconds,
                  (long long) r->step_count);
  nn_error_clear (&werr);
  NnStatus wstatus = nn_runner_write_status (run->runner, &werr);
  /* a run refused for its runs folder failed for the reason its result
   * could not be written: said once, below */
  bool same_failure = wstatus != NN_OK && strcmp (error.message, werr.message) == 0;
  if (status != NN_OK && status != NN_ERROR_CANCELLED && !same_failure)
    tb_cli_error ("%s: the run failed: %s", command, error.message[0] ? error.message : r->error);
  if (status == NN_OK && !run->progress->quiet)
    print_breakdown (r, prefix);

  if (wstatus != NN_OK)
    {
      tb_cli_error ("%s: %scannot write the result file: %s", command,
                    run->request.result_path != NULL ? "--out: " : "", werr.message);
      save_elsewhere (run, command);
      exit_status = TB_CLI_EXIT_FAILED;
    }
  else
    tb_cli_print ("%sresult (%s): %s\n", prefix, run_status_word (r->status),
                  nn_runner_result_path (run->runner));
  tb_cli_fflush (stdout);
  return exit_status;
}

/* ---------------------------------------------------------------- shared options */

/* Load the data set a run asked for, truncated for quick runs. On failure
 * returns NULL with the message in `why`. */
static NnDataset *
load_dataset (const char *name, int32_t limit_train, int32_t limit_test, char *why, size_t why_size)
{
  NnDataset *dataset = NULL;
  NnError error;

  nn_error_clear (&error);
  if (nn_dataset_load (name, &dataset, &error) != NN_OK)
    {
      snprintf (why, why_size, "%s", error.message);
      return NULL;
    }
  if (limit_train > 0 || limit_test > 0)
    nn_dataset_truncate (dataset, limit_train, limit_test);
  return dataset;
}

static void
parse_device (const char *command, const char *option, const char *text, NnDeviceKind *kind,
              int32_t *index)
{
  NnError error;
  nn_error_clear (&error);
  if (nn_device_parse (text, kind, index, &error) != NN_OK)
    tb_cli_usage_error (command, "--%s: %s", option, error.message);
}

/* ---------------------------------------------------------------- checks before a run */

/* What the command line asks for is checked before any data set is loaded:
 * the device, the data set as its headers describe it, the model against
 * that data. What is wrong there is a usage error (exit 2, the option named
 * as typed) and no result file is written, as nothing has run. What shows
 * only once a run has started (a data set damaged further in, memory
 * running out) is recorded as a failed run. */

/* The device `typed` (--device's value, or one of --devices') exists here
 * and can be used. The CPU always can; it never loads the CUDA module to
 * find out. */
static void
check_device (const char *cmd, const char *option, const char *typed, NnDeviceKind kind,
              int32_t index)
{
  NnDeviceInfo devices[MAX_DEVICES];
  const char *no_gpu = NULL;  /* why there is no GPU at all */
  int gpus = 0;

  if (kind == NN_DEVICE_CPU)
    return;
  if (typed == NULL)
    typed = "cuda";
  int n = nn_device_list (devices, MAX_DEVICES);
  for (int i = 0; i < n; i++)
    {
      if (devices[i].kind != kind)
        continue;
      if (devices[i].usable)
        gpus++;
      else if (no_gpu == NULL)
        no_gpu = devices[i].reason[0] ? devices[i].reason : "no CUDA device";
      if (devices[i].usable && devices[i].index == index)
        return;
    }
  /* With one GPU usable every CUDA entry is a real device; else the one
   * unusable entry says why there is none. */
  if (gpus == 0)
    tb_cli_usage_error (cmd, "--%s: %s: %s (see " TB_CLI_NAME " devices)", option, typed, no_gpu);
  for (int i = 0; i < n; i++)
    if (devices[i].kind == kind && devices[i].index == index)
      tb_cli_usage_error (cmd, "--%s: %s: not usable: %s (see " TB_CLI_NAME " devices)", option,
                          typed, devices[i].reason[0] ? devices[i].reason : "unknown reason");
  if (gpus == 1)
    tb_cli_usage_error (cmd, "--%s: %s: no such device; this machine has 1 GPU (cuda:0)", option,
                        typed);
  tb_cli_usage_error (cmd, "--%s: %s: no such device; this machine has %d GPUs (cuda:0 to "
                           "cuda:%d)", option, typed, gpus, gpus - 1);
}

/* What the data set a run would load holds, read without its images. */
static void
check_dataset (const char *cmd, const TbCliArgs *args, const char *name, NnDatasetInfo *info)
{
  NnError error;

  nn_error_clear (&error);
  if (nn_dataset_peek (name, info, &error) == NN_OK)
    return;
  if (tb_cli_arg (args, "dataset") != NULL)
    tb_cli_usage_error (cmd, "--%s: %s", tb_cli_arg_name (args, "dataset"), error.message);
  tb_cli_usage_error (cmd, "no data set: %s (give --dataset NAME|PATH; " TB_CLI_NAME
                           " datasets says where it looks)", error.message);
}

/* The model fits the data set: its images, one output per class. `what`
 * names where the model came from: "--model", "--preset cnn". */
static void
check_model (const char *cmd, const char *what, const char *spec_text, const char *dataset_name,
             const NnDatasetInfo *data)
{
  NnSpec *spec = NULL;
  NnError error;

  nn_error_clear (&error);
  if (nn_spec_parse (spec_text, &spec, &error) == NN_OK
      && nn_spec_check_data (spec, data, &error) == NN_OK)
    {
      nn_spec_free (spec);
      return;
    }
  nn_spec_free (spec);
  tb_cli_usage_error (cmd, "%s does not fit %s (%dx%dx%d images, %d classes): %s", what,
                      dataset_name, data->channels, data->height, data->width, data->classes,
                      error.message);
}

/* What a run is about to do: a block of lines for train, one line per run
 * for reproduce (whose data set is shown once). */
static void
print_run_header (const TbCliRun *run, const NnDeviceInfo *device, const char *prefix)
{
  const NnTrainConfig *c = &run->request.config;
  const NnDataset *dataset = nn_runner_dataset (run->runner);
  char label[32], where[1200], training[256];

  tb_cli_device_label (c->device.kind, c->device.index, label, sizeof label);
  if (!device->usable)
    snprintf (where, sizeof where, "%s (not usable: %s)", label,
              device->reason[0] ? device->reason : "unknown reason");
  else if (c->device.kind == NN_DEVICE_CPU && c->device.threads > 0)
    snprintf (where, sizeof where, "%s (%s, %d threads)", label, device->name, c->device.threads);
  else if (c->device.kind == NN_DEVICE_CPU)
    snprintf (where, sizeof where, "%s (%s, all cores)", label, device->name);
  else
    snprintf (where, sizeof where, "%s (%s, tf32 %s)", label, device->name,
              c->device.tf32 ? "on" : "off");
  snprintf (training, sizeof training, "%d epoch%s, batch %d, %s lr %g, seed %llu", c->epochs,
            c->epochs == 1 ? "" : "s", c->batch_size, nn_optimizer_name (c->optimizer.kind),
            (double) c->optimizer.lr, (unsigned long long) c->seed);

  if (prefix != NULL)
    {
      tb_cli_print ("\n%s%s on %s: %s", prefix, c->model_name ? c->model_name : c->spec_text, where,
                    training);
      if (c->max_steps > 0)
        tb_cli_print (", at most %d steps", c->max_steps);
      tb_cli_print ("\n");
      tb_cli_fflush (stdout);
      return;
    }
  tb_cli_print ("model    %s\n", c->model_name ? c->model_name : c->spec_text);
  if (c->model_name != NULL)
    tb_cli_print ("spec     %s\n", c->spec_text);
  tb_cli_print ("device   %s\n", where);
  if (dataset != NULL)
    tb_cli_print ("data     %s: %d train, %d test samples (%s)\n", dataset->name,
                  dataset->train.count, dataset->test.count, dataset->path);
  tb_cli_print ("training %s, %s\n", training, nn_loss_name (c->loss));
  /* The OS and what emulates it: a run under wine is no Windows figure. */
  NnSystemInfo sys;
  char os[512];
  nn_system_info (&sys);
  nn_system_os_label (&sys, os, sizeof os);
  tb_cli_print ("system   %s\n", os);
  /* A BLAS that runs slow kernels changes every CPU figure: say so up front. */
  if (c->device.kind == NN_DEVICE_CPU && sys.blas_note[0] != '\0')
    tb_cli_print ("note     %s\n", sys.blas_note);
  if (c->max_steps > 0)
    tb_cli_print ("         stops after %d steps\n", c->max_steps);
  if (strcmp (nn_conditions_name (&c->conditions), "default") != 0)
    {
      char conditions[256];
      tb_cli_format_conditions (&c->conditions, conditions, sizeof conditions);
      tb_cli_print ("run      %s\n", conditions);
    }
  tb_cli_fflush (stdout);
}

/* ---------------------------------------------------------------- conditions */

NnConditions
tb_cli_parse_conditions (const TbCliArgs *args, const char *command)
{
  NnConditions c = nn_conditions_default ();
  const char *value;
  NnError error;

  if ((value = tb_cli_arg (args, "conditions")) != NULL)
    {
      if (strcmp (value, "article") == 0)
        c = nn_conditions_article ();
      else if (strcmp (value, "default") != 0)
        tb_cli_usage_error (command, "--conditions: '%s' is not default or article", value);
    }
  if ((value = tb_cli_arg (args, "data-on")) != NULL)
    {
      nn_error_clear (&error);
      if (nn_data_on_from_name (value, &c.data, &error) != NN_OK)
        tb_cli_usage_error (command, "--data-on: '%s' is not device, pinned or pageable", value);
    }
  if ((value = tb_cli_arg (args, "graph")) != NULL)
    c.graph = tb_cli_parse_on_off (command, "graph", value);
  if ((value = tb_cli_arg (args, "loss-every-step")) != NULL)
    c.loss_every_step = tb_cli_parse_on_off (command, "loss-every-step", value);
  if ((value = tb_cli_arg (args, "fusion")) != NULL)
    c.fused = tb_cli_parse_on_off (command, "fusion", value);
  return c;
}

void
tb_cli_format_conditions (const NnConditions *c, char *out, size_t size)
{
  const char *name = nn_conditions_name (c);

  if (strcmp (name, "default") == 0)
    {
      snprintf (out, size, "default conditions");
      return;
    }
  snprintf (out, size, "%s conditions (data %s, graph %s, loss %s, fusion %s)", name,
            nn_data_on_name (c->data), c->graph ? "on" : "off",
            c->loss_every_step ? "every step" : "every few steps", c->fused ? "on" : "off");
}

/* ---------------------------------------------------------------- train */


/* The run that train's options ask for: the preset's settings or the
 * model's spec, then each option over them. Usage errors exit 2. */
static void
train_request_from_args (const TbCliArgs *args, const char *cmd, NnRunRequest *request)
{
  NnTrainConfig *c = &request->config;
  const char *preset_name, *model_text, *value;
  const NnPreset *preset = NULL;
  NnError error;

  preset_name = tb_cli_arg (args, "preset");
  model_text = tb_cli_arg (args, "model");
  if (preset_name != NULL && model_text != NULL)
    tb_cli_usage_error (cmd, "give --preset or --model, not both");
  if (preset_name == NULL && model_text == NULL)
    tb_cli_usage_error (cmd, "which model? Give --preset NAME (mlp-small, mlp-wide, cnn) "
                             "or --model SPEC");

  /* The preset's values are the defaults; options below override them. */
  if (preset_name != NULL)
    {
      preset = tb_cli_find_preset (cmd, "preset", preset_name);
      nn_train_config_use_preset (c, preset); /* options given later override it */
    }
  else
    {
      NnSpec *spec = NULL;
      nn_error_clear (&error);
      if (nn_spec_parse (model_text, &spec, &error) != NN_OK)
        tb_cli_usage_error (cmd, "--model: %s", error.message);
      nn_spec_free (spec);
      c->spec_text = model_text;
      c->model_name = NULL;
    }

  if ((value = tb_cli_arg (args, "optimizer")) != NULL)
    {
      NnOptimizerKind kind;
      nn_error_clear (&error);
      if (nn_optimizer_from_name (value, &kind, &error) != NN_OK)
        tb_cli_usage_error (cmd, "--optimizer: %s", error.message);
      /* Another optimizer starts from its own Keras defaults, lr included. */
      if (kind != c->optimizer.kind)
        c->optimizer = nn_optimizer_defaults (kind);
    }
  if ((value = tb_cli_arg (args, "lr")) != NULL)
    c->optimizer.lr = tb_cli_parse_float (cmd, "lr", value, 1e6);
  nn_error_clear (&error);
  if (nn_optimizer_validate (&c->optimizer, &error) != NN_OK)
    tb_cli_usage_error (cmd, "%s: %s", tb_cli_arg (args, "lr") != NULL ? "--lr" : "--optimizer",
                        error.message);
  if ((value = tb_cli_arg (args, "loss")) != NULL)
    {
      nn_error_clear (&error);
      if (nn_loss_from_name (value, &c->loss, &error) != NN_OK)
        tb_cli_usage_error (cmd, "--loss: %s", error.message);
    }
  if ((value = tb_cli_arg (args, "epochs")) != NULL)
    c->epochs = tb_cli_parse_int (cmd, "epochs", value, 1, NN_EPOCHS_MAX);
  if ((value = tb_cli_arg (args, "batch-size")) != NULL)
    c->batch_size = tb_cli_parse_int (cmd, "batch-size", value, 1, NN_BATCH_SIZE_MAX);
  if ((value = tb_cli_arg (args, "seed")) != NULL)
    c->seed = tb_cli_parse_u64 (cmd, "seed", value);
  if ((value = tb_cli_arg (args, "device")) != NULL)
    parse_device (cmd, "device", value, &c->device.kind, &c->device.index);
  if ((value = tb_cli_arg (args, "threads")) != NULL)
    c->device.threads = tb_cli_parse_int (cmd, "threads", value, 0, NN_THREADS_MAX);
  if ((value = tb_cli_arg (args, "tf32")) != NULL)
    c->device.tf32 = tb_cli_parse_on_off (cmd, "tf32", value);
  if ((value = tb_cli_arg (args, "max-steps")) != NULL)
    c->max_steps = tb_cli_parse_int (cmd, "max-steps", value, 0, INT32_MAX);
  c->conditions = tb_cli_parse_conditions (args, cmd);
  if ((value = tb_cli_arg (args, "limit-train")) != NULL)
    request->limit_train = tb_cli_parse_int (cmd, "limit-train", value, 0, INT32_MAX);
  if ((value = tb_cli_arg (args, "limit-test")) != NULL)
    request->limit_test = tb_cli_parse_int (cmd, "limit-test", value, 0, INT32_MAX);
  if ((value = tb_cli_arg (args, "breakdown")) != NULL)
    c->breakdown = tb_cli_parse_on_off (cmd, "breakdown", value);

  request->result_path = tb_cli_arg (args, "out");
  request->dataset_name = tb_cli_arg (args, "dataset");
  if (request->dataset_name == NULL)
    request->dataset_name = tb_cli_default_dataset ();
}

/* The runs folder takes the result: a run that would train and then have
 * nowhere to put it is refused before anything loads (the runner checks
 * the same, nn_runner_check_folder). */
static void
check_runs_folder (const char *cmd, const NnRunRequest *request)
{
  NnError error;

  nn_error_clear (&error);
  if (nn_runner_check_folder (request, &error) != NN_OK)
    tb_cli_usage_error (cmd, "the result would have nowhere to go: %s (--out FILE saves it "
                             "elsewhere)", error.message);
}

/* What train's run would meet, checked before it loads anything. */
static void
train_check (const TbCliArgs *args, const char *cmd, const NnRunRequest *request)
{
  const NnTrainConfig *c = &request->config;
  const char *preset_name = tb_cli_arg (args, "preset");
  NnDatasetInfo data;
  char what[128];

  tb_cli_check_memory_limit (cmd);
  check_device (cmd, "device", tb_cli_arg (args, "device"), c->device.kind, c->device.index);
  check_dataset (cmd, args, request->dataset_name, &data);
  if (preset_name != NULL)
    snprintf (what, sizeof what, "--preset %s", preset_name);
  else
    snprintf (what, sizeof what, "--model");
  check_model (cmd, what, c->spec_text, request->dataset_name, &data);
  check_runs_folder (cmd, request);
}

int
tb_cli_cmd_train (int argc, char **argv)
{
  static const char cmd[] = "train";
  TbCliArgs args;
  TbCliRun run;
  TbCliProgress progress;
  int status = TB_CLI_EXIT_FAILED;

  tb_cli_args_parse (&args, cmd, tb_cli_train_options, argc, argv);
  memset (&run, 0, sizeof run);
  nn_run_request_init (&run.request);
  train_request_from_args (&args, cmd, &run.request);
  train_check (&args, cmd, &run.request);
  run.save_weights = tb_cli_arg (&args, "save-weights");
  tb_cli_progress_init (&progress, tb_cli_flag (&args, "quiet"));
  run.progress = &progress;

  /* From here on a Ctrl-C is recorded as a cancelled run. */
  tb_cli_os_interrupt_install (interrupt_cb);
  if (run_begin (&run, cmd))
    {
      /* the data set first, so the header can say what it holds */
      nn_runner_prepare (run.runner, NULL);
      if (!progress.quiet)
        {
          NnDeviceInfo device;
          const NnTrainConfig *c = &run.request.config;
          tb_cli_device_lookup (c->device.kind, c->device.index, &device);
          print_run_header (&run, &device, NULL);
        }
      status = run_one (&run, cmd);
      run_end (&run);
    }
  tb_cli_os_interrupt_remove ();
  return status;
}

/* ---------------------------------------------------------------- evaluate */


/* How many values a model puts out on `input`, into *outputs. */
static NnStatus
spec_outputs (const NnSpec *spec, NnInputShape input, int32_t *outputs, NnError *error)
{
  NnLayerInfo *infos = calloc ((size_t) (spec->count > 0 ? spec->count : 1), sizeof *infos);
  NnStatus status;

  *outputs = 0;
  if (infos == NULL)
    return NN_ERROR_NO_MEMORY;
  status = nn_spec_infer (spec, input, infos, NULL, error);
  if (status == NN_OK)
    {
      const NnLayerInfo *last = &infos[spec->count - 1];
      int64_t size = last->dims[0];
      for (int32_t d = 1; d < last->rank && d < 3; d++)
        size *= last->dims[d];
      *outputs = size > INT32_MAX ? INT32_MAX : (int32_t) size;
    }
  free (infos);
  return status;
}

int
tb_cli_cmd_evaluate (int argc, char **argv)
{
  static const char cmd[] = "evaluate";
  TbCliArgs args;
  const char *weights, *value, *dataset_name;
  NnDeviceOptions device = { 0 };
  NnLossKind loss = NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY;
  int32_t batch_size = 256, limit_test = 0;
  NnError error;
  char *spec_text = NULL;
  NnInputShape input;
  NnSpec *spec = NULL;
  NnDataset *dataset = NULL;
  NnModel *model = NULL;
  int status = TB_CLI_EXIT_FAILED;
  float test_loss = 0, test_accuracy = 0;

  tb_cli_args_parse (&args, cmd, tb_cli_evaluate_options, argc, argv);
  weights = tb_cli_arg (&args, "weights");
  if (weights == NULL)
    tb_cli_usage_error (cmd, "which weights? Give --weights FILE (saved by train "
                             "--save-weights)");
  if ((value = tb_cli_arg (&args, "device")) != NULL)
    parse_device (cmd, "device", value, &device.kind, &device.index);
  if ((value = tb_cli_arg (&args, "threads")) != NULL)
    device.threads = tb_cli_parse_int (cmd, "threads", value, 0, NN_THREADS_MAX);
  if ((value = tb_cli_arg (&args, "tf32")) != NULL)
    device.tf32 = tb_cli_parse_on_off (cmd, "tf32", value);
  if ((value = tb_cli_arg (&args, "batch-size")) != NULL)
    batch_size = tb_cli_parse_int (cmd, "batch-size", value, 1, NN_BATCH_SIZE_MAX);
  if ((value = tb_cli_arg (&args, "limit-test")) != NULL)
    limit_test = tb_cli_parse_int (cmd, "limit-test", value, 0, INT32_MAX);
  if ((value = tb_cli_arg (&args, "loss")) != NULL)
    {
      nn_error_clear (&error);
      if (nn_loss_from_name (value, &loss, &error) != NN_OK)
        tb_cli_usage_error (cmd, "--loss: %s", error.message);
    }
  dataset_name = tb_cli_arg (&args, "dataset");
  if (dataset_name == NULL)
    dataset_name = tb_cli_default_dataset ();

  /* Checked before the data set loads: the weights file's model, the
   * device, the data set's shape and classes against that model. */
  nn_error_clear (&error);
  if (nn_weights_file_peek (weights, &spec_text, &input, &error) != NN_OK)
    tb_cli_usage_error (cmd, "--weights: %s", error.message);
  if (nn_spec_parse (spec_text, &spec, &error) != NN_OK)
    tb_cli_usage_error (cmd, "--weights: %s: the model in it does not parse: %s", weights,
                        error.message);
  tb_cli_check_memory_limit (cmd);
  check_device (cmd, "device", tb_cli_arg (&args, "device"), device.kind, device.index);
  NnDatasetInfo data;
  check_dataset (cmd, &args, dataset_name, &data);
  if (data.channels != input.channels || data.height != input.height
      || data.width != input.width)
    tb_cli_usage_error (cmd, "--weights: %s was trained on %dx%dx%d images but %s has %dx%dx%d",
                        weights, input.channels, input.height, input.width, dataset_name,
                        data.channels, data.height, data.width);
  int32_t outputs;
  if (spec_outputs (spec, input, &outputs, &error) != NN_OK)
    tb_cli_usage_error (cmd, "--weights: %s: the model in it does not fit its %dx%dx%d input: %s",
                        weights, input.channels, input.height, input.width, error.message);
  if (outputs < data.classes)
    tb_cli_usage_error (cmd, "--weights: the model in %s has %d outputs but %s has %d classes",
                        weights, outputs, dataset_name, data.classes);

  char why[NN_ERROR_MESSAGE_MAX];
  dataset = load_dataset (dataset_name, 0, limit_test, why, sizeof why);
  if (dataset == NULL)
    {
      tb_cli_error ("evaluate: %s", why);
      goto out;
    }
  /* Again on what was loaded: the files may have changed since, and the
   * model must hold every label it is evaluated on. */
  if (dataset->test.channels != input.channels || dataset->test.height != input.height
      || dataset->test.width != input.width)
    {
      tb_cli_error ("evaluate: %s was trained on %dx%dx%d images but %s has %dx%dx%d", weights,
                    input.channels, input.height, input.width, dataset->name,
                    dataset->test.channels, dataset->test.height, dataset->test.width);
      goto out;
    }
  if (batch_size > dataset->test.count && dataset->test.count > 0)
    batch_size = dataset->test.count;
  if (nn_model_new (spec, input, batch_size, &device, 0, &model, &error) != NN_OK
      || nn_model_load (model, weights, &error) != NN_OK)
    {
      tb_cli_error ("evaluate: %s", error.message);
      goto out;
    }
  if (nn_model_output_size (model) < dataset->classes)
    {
      tb_cli_error ("evaluate: the model has %d outputs but %s has %d classes",
                    nn_model_output_size (model), dataset->name, dataset->classes);
      goto out;
    }
  double start = tb_cli_now ();
  if (nn_model_evaluate (model, &dataset->test, loss, &test_loss, &test_accuracy, &error) != NN_OK)
    {
      tb_cli_error ("evaluate: %s", error.message);
      goto out;
    }
  double seconds = tb_cli_now () - start;

  tb_cli_print ("model          %s\n", spec_text);
  tb_cli_print ("data           %s: %d test samples (%s)\n", dataset->name, dataset->test.count,
                dataset->path);
  tb_cli_print ("test loss      %.4f\n", test_loss);
  tb_cli_print ("test accuracy  %.4f\n", test_accuracy);
  tb_cli_print ("time           %.2f s (%.0f samples/s)\n", seconds,
                seconds > 0 ? dataset->test.count / seconds : 0.0);
  status = TB_CLI_EXIT_OK;

out:
  nn_model_free (model);
  nn_dataset_free (dataset);
  nn_spec_free (spec);
  free (spec_text);
  return status;
}

/* ---------------------------------------------------------------- reproduce */


typedef struct
{
  const NnPreset *preset;
  NnDeviceKind kind;
  int32_t index;
  NnRunStatus status;
  bool ran;
  double seconds_per_epoch;   /* nn_run_result_seconds_per_epoch; < 0 when no epoch finished */
  float test_accuracy;
  char error[NN_ERROR_MESSAGE_MAX];
  char result_path[4096 + 128];
} TbCliTableRow;

/* Split "a,b,c" into at most `max` words (in `buf`, which is modified). */
static int
split_list (char *buf, char **words, int max)
{
  int n = 0;
  char *p = buf;

  while (n < max)
    {
      char *comma = strchr (p, ',');
      if (comma != NULL)
        *comma = '\0';
      words[n++] = p;
      if (comma == NULL)
        break;
      p = comma + 1;
    }
  return n;
}

static void
print_table (const TbCliTableRow *rows, int count)
{
  /* the median of the epochs' times, as the app and its exports give it */
  tb_cli_print ("\n%-10s  %-7s  %14s  %9s  %11s\n", "preset", "device", "median s/epoch",
                "test acc", "GPU vs CPU");
  tb_cli_print ("%-10s  %-7s  %14s  %9s  %11s\n", "----------", "-------", "--------------",
                "---------", "-----------");
  for (int i = 0; i < count; i++)
    {
      const TbCliTableRow *r = &rows[i];
      char label[32], speed[32] = "";

      tb_cli_device_label (r->kind, r->index, label, sizeof label);
      if (r->status != NN_RUN_COMPLETED || !r->ran)
        {
          tb_cli_print ("%-10s  %-7s  %s: %s\n", r->preset->name, label,
                        !r->ran                         ? "not run"
                        : r->status == NN_RUN_CANCELLED ? "cancelled"
                                                        : "failed",
                        r->error[0] ? r->error : "-");
          continue;
        }
      /* The speed-up of a GPU row against the CPU row of the same preset. */
      if (r->kind == NN_DEVICE_CUDA && r->seconds_per_epoch > 0)
        for (int j = 0; j < count; j++)
          if (rows[j].preset == r->preset && rows[j].kind == NN_DEVICE_CPU && rows[j].ran
              && rows[j].status == NN_RUN_COMPLETED && rows[j].seconds_per_epoch > 0)
            snprintf (speed, sizeof speed, "%.1fx", rows[j].seconds_per_epoch / r->seconds_per_epoch);
      char spe[32], acc[32];
      /* short epochs (a small data set, a fast GPU) keep three digits
       * rather than print as 0.00 */
      if (r->seconds_per_epoch >= 1.0)
        snprintf (spe, sizeof spe, "%.2f", r->seconds_per_epoch);
      else if (r->seconds_per_epoch >= 0)
        snprintf (spe, sizeof spe, "%.3g", r->seconds_per_epoch);
      else
        snprintf (spe, sizeof spe, "-");
      if (r->seconds_per_epoch >= 0)
        snprintf (acc, sizeof acc, "%.4f", r->test_accuracy);
      else
        snprintf (acc, sizeof acc, "-");
      if (speed[0] != '\0')
        tb_cli_print ("%-10s  %-7s  %14s  %9s  %11s\n", r->preset->name, label, spe, acc, speed);
      else
        tb_cli_print ("%-10s  %-7s  %14s  %9s\n", r->preset->name, label, spe, acc);
    }
}

#define MAX_RUNS (MAX_PRESETS * MAX_DEVICES)

/* What reproduce's options ask for: which presets on which devices, the
 * runs the engine makes of them (nn_reproduce_runs), and the settings
 * every run shares. */
typedef struct
{
  const NnPreset *presets[MAX_PRESETS]; /* --presets; none given: every preset */
  int preset_count;
  NnDeviceInfo devices[MAX_DEVICES];   /* --devices' (checked usable), or nn_device_list's */
  char device_texts[MAX_DEVICES][64];  /* as --devices gave them; "" for the default list */
  int device_count;
  NnReproduceRun runs[MAX_RUNS];
  int run_count;
  int32_t epochs;         /* 0: each preset's own */
  int32_t threads;
  int32_t limit_train;
  int32_t limit_test;
  int32_t max_steps;
  NnConditions conditions;
  uint64_t seed;
  bool seed_given;
  const char *dataset_name;
  const char *out_dir;    /* borrowed: the option's text or runs_dir */
  char runs_dir[4096];
} TbCliReproduce;

/* --presets a,b (each a preset's name); without it, none here and every
 * preset in the runs. */
static void
reproduce_presets_from_args (const TbCliArgs *args, const char *cmd, TbCliReproduce *plan)
{
  const char *value = tb_cli_arg (args, "presets");
  char buf[1024];
  char *words[64];

  if (value == NULL)
    return;
  snprintf (buf, sizeof buf, "%s", value);
  int n = split_list (buf, words, 64);
  for (int i = 0; i < n; i++)
    {
      if (words[i][0] == '\0')
        tb_cli_usage_error (cmd, "--presets: '%s' has an empty name", value);
      if (plan->preset_count == MAX_PRESETS)
        tb_cli_usage_error (cmd, "--presets: at most %d presets", MAX_PRESETS);
      plan->presets[plan->preset_count++] = tb_cli_find_preset (cmd, "presets", words[i]);
    }
}

/* --devices cpu,cuda:0, or this machine's devices (the runs take the
 * usable ones). */
static void
reproduce_devices_from_args (const TbCliArgs *args, const char *cmd, TbCliReproduce *plan)
{
  const char *value = tb_cli_arg (args, "devices");
  char buf[1024];
  char *words[64];

  if (value == NULL)
    {
      plan->device_count = nn_device_list (plan->devices, MAX_DEVICES);
      return;
    }
  snprintf (buf, sizeof buf, "%s", value);
  int n = split_list (buf, words, 64);
  for (int i = 0; i < n; i++)
    {
      if (words[i][0] == '\0')
        tb_cli_usage_error (cmd, "--devices: '%s' has an empty name", value);
      if (plan->device_count == MAX_DEVICES)
        tb_cli_usage_error (cmd, "--devices: at most %d devices", MAX_DEVICES);
      parse_device (cmd, "devices", words[i], &plan->devices[plan->device_count].kind,
                    &plan->devices[plan->device_count].index);
      /* reproduce_check refuses one that is not usable */
      plan->devices[plan->device_count].usable = true;
      snprintf (plan->device_texts[plan->device_count], sizeof plan->device_texts[0], "%s",
                words[i]);
      plan->device_count++;
    }
}

static void
reproduce_from_args (const TbCliArgs *args, const char *cmd, TbCliReproduce *plan)
{
  const char *value;

  memset (plan, 0, sizeof *plan);
  plan->seed = 42;
  reproduce_presets_from_args (args, cmd, plan);
  reproduce_devices_from_args (args, cmd, plan);
  if ((value = tb_cli_arg (args, "epochs")) != NULL)
    plan->epochs = tb_cli_parse_int (cmd, "epochs", value, 1, NN_EPOCHS_MAX);
  if ((value = tb_cli_arg (args, "threads")) != NULL)
    plan->threads = tb_cli_parse_int (cmd, "threads", value, 0, NN_THREADS_MAX);
  if ((value = tb_cli_arg (args, "seed")) != NULL)
    {
      plan->seed = tb_cli_parse_u64 (cmd, "seed", value);
      plan->seed_given = true;
    }
  if ((value = tb_cli_arg (args, "limit-train")) != NULL)
    plan->limit_train = tb_cli_parse_int (cmd, "limit-train", value, 0, INT32_MAX);
  if ((value = tb_cli_arg (args, "limit-test")) != NULL)
    plan->limit_test = tb_cli_parse_int (cmd, "limit-test", value, 0, INT32_MAX);
  if ((value = tb_cli_arg (args, "max-steps")) != NULL)
    plan->max_steps = tb_cli_parse_int (cmd, "max-steps", value, 0, INT32_MAX);
  plan->conditions = tb_cli_parse_conditions (args, cmd);
  plan->dataset_name = tb_cli_arg (args, "dataset");
  if (plan->dataset_name == NULL)
    plan->dataset_name = tb_cli_default_dataset ();
  plan->out_dir = tb_cli_arg (args, "out-dir");
  if (plan->out_dir == NULL)
    {
      nn_runs_dir (plan->runs_dir, sizeof plan->runs_dir);
      plan->out_dir = plan->runs_dir;
    }
}

/* The runs' presets, each once, in their order: the presets count of the
 * header, and what reproduce_check checks against the data set. */
static int
reproduce_presets (const TbCliReproduce *plan, const NnPreset **out)
{
  int n = 0;

  for (int r = 0; r < plan->run_count; r++)
    {
      bool seen = false;
      for (int i = 0; i < n && !seen; i++)
        seen = out[i] == plan->runs[r].preset;
      if (!seen && n < MAX_PRESETS)
        out[n++] = plan->runs[r].preset;
    }
  return n;
}

/* What reproduce's runs would meet, checked before the data set loads:
 * each device of --devices, the data set, each preset against it. Then
 * the runs: each preset on each usable device. */
static void
reproduce_check (const TbCliArgs *args, const char *cmd, TbCliReproduce *plan)
{
  const NnPreset *presets[MAX_PRESETS];
  NnDatasetInfo data;
  char what[128];
  int n;

  tb_cli_check_memory_limit (cmd);
  for (int d = 0; d < plan->device_count; d++)
    if (plan->device_texts[d][0] != '\0')
      check_device (cmd, "devices", plan->device_texts[d], plan->devices[d].kind,
                    plan->devices[d].index);
  plan->run_count = nn_reproduce_runs (plan->preset_count > 0 ? plan->presets : NULL,
                                       plan->preset_count, plan->devices, plan->device_count,
                                       plan->runs, MAX_RUNS);
  check_dataset (cmd, args, plan->dataset_name, &data);
  n = reproduce_presets (plan, presets);
  for (int p = 0; p < n; p++)
    {
      if (tb_cli_arg (args, "presets") != NULL)
        snprintf (what, sizeof what, "--presets: %s", presets[p]->name);
      else
        snprintf (what, sizeof what, "preset %s (one of all; --presets chooses)",
                  presets[p]->name);
      check_model (cmd, what, presets[p]->spec, plan->dataset_name, &data);
    }
}

static void
print_reproduce_header (const TbCliReproduce *plan, const NnDataset *dataset)
{
  const NnPreset *presets[MAX_PRESETS];
  int n_presets = reproduce_presets (plan, presets);
  int n_devices = n_presets > 0 ? plan->run_count / n_presets : 0;
  NnSystemInfo sys;
  char os[512];

  tb_cli_print ("reproduce: %d preset%s on %d device%s, results in %s\n", n_presets,
                n_presets == 1 ? "" : "s", n_devices, n_devices == 1 ? "" : "s", plan->out_dir);
  nn_system_info (&sys);
  nn_system_os_label (&sys, os, sizeof os);
  tb_cli_print ("system: %s\n", os);
  if (dataset != NULL)
    tb_cli_print ("data: %s: %d train, %d test samples (%s)\n", dataset->name, dataset->train.count,
                  dataset->test.count, dataset->path);
  if (strcmp (nn_conditions_name (&plan->conditions), "default") != 0)
    {
      char conditions[256];
      tb_cli_format_conditions (&plan->conditions, conditions, sizeof conditions);
      tb_cli_print ("runs: %s\n", conditions);
    }
}

/* Run k of the queue, its line of the table filled in from its result.
 * `dataset` is the queue's, read once (NULL when it could not be: each run
 * then records why). Returns the exit status for it. */
static int
reproduce_one (const TbCliReproduce *plan, int k, const NnDataset *dataset,
               TbCliProgress *progress, TbCliTableRow *row)
{
  static const char cmd[] = "reproduce";
  const NnReproduceRun *one = &plan->runs[k];
  TbCliRun run;
  NnTrainConfig *c = &run.request.config;
  char prefix[32];
  int exit_status;

  row->preset = one->preset;
  row->kind = one->kind;
  row->index = one->index;
  row->seconds_per_epoch = -1;
  if (interrupts > 0)
    {
      snprintf (row->error, sizeof row->error, "skipped after Ctrl-C");
      return TB_CLI_EXIT_FAILED;
    }

  memset (&run, 0, sizeof run);
  nn_run_request_init (&run.request);
  nn_train_config_use_preset (c, one->preset);
  if (plan->epochs > 0)
    c->epochs = plan->epochs;
  if (plan->seed_given)
    c->seed = plan->seed;
  c->device.kind = one->kind;
  c->device.index = one->index;
  c->device.threads = plan->threads;
  c->max_steps = plan->max_steps;
  c->conditions = plan->conditions;
  run.request.dataset = dataset;
  run.request.dataset_name = plan->dataset_name;
  run.request.limit_train = plan->limit_train;
  run.request.limit_test = plan->limit_test;
  run.request.result_folder = plan->out_dir;
  run.progress = progress;
  if (!run_begin (&run, cmd))
    return TB_CLI_EXIT_FAILED;
  snprintf (prefix, sizeof prefix, "[%d/%d] ", k + 1, plan->run_count);
  progress->prefix = prefix;

  if (!progress->quiet)
    {
      NnDeviceInfo device;
      tb_cli_device_lookup (c->device.kind, c->device.index, &device);
      print_run_header (&run, &device, prefix);
    }
  exit_status = run_one (&run, cmd);

  const NnRunResult *r = nn_runner_result (run.runner);
  const char *path = nn_runner_result_path (run.runner);
  row->ran = true;
  row->status = r->status;
  snprintf (row->error, sizeof row->error, "%s", r->error);
  snprintf (row->result_path, sizeof row->result_path, "%s", path ? path : "");
  if (r->epoch_count > 0)
    {
      double median = nn_run_result_seconds_per_epoch (r);

      row->seconds_per_epoch = isfinite (median) ? median : -1;
      row->test_accuracy = r->epochs[r->epoch_count - 1].test_accuracy;
    }
  run_end (&run);
  progress->prefix = NULL;
  return exit_status;
}

int
tb_cli_cmd_reproduce (int argc, char **argv)
{
  static const char cmd[] = "reproduce";
  TbCliArgs args;
  TbCliProgress progress;
  TbCliReproduce plan;
  NnError derr;
  char why[NN_ERROR_MESSAGE_MAX];

  tb_cli_args_parse (&args, cmd, tb_cli_reproduce_options, argc, argv);
  reproduce_from_args (&args, cmd, &plan);
  reproduce_check (&args, cmd, &plan);
  nn_error_clear (&derr);
  if (nn_folder_create (plan.out_dir, &derr) != NN_OK)
    {
      if (tb_cli_arg (&args, "out-dir") != NULL)
        tb_cli_usage_error (cmd, "--out-dir: cannot create the results folder: %s",
                            derr.message);
      tb_cli_error ("reproduce: cannot create the results folder: %s", derr.message);
      return TB_CLI_EXIT_FAILED;
    }

  tb_cli_os_interrupt_install (interrupt_cb);
  /* Read once for the whole queue. */
  NnDataset *dataset = load_dataset (plan.dataset_name, plan.limit_train, plan.limit_test, why,
                                     sizeof why);
  if (dataset == NULL)
    tb_cli_error ("reproduce: %s", why);

  tb_cli_progress_init (&progress, tb_cli_flag (&args, "quiet"));
  int total = plan.run_count;
  TbCliTableRow *rows = calloc ((size_t) (total > 0 ? total : 1), sizeof *rows);
  if (rows == NULL)
    {
      tb_cli_error ("reproduce: out of memory");
      nn_dataset_free (dataset);
      return TB_CLI_EXIT_FAILED;
    }
  if (!progress.quiet)
    print_reproduce_header (&plan, dataset);

  int exit_status = TB_CLI_EXIT_OK;
  for (int k = 0; k < total; k++)
    if (reproduce_one (&plan, k, dataset, &progress, &rows[k]) != TB_CLI_EXIT_OK)
      exit_status = TB_CLI_EXIT_FAILED;
  tb_cli_os_interrupt_remove ();

  if (total == 0)
    {
      tb_cli_error ("reproduce: no usable device to run on");
      exit_status = TB_CLI_EXIT_FAILED;
    }
  else
    {
      print_table (rows, total);
      if (plan.max_steps > 0 || plan.limit_train > 0)
        tb_cli_print ("(epochs shortened by --max-steps or --limit-train: the times are not "
                      "those of full epochs)\n");
    }
  if (!progress.quiet)
    tb_cli_print ("\nresult files: %s\n", plan.out_dir);

  free (rows);
  nn_dataset_free (dataset);
  return exit_status;
}
