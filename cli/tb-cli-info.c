/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-info.c: the commands that only look: summary (a model's layers and
 * parameter counts), devices, datasets and sysinfo, plus the small lookups
 * the run commands share with them.
 */

#define _POSIX_C_SOURCE 200809L

#include "tb-cli-common.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 32

/* ---------------------------------------------------------------- shared lookups */

const char *
tb_cli_default_dataset (void)
{
  NnDatasetLocation known[8];
  int n = nn_dataset_list_known (known, 8);

  for (int i = 0; i < n; i++)
    if (strcmp (known[i].name, "mnist") == 0 && known[i].available)
      return "mnist";
  return "fashion-mnist";
}

const NnPreset *
tb_cli_find_preset (const char *command, const char *option, const char *name)
{
  const NnPreset *preset = nn_preset_find (name);
  const char *names[16];
  char list[256] = "";
  int count = 0;
  const NnPreset *all;

  if (preset != NULL)
    return preset;
  all = nn_presets (&count);
  for (int i = 0; i < count && i < 15; i++)
    {
      names[i] = all[i].name;
      if (i > 0)
        strncat (list, ", ", sizeof list - strlen (list) - 1);
      strncat (list, all[i].name, sizeof list - strlen (list) - 1);
    }
  names[count < 15 ? count : 15] = NULL;
  const char *guess = tb_cli_suggest (name, names);
  if (guess != NULL)
    tb_cli_usage_error (command, "--%s: unknown preset '%s' (did you mean %s?)", option, name,
                        guess);
  tb_cli_usage_error (command, "--%s: unknown preset '%s' (presets: %s)", option, name, list);
}

void
tb_cli_check_memory_limit (const char *command)
{
  uint64_t bytes;
  NnError error;

  nn_error_clear (&error);
  if (nn_system_memory_limit (&bytes, &error) != NN_OK)
    tb_cli_usage_error (command, "%s", error.message);
}

void
tb_cli_device_label (NnDeviceKind kind, int32_t index, char *out, size_t size)
{
  if (kind == NN_DEVICE_CPU)
    snprintf (out, size, "cpu");
  else
    snprintf (out, size, "cuda:%d", index);
}

void
tb_cli_device_lookup (NnDeviceKind kind, int32_t index, NnDeviceInfo *out)
{
  NnDeviceInfo devices[MAX_DEVICES];

  /* A CPU run never loads the CUDA module, not even to list devices. */
  if (kind == NN_DEVICE_CPU)
    {
      nn_device_cpu (out);
      return;
    }
  int n = nn_device_list (devices, MAX_DEVICES);

  for (int i = 0; i < n; i++)
    if (devices[i].kind == kind && devices[i].index == index)
      {
        *out = devices[i];
        return;
      }
  memset (out, 0, sizeof *out);
  out->kind = kind;
  out->index = index;
  tb_cli_device_label (kind, index, out->name, sizeof out->name);
  /* The one unusable CUDA entry tells why there is no GPU at all. */
  for (int i = 0; i < n; i++)
    if (devices[i].kind == kind && !devices[i].usable && devices[i].reason[0] != '\0')
      {
        snprintf (out->reason, sizeof out->reason, "%s", devices[i].reason);
        return;
      }
  snprintf (out->reason, sizeof out->reason, "no such device");
}

/* ---------------------------------------------------------------- summary */

/* The plan options (--device, --batch-size, --optimizer, --loss) over the
 * preset's settings, or the defaults for a model spec. */
