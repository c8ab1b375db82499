/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-sweep.c: `trainbench-cli sweep`: many short runs over a grid (the
 * engine's NnSweep), a line per point as it goes, then a table of samples
 * per second and where the GPU starts to beat the CPU.
 */

#include "tb-cli-common.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first Ctrl-C, SIGTERM or SIGHUP stops the sweep (the points done are
 * kept, the sweep file says cancelled); a second one ends the process at
 * once. Called from a signal handler (POSIX) or a thread of the console's
 * (Windows); nn_sweep_cancel only stores to atomics. */
static NnSweep *volatile current_sweep;
static volatile sig_atomic_t interrupts;

static bool
interrupt_cb (TbCliStop why)
{
  static const char *const messages[] = {
    [TB_CLI_STOP_INTERRUPT] = "\ncancelling: the points done are kept, the sweep is saved as "
                              "cancelled (Ctrl-C again to quit now)\n",
    [TB_CLI_STOP_TERMINATE] = "\nterminated (SIGTERM): stopping; the sweep is saved as cancelled\n",
    [TB_CLI_STOP_HANGUP] = "\nthe terminal went away (SIGHUP): stopping; the sweep is saved as "
                           "cancelled\n",
    [TB_CLI_STOP_CLOSE] = "\nthe console is closing: stopping; the sweep is saved as cancelled\n",
  };
  interrupts++;
  if (interrupts > 1 && why != TB_CLI_STOP_CLOSE)
    return false;
  if (interrupts == 1)
    tb_cli_os_write_error (messages[why]);
  if (current_sweep != NULL)
    nn_sweep_cancel (current_sweep);
  return true;
}

/* ---------------------------------------------------------------- words */

/* "45.2k", "1.20M", "812", "-" for none. */
static void
format_rate (double v, char *out, size_t size)
{
  if (!isfinite (v) || v <= 0)
    snprintf (out, size, "-");
  else if (v >= 1e6)
    snprintf (out, size, "%.2fM", v / 1e6);
  else if (v >= 1e4)
    snprintf (out, size, "%.1fk", v / 1e3);
  else
    snprintf (out, size, "%.0f", v);
}

/* "1.25 ms", "310 us", "2.1 s". */
static void
format_step (double seconds, char *out, size_t size)
{
  if (!isfinite (seconds) || seconds <= 0)
    snprintf (out, size, "-");
  else if (seconds >= 1.0)
    snprintf (out, size, "%.2f s", seconds);
  else if (seconds >= 1e-3)
    snprintf (out, size, "%.2f ms", seconds * 1e3);
  else
    snprintf (out, size, "%.0f us", seconds * 1e6);
}

/* "W=128 batch=32" */
static void
point_values (const NnSweepRequest *r, const NnSweepPoint *p, char *out, size_t size)
{
  size_t len = 0;

  out[0] = '\0';
  for (int32_t a = 0; a < r->axis_count && len < size; a++)
    len += (size_t) snprintf (out + len, size - len, "%s%s=%d", a > 0 ? " " : "", r->axes[a].name,
                              (int) p->values[a]);
}

/* ---------------------------------------------------------------- progress */

typedef struct
{
  bool quiet;
  bool tty;
  bool ansi;
  bool header_shown;
  const NnSweep *sweep;
} TbCliSweepShow;

