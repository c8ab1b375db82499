/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-export.c: `trainbench --export-chart KIND --runs A.json B.json -o out.png`
 * and `trainbench --export-runs out.csv --runs ...`: the same charts and
 * tables as the window, drawn by the same renderer, for reports and CI.
 */
#define G_LOG_DOMAIN "trainbench-export"

#include "tb-config.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>

#include "tb-articles-page.h"
#include "tb-chart.h"
#include "tb-error.h"
#include "tb-file.h"
#include "tb-export.h"
#include "tb-run.h"
#include "tb-sweep.h"

static const char usage[] =
  "Usage:\n"
  "  trainbench --export-chart KIND --runs FILE.json... -o OUT.png|OUT.svg\n"
  "             [--size WIDTHxHEIGHT] [--group-by device|os] [--scale auto|linear|log]\n"
  "             [--dark]\n"
  "  trainbench --export-runs OUT.csv|OUT.json --runs FILE.json...\n"
  "  trainbench --export-chart sweep|crossover|sweep-breakdown --sweep SWEEP.json\n"
  "             -o OUT.png|OUT.svg|OUT.csv\n"
  "             [--size WIDTHxHEIGHT] [--x AXIS] [--y AXIS] [--dark]\n"
  "  trainbench --export-report OUT.png|OUT.html [--runs DIR|FILE...] [--machine FILE...]\n"
  "\n"
  "KIND is one of:\n"
  "  compare     seconds per epoch by device (or by OS, for each model and kind\n"
  "              of device), with speed-ups\n"
  "  accuracy    test accuracy per epoch, one curve per run\n"
  "  loss        training loss, one curve per run\n"
  "  epoch-time  seconds of each epoch, one curve per run\n"
  "  breakdown   where a training step's time goes, a stacked bar per run\n"
  "  sweep       a sweep's samples per second over its axis (--x), a line per\n"
  "              device and batch size\n"
  "  crossover   a sweep's GPU-over-CPU speed ratio over two axes (--x, --y:\n"
  "              by default the width and the batch size) and where it crosses 1\n"
  "  sweep-breakdown  where each point's step time went, a stacked bar per point\n"
  "              (its parts as shares of the step)\n"
  "\n"
  "--scale: the y axis is linear or log; auto (the default) is log for bars 20\n"
  "or more times apart, linear otherwise.\n"
  "--runs also takes folders (every result file in them). A sweep's .csv has a\n"
  "line per point (sweep) or per cell (crossover).\n"
  "\n"
  "--export-report: the articles' claims against this machine's runs (the\n"
  "Articles page), as a PNG or the HTML page; --runs defaults to the runs\n"
  "folder, and --machine FILE judges them as the machine of that result file\n"
  "(given more than once: the machines of all the files as one, a machine that\n"
  "boots two operating systems).\n";

/* "trainbench: <message>" on stderr. Every %s argument (a file's name, a
 * message that quotes a file's text, an argument) goes through the engine's
 * nn_text_vformat_for_terminal: a control sequence in it is shown escaped,
 * never acted on by the terminal. */