static void
plan_config_from_args (const TbCliArgs *args, const NnPreset *preset, const char *spec_text,
                       NnTrainConfig *c)
{
  const char *value;
  NnError error;

  nn_train_config_init (c);
  if (preset != NULL)
    nn_train_config_use_preset (c, preset);
  c->spec_text = spec_text;
  if ((value = tb_cli_arg (args, "device")) != NULL)
    {
      nn_error_clear (&error);
      if (nn_device_parse (value, &c->device.kind, &c->device.index, &error) != NN_OK)
        tb_cli_usage_error ("summary", "--device: %s", error.message);
    }
  if ((value = tb_cli_arg (args, "tf32")) != NULL)
    c->device.tf32 = tb_cli_parse_on_off ("summary", "tf32", value);
  if ((value = tb_cli_arg (args, "fusion")) != NULL)
    c->conditions.fused = tb_cli_parse_on_off ("summary", "fusion", value);
  if ((value = tb_cli_arg (args, "batch-size")) != NULL)
    c->batch_size = tb_cli_parse_int ("summary", "batch-size", value, 1, NN_BATCH_SIZE_MAX);
  if ((value = tb_cli_arg (args, "optimizer")) != NULL)
    {
      NnOptimizerKind kind;
      nn_error_clear (&error);
      if (nn_optimizer_from_name (value, &kind, &error) != NN_OK)
        tb_cli_usage_error ("summary", "--optimizer: %s", error.message);
      if (kind != c->optimizer.kind)
        c->optimizer = nn_optimizer_defaults (kind);
    }
  if ((value = tb_cli_arg (args, "loss")) != NULL)
    {
      nn_error_clear (&error);
      if (nn_loss_from_name (value, &c->loss, &error) != NN_OK)
        tb_cli_usage_error ("summary", "--loss: %s", error.message);
    }
}

/* The plan of a training step of `c`, printed; the exit status. */
static int
print_plan (const NnTrainConfig *c, NnInputShape input)
{
  NnPlanStep *steps = NULL;
  int32_t count = 0;
  NnError error;
  char label[32];

  tb_cli_device_label (c->device.kind, c->device.index, label, sizeof label);
  nn_error_clear (&error);
  if (nn_train_plan (c, input, &steps, &count, &error) != NN_OK)
    {
      tb_cli_error ("summary: no plan on %s: %s", label, error.message);
      return TB_CLI_EXIT_FAILED;
    }
  size_t need = nn_plan_format (steps, count, NULL, 0);
  char *text = malloc (need + 1);
  if (text == NULL)
    {
      free (steps);
      tb_cli_error ("summary: out of memory");
      return TB_CLI_EXIT_FAILED;
    }
  nn_plan_format (steps, count, text, need + 1);
  tb_cli_print ("\nPlan of a training step on %s%s (batch %d, %s, %s):\n", label,
                c->device.kind == NN_DEVICE_CUDA ? (c->device.tf32 ? ", tf32 on" : ", tf32 off")
                                                 : "",
                c->batch_size, nn_optimizer_name (c->optimizer.kind), nn_loss_name (c->loss));
  tb_cli_print_lines (text);
  free (text);
  free (steps);
  return TB_CLI_EXIT_OK;
}