static bool
progress_cb (const NnSweepProgress *progress, void *user_data)
{
  TbCliSweepShow *show = user_data;
  const NnSweepRequest *r = nn_sweep_request (show->sweep);
  const NnSweepPoint *p = progress->point;
  char values[128], eta[32], rate[32], step[32], line[1536];

  if (show->quiet)
    return true;
  if (!show->header_shown)
    {
      tb_cli_print ("sweep %s: %d points, %d steps each after %d warm-up steps\n",
                    nn_sweep_id (show->sweep), (int) progress->count, (int) r->steps,
                    (int) r->warmup_steps);
      if (strcmp (nn_conditions_name (&r->config.conditions), "default") != 0)
        {
          char conditions[256];
          tb_cli_format_conditions (&r->config.conditions, conditions, sizeof conditions);
          tb_cli_print ("every point under %s\n", conditions);
        }
      tb_cli_print ("sweep file: %s\n", nn_sweep_file (show->sweep));
      show->header_shown = true;
    }
  point_values (r, p, values, sizeof values);
  if (progress->eta_seconds >= 0)
    tb_cli_format_duration (progress->eta_seconds, eta, sizeof eta);
  else
    snprintf (eta, sizeof eta, "?");
  if (progress->kind == NN_SWEEP_POINT_STARTED)
    {
      /* on a terminal, the point running until it is done */
      if (show->tty)
        {
          snprintf (line, sizeof line, "point %d/%d  %s  %s ...  ETA %s", (int) progress->index + 1,
                    (int) progress->count, values, p->device_text, eta);
          int columns = tb_cli_os_terminal_columns ();
          if ((int) strlen (line) > columns - 1)
            line[columns > 1 ? columns - 1 : 0] = '\0';
          if (show->ansi)
            tb_cli_print ("\r%s\033[K", line);
          else
            tb_cli_print ("\r%-*s", columns - 1, line);
          tb_cli_fflush (stdout);
        }
      return true;
    }
  if (p->status == NN_SWEEP_POINT_COMPLETED)
    {
      format_rate (p->samples_per_second, rate, sizeof rate);
      format_step (p->step_seconds_median, step, sizeof step);
      snprintf (line, sizeof line, "point %d/%d  %s  %s  %s samples/s  (step %s, %.1f s in all)  "
                "ETA %s", (int) progress->index + 1, (int) progress->count, values, p->device_text,
                rate, step, p->seconds, eta);
    }
  else
    snprintf (line, sizeof line, "point %d/%d  %s  %s  %s: %s", (int) progress->index + 1,
              (int) progress->count, values, p->device_text,
              nn_sweep_point_status_name (p->status), p->error);
  if (show->tty)
    tb_cli_print (show->ansi ? "\r%s\033[K\n" : "\r%s\n", line);
  else
    tb_cli_print ("%s\n", line);
  tb_cli_fflush (stdout);
  return true;
}

/* ---------------------------------------------------------------- the table */

/* The point at value indices `at` (one per axis) on device d. */
static const NnSweepPoint *
point_at (const NnSweep *sweep, const int32_t *at, int32_t d)
{
  const NnSweepRequest *r = nn_sweep_request (sweep);
  int32_t index = 0;

  for (int32_t a = 0; a < r->axis_count; a++)
    index = index * r->axes[a].count + at[a];
  return nn_sweep_point (sweep, index * r->device_count + d);
}

static double
rate_at (const NnSweep *sweep, const int32_t *at, int32_t d)
{
  const NnSweepPoint *p = point_at (sweep, at, d);
  return p != NULL && p->status == NN_SWEEP_POINT_COMPLETED ? p->samples_per_second : NAN;
}

#define CELL 10

/* Samples per second: rows the first axis, columns the second axis's
 * values for each device; a table for each value of a third axis. */
static void
print_table (const NnSweep *sweep)
{
  const NnSweepRequest *r = nn_sweep_request (sweep);
  int32_t n_row = r->axis_count > 0 ? r->axes[0].count : 1;
  int32_t n_col = r->axis_count > 1 ? r->axes[1].count : 1;
  int32_t n_tab = r->axis_count > 2 ? r->axes[2].count : 1;
  int32_t at[NN_SWEEP_AXES_MAX] = { 0 };
  char cell[64];

  for (int32_t t = 0; t < n_tab; t++)
    {
      tb_cli_print ("\nsamples per second");
      if (r->axis_count > 2)
        tb_cli_print (" at %s=%d", r->axes[2].name, (int) r->axes[2].values[t]);
      tb_cli_print ("\n");
      if (r->axis_count > 1)
        {
          tb_cli_print ("%-*s", CELL, "");
          for (int32_t c = 0; c < n_col; c++)
            {
              snprintf (cell, sizeof cell, "%s=%d", r->axes[1].name, (int) r->axes[1].values[c]);
              tb_cli_print (" %-*s", CELL * r->device_count + r->device_count - 1, cell);
            }
          tb_cli_print ("\n");
        }
      tb_cli_print ("%-*s", CELL, r->axis_count > 0 ? r->axes[0].name : "");
      for (int32_t c = 0; c < n_col; c++)
        for (int32_t d = 0; d < r->device_count; d++)
          tb_cli_print (" %*s", CELL, r->devices[d]);
      tb_cli_print ("\n");
      for (int32_t row = 0; row < n_row; row++)
        {
          if (r->axis_count > 0)
            snprintf (cell, sizeof cell, "%d", (int) r->axes[0].values[row]);
          else
            cell[0] = '\0';
          tb_cli_print ("%-*s", CELL, cell);
          for (int32_t c = 0; c < n_col; c++)
            for (int32_t d = 0; d < r->device_count; d++)
              {
                at[0] = row;
                at[1] = c;
                at[2] = t;
                format_rate (rate_at (sweep, at, d), cell, sizeof cell);
                tb_cli_print (" %*s", CELL, cell);
              }
          tb_cli_print ("\n");
        }
    }
}