static void say (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
say (const char *format,
     ...)
{
  va_list args;

  va_start (args, format);
  int need = nn_text_vformat_for_terminal (NULL, 0, format, args);
  va_end (args);
  g_autofree char *text = g_malloc ((gsize) need + 1);
  va_start (args, format);
  nn_text_vformat_for_terminal (text, (size_t) need + 1, format, args);
  va_end (args);
  fprintf (stderr, "trainbench: %s\n", text);
}

gboolean
tb_export_wanted (int    argc,
                  char **argv)
{
  for (int i = 1; i < argc; i++)
    if (g_strcmp0 (argv[i], "--export-chart") == 0 || g_strcmp0 (argv[i], "--export-runs") == 0
        || g_str_has_prefix (argv[i], "--export-chart=") || g_str_has_prefix (argv[i], "--export-runs=")
        || g_strcmp0 (argv[i], "--export-report") == 0 || g_str_has_prefix (argv[i], "--export-report="))
      return TRUE;
  return FALSE;
}

static TbChartData *
epoch_time_chart (GPtrArray *runs)
{
  TbChartData *data = tb_chart_data_new (TB_CHART_LINES, _("Seconds per epoch"), _("Epoch"), _("Seconds"));

  data->x_integer = TRUE;
  data->y_from_zero = TRUE;
  for (guint i = 0; i < runs->len; i++)
    {
      TbRun *run = g_ptr_array_index (runs, i);
      g_autofree char *dev = tb_run_device_label (run);
      g_autofree char *label = tb_run_has_conditions (run)
                                 ? g_strdup_printf ("%s · %s · %s", tb_run_model_label (run), dev,
                                                    tb_run_conditions_label (run))
                                 : g_strdup_printf ("%s · %s", tb_run_model_label (run), dev);
      TbChartSeries *s = tb_chart_data_add_series (data, label, 0);

      for (guint e = 0; e < run->epochs->len; e++)
        {
          const TbEpoch *ep = &g_array_index (run->epochs, TbEpoch, e);

          tb_chart_series_append (s, ep->epoch, ep->seconds);
        }
    }
  return data;
}

static gboolean
add_runs (GPtrArray  *runs,
          const char *path)
{
  g_autoptr(GError) error = NULL;
  TbRun *run;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
      g_autoptr(GPtrArray) found = tb_run_load_folder (path, skipped, NULL, NULL);

      /* a bad file in a folder is skipped, and said so: the others are
       * exported */
      for (guint i = 0; i < skipped->len; i++)
        say ("skipped: %s", ((GError *) g_ptr_array_index (skipped, i))->message);
      for (guint i = 0; i < found->len; i++)
        g_ptr_array_add (runs, tb_run_ref (g_ptr_array_index (found, i)));
      return TRUE;
    }
  run = tb_run_load (path, &error);
  if (run == NULL)
    {
      say ("%s", error->message);
      return FALSE;
    }
  g_ptr_array_add (runs, run);
  return TRUE;
}

/* "--name=value" or "--name value" */
static const char *
option_value (int    argc,
              char **argv,
              int   *i,
              const char *name)
{
  size_t n = strlen (name);

  if (strncmp (argv[*i], name, n) == 0 && argv[*i][n] == '=')
    return argv[*i] + n + 1;
  if (strcmp (argv[*i], name) == 0)
    {
      /* a missing value: do not swallow the next option */
      if (*i + 1 >= argc || (argv[*i + 1][0] == '-' && argv[*i + 1][1] == '-'))
        return NULL;
      (*i)++;
      return argv[*i];
    }
  return NULL;
}