int
tb_cli_cmd_summary (int argc, char **argv)
{
  TbCliArgs args;
  const char *preset_name, *model_text, *spec_text;
  const NnPreset *preset = NULL;
  NnInputShape input = { 1, 28, 28 };
  NnSpec *spec = NULL;
  NnError error;
  int64_t total = 0;

  tb_cli_args_parse (&args, "summary", tb_cli_summary_options, argc, argv);
  preset_name = tb_cli_arg (&args, "preset");
  model_text = tb_cli_arg (&args, "model");
  if (preset_name != NULL && model_text != NULL)
    tb_cli_usage_error ("summary", "give --preset or --model, not both");
  if (preset_name == NULL && model_text == NULL)
    tb_cli_usage_error ("summary", "which model? Give --preset NAME or --model SPEC");
  if (tb_cli_arg (&args, "input") != NULL)
    input = tb_cli_parse_shape ("summary", "input", tb_cli_arg (&args, "input"));
  static const char *const plan_only[] = { "device", "tf32", "batch-size", "optimizer", "loss",
                                             "fusion" };
  for (size_t i = 0; i < sizeof plan_only / sizeof plan_only[0]; i++)
    if (!tb_cli_flag (&args, "plan") && tb_cli_arg (&args, plan_only[i]) != NULL)
      tb_cli_usage_error ("summary", "--%s is a setting of the plan: give --plan too",
                          plan_only[i]);

  if (preset_name != NULL)
    {
      preset = tb_cli_find_preset ("summary", "preset", preset_name);
      spec_text = preset->spec;
    }
  else
    spec_text = model_text;

  nn_error_clear (&error);
  if (nn_spec_parse (spec_text, &spec, &error) != NN_OK)
    tb_cli_usage_error ("summary", "--%s: %s", preset ? "preset" : "model", error.message);
  NnTrainConfig config;
  if (tb_cli_flag (&args, "plan"))
    plan_config_from_args (&args, preset, spec_text, &config);

  nn_error_clear (&error);
  if (nn_spec_infer (spec, input, NULL, &total, &error) != NN_OK)
    {
      char what[128];
      if (preset != NULL)
        snprintf (what, sizeof what, "--preset %s", preset->name);
      else
        snprintf (what, sizeof what, "--model");
      nn_spec_free (spec);
      if (tb_cli_arg (&args, "input") != NULL)
        tb_cli_usage_error ("summary", "%s does not fit --input %s: %s", what,
                            tb_cli_arg (&args, "input"), error.message);
      tb_cli_usage_error ("summary", "%s does not fit the default input 1x28x28: %s (give "
                                     "--input CxHxW)", what, error.message);
    }

  size_t need = nn_spec_summary (spec, input, NULL, 0);
  char *text = malloc (need + 1);
  if (text == NULL)
    {
      tb_cli_error ("summary: out of memory");
      nn_spec_free (spec);
      return TB_CLI_EXIT_FAILED;
    }
  nn_spec_summary (spec, input, text, need + 1);

  if (preset != NULL)
    tb_cli_print ("%s: %s\n", preset->name, preset->title);
  tb_cli_print ("spec: %s\ninput: %dx%dx%d\n\n", spec_text, input.channels, input.height,
                input.width);
  tb_cli_print_lines (text);
  free (text);
  nn_spec_free (spec);
  if (!tb_cli_flag (&args, "plan"))
    return TB_CLI_EXIT_OK;
  tb_cli_fflush (stdout);
  return print_plan (&config, input);
}

/* ---------------------------------------------------------------- devices */


static void
print_device (const NnDeviceInfo *d)
{
  char label[32], mem[32];

  /* The one unusable CUDA entry stands for no GPU at all: no index. */
  if (d->kind == NN_DEVICE_CUDA && !d->usable)
    snprintf (label, sizeof label, "cuda");
  else
    tb_cli_device_label (d->kind, d->index, label, sizeof label);
  tb_cli_format_bytes (d->memory_bytes, mem, sizeof mem);

  if (!d->usable)
    {
      tb_cli_print ("%-8s %s: not usable: %s\n", label, d->name,
                    d->reason[0] ? d->reason : "unknown reason");
      return;
    }
  tb_cli_print ("%-8s %s\n", label, d->name);
  if (d->kind == NN_DEVICE_CPU)
    {
      tb_cli_print ("         cores %d, RAM %s\n", d->cores, mem);
      return;
    }
  tb_cli_print ("         memory %s, compute capability %d.%d, %d multiprocessors\n", mem,
                d->compute_major, d->compute_minor, d->cores);
  tb_cli_print ("         driver %s, kernels built with CUDA %s", d->driver[0] ? d->driver : "?",
                d->runtime[0] ? d->runtime : "?");
  if (d->cublas[0])
    tb_cli_print (", cuBLAS %s", d->cublas);
  if (d->cudnn[0])
    tb_cli_print (", cuDNN %s", d->cudnn);
  tb_cli_print ("\n");
  if (d->libraries[0])
    tb_cli_print ("         %s\n", d->libraries);
}