/* The engine's crossover, a line per value of the other axes: the
 * GPU-over-CPU ratio of samples per second along the first axis that is not
 * batch, and where it crosses 1: "GPU faster from W=128 at batch 32". */
static void
print_crossings (const NnSweep *sweep)
{
  const NnSweepRequest *r = nn_sweep_request (sweep);
  int32_t cpu, gpu, x, y;
  int32_t lines;

  nn_sweep_crossover_axes (r, &x, &y);
  lines = nn_sweep_crossover_line_count (r, x);
  if (!nn_sweep_crossover_devices (r, &cpu, &gpu) || lines == 0)
    return;

  tb_cli_print ("\n%s over cpu (samples per second):\n", r->devices[gpu]);
  for (int32_t k = 0; k < lines; k++)
    {
      NnCrossoverLine line;
      char where[128] = "", list[1024] = "", verdict[256];
      size_t wl = 0, ll = 0;
      const char *xn = r->axes[x].name;

      nn_sweep_crossover_line (r, nn_sweep_point (sweep, 0), nn_sweep_point_count (sweep), x, k,
                               &line);
      for (int32_t a = 0; a < r->axis_count; a++)
        if (a != x && wl < sizeof where)
          wl += (size_t) snprintf (where + wl, sizeof where - wl, "%s%s %d", wl > 0 ? ", " : " at ",
                                   r->axes[a].name, (int) r->axes[a].values[line.at[a]]);
      for (int32_t i = 0; i < line.count && ll < sizeof list; i++)
        if (!isnan (line.ratio[i]))
          ll += (size_t) snprintf (list + ll, sizeof list - ll, "%s%s=%d %.2fx", ll > 0 ? ", " : "",
                                   xn, (int) r->axes[x].values[i], line.ratio[i]);
        else
          ll += (size_t) snprintf (list + ll, sizeof list - ll, "%s%s=%d -", ll > 0 ? ", " : "",
                                   xn, (int) r->axes[x].values[i]);
      switch (line.kind)
        {
        case NN_CROSSOVER_NOT_COMPARED:
          snprintf (verdict, sizeof verdict, "no pair of points to compare%s", where);
          break;
        case NN_CROSSOVER_CPU_FASTER:
          snprintf (verdict, sizeof verdict, "CPU faster at every %s%s", xn, where);
          break;
        case NN_CROSSOVER_GPU_FASTER:
          snprintf (verdict, sizeof verdict, "GPU faster at every %s%s", xn, where);
          break;
        case NN_CROSSOVER_GPU_FROM:
          snprintf (verdict, sizeof verdict, "GPU faster from %s=%d%s", xn,
                    (int) r->axes[x].values[line.where], where);
          break;
        case NN_CROSSOVER_CPU_AGAIN:
          snprintf (verdict, sizeof verdict, "CPU faster again at %s=%d%s", xn,
                    (int) r->axes[x].values[line.where], where);
          break;
        }
      tb_cli_print ("  %s: %s\n", verdict, list);
    }
}

/* ---------------------------------------------------------------- the command */

/* The option that sets the request's field an error of nn_sweep_new is
 * about. */
static const char *
option_of (const TbCliArgs *args, NnField field)
{
  switch (field)
    {
    case NN_FIELD_FAMILY: return "family";
    case NN_FIELD_TEMPLATE: return "spec";
    case NN_FIELD_AXES: return "axis";
    case NN_FIELD_DEVICES: return "devices";
    case NN_FIELD_STEPS: return "steps";
    case NN_FIELD_WARMUP_STEPS: return "warmup";
    case NN_FIELD_BATCH_SIZE: return "batch-size";
    case NN_FIELD_DATASET: return tb_cli_arg_name (args, "dataset");
    case NN_FIELD_LIMIT_TRAIN: return "limit-train";
    case NN_FIELD_RUNS_FOLDER: return "out-dir";
    case NN_FIELD_NONE: break;
    }
  return NULL;
}