static gboolean
is_option (const char *arg,
           const char *name)
{
  size_t n = strlen (name);

  return strncmp (arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* `--export-chart sweep|crossover|sweep-breakdown --sweep FILE`: the Explore page's charts
 * of a sweep file, or their CSV. */
static int
export_sweep (const char *chart,
              const char *sweep_path,
              const char *output,
              const char *x_name,
              const char *y_name,
              int         width,
              int         height,
              gboolean    dark)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(TbSweep) sweep = NULL;
  g_autoptr(TbChartData) data = NULL;
  int x_axis, y_axis;

  sweep = tb_sweep_load (sweep_path, &error);
  if (sweep == NULL)
    {
      say ("%s", error->message);
      return 1;
    }
  tb_sweep_default_axes (sweep, &x_axis, &y_axis);
  if (x_name != NULL && (x_axis = tb_sweep_axis_index (sweep, x_name)) < 0)
    {
      say ("--x: the sweep has no axis “%s”", x_name);
      return 2;
    }
  if (y_name != NULL && (y_axis = tb_sweep_axis_index (sweep, y_name)) < 0)
    {
      say ("--y: the sweep has no axis “%s”", y_name);
      return 2;
    }
  if (x_name != NULL && y_name == NULL && y_axis == x_axis)
    y_axis = x_axis == 0 && sweep->n_axes > 1 ? 1 : (sweep->n_axes > 1 ? 0 : -1);

  if (g_str_has_suffix (output, ".csv") || g_str_has_suffix (output, ".CSV"))
    {
      g_autofree char *csv = tb_sweep_format_csv (sweep, chart, x_axis, y_axis);

      if (!tb_file_set_contents (output, csv, -1, &error))
        {
          say ("%s", error->message);
          return 1;
        }
      return 0;
    }
  if (strcmp (chart, "sweep") == 0)
    data = tb_sweep_speed_chart (sweep, x_axis);
  else if (strcmp (chart, "sweep-breakdown") == 0)
    data = tb_sweep_breakdown_chart (sweep, x_axis, y_axis);
  else
    data = tb_sweep_crossover_chart (sweep, x_axis, y_axis);
  data->dark = dark;
  if (!tb_chart_export (data, output, width, height, &error))
    {
      say ("%s", error->message);
      return 1;
    }
  return 0;
}

/* --export-report OUT [--runs DIR|FILE...] [--machine FILE...]: the engine
 * reads the files itself (nn_report_build), skipping what is not a result
 * with a message, as the CLI's report does. */
static int
export_report (int    argc,
               char **argv)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new ();
  g_autoptr(GPtrArray) machine_files = g_ptr_array_new ();
  const char *output = NULL;
  char runs_dir[4096];
  NnReportMachine machine;
  NnReport *report = NULL;
  NnError nn_error;
  g_autoptr(GError) error = NULL;

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (is_option (arg, "--export-report"))
        output = option_value (argc, argv, &i, "--export-report");
      else if (is_option (arg, "--machine"))
        {
          const char *file = option_value (argc, argv, &i, "--machine");
          if (file == NULL)
            {
              say ("--machine wants a result file");
              fprintf (stderr, "\n%s", usage);
              return 2;
            }
          g_ptr_array_add (machine_files, (gpointer) file);
        }
      else if (strcmp (arg, "--runs") == 0)
        while (i + 1 < argc && argv[i + 1][0] != '-')
          g_ptr_array_add (paths, argv[++i]);
      else
        {
          say ("unknown argument “%s”", arg);
          fprintf (stderr, "\n%s", usage);
          return 2;
        }
    }
  if (output == NULL)
    {
      fputs (usage, stderr);
      return 2;
    }
  if (paths->len == 0)
    {
      nn_runs_dir (runs_dir, sizeof runs_dir);
      g_ptr_array_add (paths, runs_dir);
    }
  nn_error_clear (&nn_error);
  /* --machine FILE given once or more, as the CLI's report takes it: the
   * first file's machine, the others its other OS installations */
  if (machine_files->len > NN_REPORT_MACHINE_IDS_MAX)
    {
      say ("--machine: given %u times; a machine has at most %d ids", machine_files->len,
           NN_REPORT_MACHINE_IDS_MAX);
      return 2;
    }
  for (guint i = 0; i < machine_files->len; i++)
    {
      const char *file = g_ptr_array_index (machine_files, i);
      if ((i == 0 ? nn_report_machine_from_file (file, &machine, &nn_error)
                  : nn_report_machine_add_file (&machine, file, &nn_error)) != NN_OK)
        {
          g_autofree char *message = tb_error_message (&nn_error);
          say ("--machine: %s", message);
          return 2;
        }
    }
  if (machine_files->len == 0)
    nn_report_machine_here (&machine);
  if (nn_report_build ((const char *const *) paths->pdata, (int) paths->len, &machine, &report,
                       &nn_error) != NN_OK)
    {
      g_autofree char *message = tb_error_message (&nn_error);
      say ("%s", message);
      return 1;
    }
  for (int i = 0; i < report->skipped_count; i++)
    say ("skipped: %s", report->skipped[i].why);
  gboolean ok = tb_articles_export (report, output, 1000, &error);
  nn_report_free (report);
  if (!ok)
    {
      say ("%s", error->message);
      return 1;
    }
  return 0;
}