int
tb_cli_cmd_devices (int argc, char **argv)
{
  TbCliArgs args;
  NnDeviceInfo devices[MAX_DEVICES];

  tb_cli_args_parse (&args, "devices", tb_cli_no_options, argc, argv);
  int n = nn_device_list (devices, MAX_DEVICES);
  for (int i = 0; i < n; i++)
    print_device (&devices[i]);
  return TB_CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- datasets */

int
tb_cli_cmd_datasets (int argc, char **argv)
{
  TbCliArgs args;
  NnDatasetLocation known[16];
  char user_dir[4096];

  tb_cli_args_parse (&args, "datasets", tb_cli_no_options, argc, argv);
  int n = nn_dataset_list_known (known, 16);
  for (int i = 0; i < n; i++)
    {
      if (known[i].available)
        tb_cli_print ("%-14s found: %s\n", known[i].name, known[i].path);
      else
        {
          const char *reason = known[i].reason[0] ? known[i].reason : "not found";
          /* The engine's reason usually says "not found; looked in ..." itself. */
          tb_cli_print ("%-14s %s%s\n", known[i].name,
                        strncmp (reason, "not ", 4) == 0 ? "" : "not available: ", reason);
        }
    }
  nn_dataset_user_dir (user_dir, sizeof user_dir);
  tb_cli_print ("\nTrainbench also looks in %s; --dataset takes a path too (a folder of IDX files "
                "or a .npz file).\nDefault: %s\n",
                user_dir, tb_cli_default_dataset ());
  return TB_CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- sysinfo */

int
tb_cli_cmd_sysinfo (int argc, char **argv)
{
  TbCliArgs args;
  NnSystemInfo sys;
  NnDeviceInfo devices[MAX_DEVICES];
  char ram[32];

  tb_cli_args_parse (&args, "sysinfo", tb_cli_no_options, argc, argv);
  nn_blas_init ();
  nn_system_info (&sys);
  tb_cli_format_bytes (sys.ram_bytes, ram, sizeof ram);

  char os[512], id[NN_MACHINE_ID_SIZE], id_path[4096];
  NnError error;
  nn_error_clear (&error);
  if (nn_machine_id (id, id_path, sizeof id_path, &error) == NN_OK)
    tb_cli_print ("machine   %s (kept in %s)\n", id, id_path);
  else
    tb_cli_print ("machine   no id: %s\n", error.message);
  nn_system_os_label (&sys, os, sizeof os);
  tb_cli_print ("OS        %s\n", os);
  tb_cli_print ("kernel    %s\n", sys.kernel);
  tb_cli_print ("CPU       %s\n", sys.cpu_model);
  tb_cli_print ("cores     %d cores, %d threads\n", sys.cpu_cores, sys.cpu_threads);
  tb_cli_print ("RAM       %s\n", ram);
  uint64_t limit;
  NnError limit_error;
  nn_error_clear (&limit_error);
  if (nn_system_memory_limit (&limit, &limit_error) != NN_OK)
    tb_cli_print ("limit     %s\n", limit_error.message);
  else if (limit > 0)
    {
      char text[32];
      tb_cli_format_bytes (limit, text, sizeof text);
      tb_cli_print ("limit     %s for a run (TRAINBENCH_MEMORY_LIMIT)\n", text);
    }
  tb_cli_print ("BLAS      %s %s, core %s, %d threads\n", sys.blas_name[0] ? sys.blas_name : "none",
                sys.blas_version[0] ? sys.blas_version : "",
                sys.blas_core[0] ? sys.blas_core : "unknown", sys.blas_threads);
  if (sys.blas_note[0] != '\0')
    tb_cli_print ("          note: %s\n", sys.blas_note);
  tb_cli_print ("compiler  %s\n", sys.compiler);
  tb_cli_print ("trainbench %s (result schema %d)\n", NN_VERSION_STRING, NN_RESULT_SCHEMA);
  tb_cli_print ("\ndevices:\n");
  int n = nn_device_list (devices, MAX_DEVICES);
  for (int i = 0; i < n; i++)
    print_device (&devices[i]);
  return TB_CLI_EXIT_OK;
}