static void
parse_devices (const char *cmd, const char *text, NnSweepRequest *r)
{
  const char *p = text;

  r->device_count = 0;
  for (;;)
    {
      size_t n = strcspn (p, ",");
      char one[sizeof r->devices[0]];
      NnDeviceKind kind;
      int32_t index;
      NnError error;

      if (n == 0 || n >= sizeof one)
        tb_cli_usage_error (cmd, "--devices: '%s' is not a list of devices (cpu,cuda:0)", text);
      if (r->device_count == NN_SWEEP_DEVICES_MAX)
        tb_cli_usage_error (cmd, "--devices: at most %d devices", NN_SWEEP_DEVICES_MAX);
      memcpy (one, p, n);
      one[n] = '\0';
      nn_error_clear (&error);
      if (nn_device_parse (one, &kind, &index, &error) != NN_OK)
        tb_cli_usage_error (cmd, "--devices: %s", error.message);
      snprintf (r->devices[r->device_count++], sizeof r->devices[0], "%s", one);
      if (p[n] == '\0')
        break;
      p += n + 1;
    }
}

static void
sweep_from_args (const TbCliArgs *args, const char *cmd, NnSweepRequest *r)
{
  const char *axes[TB_CLI_GIVEN_MAX];
  const char *value;
  int n_axes = tb_cli_arg_all (args, "axis", axes, TB_CLI_GIVEN_MAX);
  const char *family = tb_cli_arg (args, "family");
  const char *spec = tb_cli_arg (args, "spec");
  NnError error;

  nn_sweep_request_init (r);
  nn_error_clear (&error);
  if (family != NULL && spec != NULL)
    tb_cli_usage_error (cmd, "--spec: give --family or --spec, not both");
  if (family != NULL && nn_sweep_family_from_name (family, &r->family, &error) != NN_OK)
    tb_cli_usage_error (cmd, "--family: %s", error.message);
  if (family != NULL && r->family == NN_SWEEP_SPEC)
    tb_cli_usage_error (cmd, "--family: spec takes its template from --spec TEMPLATE");
  if (spec != NULL)
    {
      r->family = NN_SWEEP_SPEC;
      r->template_text = spec;
    }

  if (n_axes > NN_SWEEP_AXES_MAX)
    tb_cli_usage_error (cmd, "--axis: at most %d axes (got %d)", NN_SWEEP_AXES_MAX, n_axes);
  for (int i = 0; i < n_axes; i++)
    if (nn_sweep_axis_parse (axes[i], &r->axes[r->axis_count++], &error) != NN_OK)
      tb_cli_usage_error (cmd, "--axis: %s", error.message);
  /* the family's default grid; the default devices only without
   * --devices, which then never loads the CUDA module */
  if (n_axes == 0)
    nn_sweep_request_use_default_axes (r);
  if ((value = tb_cli_arg (args, "devices")) != NULL)
    parse_devices (cmd, value, r);
  else
    nn_sweep_request_use_default_devices (r);

  if ((value = tb_cli_arg (args, "steps")) != NULL)
    r->steps = tb_cli_parse_int (cmd, "steps", value, 1, NN_SWEEP_STEPS_MAX);
  if ((value = tb_cli_arg (args, "warmup")) != NULL)
    r->warmup_steps = tb_cli_parse_int (cmd, "warmup", value, 0, NN_SWEEP_STEPS_MAX);
  if ((value = tb_cli_arg (args, "threads")) != NULL)
    r->config.device.threads = tb_cli_parse_int (cmd, "threads", value, 0, NN_THREADS_MAX);
  if ((value = tb_cli_arg (args, "batch-size")) != NULL)
    r->config.batch_size = tb_cli_parse_int (cmd, "batch-size", value, 1, NN_BATCH_SIZE_MAX);
  if ((value = tb_cli_arg (args, "seed")) != NULL)
    r->config.seed = tb_cli_parse_u64 (cmd, "seed", value);
  if ((value = tb_cli_arg (args, "limit-train")) != NULL)
    r->limit_train = tb_cli_parse_int (cmd, "limit-train", value, 1, INT32_MAX);
  if ((value = tb_cli_arg (args, "optimizer")) != NULL)
    {
      NnOptimizerKind kind;
      if (nn_optimizer_from_name (value, &kind, &error) != NN_OK)
        tb_cli_usage_error (cmd, "--optimizer: %s", error.message);
      r->config.optimizer = nn_optimizer_defaults (kind);
    }
  r->config.conditions = tb_cli_parse_conditions (args, cmd);
  if ((value = tb_cli_arg (args, "breakdown")) != NULL)
    r->config.breakdown = tb_cli_parse_on_off (cmd, "breakdown", value);
  r->dataset_name = tb_cli_arg (args, "dataset");
  if (r->dataset_name == NULL)
    r->dataset_name = tb_cli_default_dataset ();
  r->runs_folder = tb_cli_arg (args, "out-dir");
}