int
tb_export_main (int    argc,
                char **argv)
{
  g_autoptr(GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_autoptr(TbChartData) data = NULL;
  g_autoptr(GError) error = NULL;
  const char *chart = NULL, *runs_out = NULL, *output = NULL, *group = "device", *scale = "auto";
  const char *sweep = NULL, *x_name = NULL, *y_name = NULL;
  int width = 1200, height = 700;
  gboolean dark = FALSE, bad = FALSE;

  for (int i = 1; i < argc; i++)
    if (is_option (argv[i], "--export-report"))
      return export_report (argc, argv);

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (is_option (arg, "--export-chart"))
        chart = option_value (argc, argv, &i, "--export-chart");
      else if (is_option (arg, "--export-runs"))
        runs_out = option_value (argc, argv, &i, "--export-runs");
      else if (is_option (arg, "-o") || is_option (arg, "--output"))
        output = option_value (argc, argv, &i, arg[1] == 'o' ? "-o" : "--output");
      else if (is_option (arg, "--size"))
        {
          const char *v = option_value (argc, argv, &i, "--size");

          if (v == NULL || sscanf (v, "%dx%d", &width, &height) != 2)
            {
              say ("--size wants WIDTHxHEIGHT, e.g. 1200x700");
              return 2;
            }
        }
      else if (is_option (arg, "--group-by"))
        group = option_value (argc, argv, &i, "--group-by");
      else if (is_option (arg, "--scale"))
        scale = option_value (argc, argv, &i, "--scale");
      else if (is_option (arg, "--sweep"))
        {
          if ((sweep = option_value (argc, argv, &i, "--sweep")) == NULL)
            {
              say ("--sweep wants a sweep file (sweep.json)");
              return 2;
            }
        }
      else if (is_option (arg, "--x"))
        x_name = option_value (argc, argv, &i, "--x");
      else if (is_option (arg, "--y"))
        y_name = option_value (argc, argv, &i, "--y");
      else if (strcmp (arg, "--dark") == 0)
        dark = TRUE;
      else if (strcmp (arg, "--runs") == 0)
        {
          /* every following argument that is not an option is a result */
          while (i + 1 < argc && argv[i + 1][0] != '-')
            bad |= !add_runs (runs, argv[++i]);
        }
      else if (strcmp (arg, "--help") == 0 || strcmp (arg, "-h") == 0)
        {
          fputs (usage, stdout);
          return 0;
        }
      else
        {
          say ("unknown argument “%s”", arg);
          fprintf (stderr, "\n%s", usage);
          return 2;
        }
    }

  if (bad)
    return 1;
  if (chart != NULL && (strcmp (chart, "sweep") == 0 || strcmp (chart, "crossover") == 0
                        || strcmp (chart, "sweep-breakdown") == 0))
    {
      if (sweep == NULL || output == NULL || runs->len > 0)
        {
          fputs (usage, stderr);
          return 2;
        }
      return export_sweep (chart, sweep, output, x_name, y_name, width, height, dark);
    }
  if (sweep != NULL)
    {
      say ("--sweep goes with --export-chart sweep, crossover or sweep-breakdown");
      fprintf (stderr, "\n%s", usage);
      return 2;
    }
  if ((chart == NULL) == (runs_out == NULL) || runs->len == 0
      || (chart != NULL && output == NULL)
      || (group == NULL || (strcmp (group, "device") != 0 && strcmp (group, "os") != 0))
      || (scale == NULL || (strcmp (scale, "auto") != 0 && strcmp (scale, "linear") != 0 && strcmp (scale, "log") != 0)))
    {
      fputs (usage, stderr);
      return 2;
    }

  if (runs_out != NULL)
    {
      gboolean ok = g_str_has_suffix (runs_out, ".csv") ? tb_runs_export_csv (runs, runs_out, &error)
                                                        : tb_runs_export_json (runs, runs_out, &error);

      if (!ok)
        {
          say ("%s", error->message);
          return 1;
        }
      return 0;
    }

  if (strcmp (chart, "compare") == 0)
    data = tb_runs_compare_bars (runs, strcmp (group, "os") == 0 ? TB_GROUP_OS : TB_GROUP_DEVICE);
  else if (strcmp (chart, "accuracy") == 0)
    data = tb_runs_compare_accuracy (runs);
  else if (strcmp (chart, "loss") == 0)
    data = tb_runs_compare_loss (runs);
  else if (strcmp (chart, "epoch-time") == 0)
    data = epoch_time_chart (runs);
  else if (strcmp (chart, "breakdown") == 0)
    data = tb_runs_breakdown_chart (runs);
  else
    {
      say ("unknown chart “%s”", chart);
      fprintf (stderr, "\n%s", usage);
      return 2;
    }
  data->dark = dark;
  data->y_scale = strcmp (scale, "log") == 0 ? TB_CHART_SCALE_LOG
                  : strcmp (scale, "linear") == 0 ? TB_CHART_SCALE_LINEAR : TB_CHART_SCALE_AUTO;
  if (!tb_chart_export (data, output, width, height, &error))
    {
      say ("%s", error->message);
      return 1;
    }
  return 0;
}