int
tb_cli_cmd_sweep (int argc, char **argv)
{
  static const char cmd[] = "sweep";
  TbCliArgs args;
  NnSweepRequest request;
  NnSweep *sweep = NULL;
  TbCliSweepShow show;
  NnError error;
  NnStatus status;
  int failed = 0, completed = 0;

  tb_cli_args_parse (&args, cmd, tb_cli_sweep_options, argc, argv);
  sweep_from_args (&args, cmd, &request);
  tb_cli_check_memory_limit (cmd);
  if (request.runs_folder != NULL)
    {
      nn_error_clear (&error);
      if (nn_folder_create (request.runs_folder, &error) != NN_OK)
        tb_cli_usage_error (cmd, "--out-dir: cannot create the folder: %s", error.message);
    }

  memset (&show, 0, sizeof show);
  show.quiet = tb_cli_flag (&args, "quiet");
  show.tty = tb_cli_os_stdout_is_terminal (&show.ansi);
  request.progress = progress_cb;
  request.progress_data = &show;

  /* Everything the request names is checked before anything runs. */
  nn_error_clear (&error);
  status = nn_sweep_new (&request, &sweep, &error);
  if (status != NN_OK)
    {
      const char *option = option_of (&args, error.field);

      if (error.field == NN_FIELD_DATASET && tb_cli_arg (&args, "dataset") == NULL)
        tb_cli_usage_error (cmd, "no data set: %s (give --dataset NAME|PATH; " TB_CLI_NAME
                                 " datasets says where it looks)", error.message);
      if (option == NULL)
        tb_cli_usage_error (cmd, "%s", error.message);
      tb_cli_usage_error (cmd, "--%s: %s", option, error.message);
    }

  show.sweep = sweep;

  current_sweep = sweep;
  tb_cli_os_interrupt_install (interrupt_cb);
  if (interrupts > 0)
    nn_sweep_cancel (sweep);
  status = nn_sweep_run (sweep, &error);
  tb_cli_os_interrupt_remove ();
  current_sweep = NULL;

  for (int32_t i = 0; i < nn_sweep_point_count (sweep); i++)
    {
      NnSweepPointStatus s = nn_sweep_point (sweep, i)->status;
      completed += s == NN_SWEEP_POINT_COMPLETED;
      failed += s == NN_SWEEP_POINT_FAILED;
    }
  if (nn_sweep_file (sweep)[0] != '\0' && completed > 0)
    {
      print_table (sweep);
      print_crossings (sweep);
    }
  if (status != NN_OK && status != NN_ERROR_CANCELLED)
    tb_cli_error ("sweep: %s", error.message);
  else if (status == NN_ERROR_CANCELLED)
    tb_cli_error ("sweep: cancelled: %d of %d points done, kept", completed + failed,
                  (int) nn_sweep_point_count (sweep));
  if (failed > 0)
    tb_cli_error ("sweep: %d of %d points failed (see above)", failed,
                  (int) nn_sweep_point_count (sweep));
  if (nn_sweep_file (sweep)[0] != '\0')
    tb_cli_print ("\nsweep file: %s\n", nn_sweep_file (sweep));
  nn_sweep_free (sweep);
  return status == NN_OK && failed == 0 ? TB_CLI_EXIT_OK : TB_CLI_EXIT_FAILED;
}
