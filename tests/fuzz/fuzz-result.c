/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-result.c: libFuzzer target for the result file reader (tb_run_load_data,
 * the same code that reads imports and the headless export, and
 * tb_run_load_summary, what the runs folder's history keeps). Any bytes go
 * in: the reader must refuse them with a message that names the file, or
 * give a run whose labels, row texts, CSV row and comparison charts all
 * work, whose summary is read from the same bytes and says the same, and
 * whose run id makes a plain file name. The same bytes, opened in the
 * window, are sorted as a sweep file or a result by tb_sweep_is_sweep_data,
 * which must read no byte past them (the input is copied to a buffer of its
 * own size for that). GLib criticals and warnings are fatal, so a misused
 * API counts.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-glib.h"
#include "tb-run.h"
#include "tb-sweep.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  fuzz_glib_init ();
  return 0;
}

static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-result: %s: %s\n", what, detail != NULL ? detail : "");
  abort ();
}

static void
check_text (const char *what, const char *text, gsize max)
{
  if (text != NULL && (!g_utf8_validate (text, -1, NULL) || strlen (text) > max))
    fail (what, "not bounded UTF-8");
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  TbRun *run = tb_run_load_data ("fuzz.json", (const char *) data, size, &error);
  GPtrArray *runs;
  TbChartData *chart;
  char *text;

  {
    /* exactly `size` bytes, so a read past them is ASan's to see */
    char *copy = g_memdup2 (data, size);

    (void) tb_sweep_is_sweep_data (copy, size);
    g_free (copy);
  }

  if (run == NULL)
    {
      if (error == NULL || strstr (error->message, "fuzz.json") == NULL)
        fail ("refused without naming the file", error != NULL ? error->message : NULL);
      g_error_free (error);
      return 0;
    }
  if (error != NULL)
    fail ("a run and an error", error->message);
  if (run->run_id == NULL || run->status == NULL || run->epochs == NULL
      || run->loss_curve->len != run->loss_steps->len)
    fail ("a run without its required fields", NULL);
  check_text ("device_name", run->device_name, TB_RUN_MAX_NAME);
  check_text ("os_name", run->os_name, TB_RUN_MAX_NAME);
  check_text ("dataset_name", run->dataset_name, TB_RUN_MAX_NAME);
  check_text ("spec", run->spec, TB_RUN_MAX_TEXT);
  check_text ("error", run->error, TB_RUN_MAX_TEXT);

  (void) tb_run_seconds_per_epoch (run);
  (void) tb_run_final_accuracy (run);
  g_free (tb_run_device_label (run));
  g_free (tb_run_os_label (run));
  (void) tb_run_model_label (run);
  text = tb_run_title (run);
  check_text ("title", text, 4 * TB_RUN_MAX_NAME);
  g_free (text);
  text = tb_run_details (run);
  check_text ("details", text, 8 * TB_RUN_MAX_NAME);
  g_free (text);
  text = tb_run_error_line (run);
  check_text ("error line", text, 300 * 4 + 4);
  g_free (text);

  /* the run id names a file: a plain one, never a device Windows keeps */
  {
    char name[NN_FILE_NAME_MAX];
    size_t stem;

    if (!nn_file_name_from_id (run->run_id, ".json", name, sizeof name))
      fail ("no file name for the run id", run->run_id);
    stem = strcspn (name, ".");
    for (const char *p = name; *p; p++)
      if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_' && *p != '.')
        fail ("a file name with another character", name);
    if (name[0] == '.' || ((stem == 3 || stem == 4)
                           && (g_ascii_strncasecmp (name, "CON", 3) == 0 || g_ascii_strncasecmp (name, "PRN", 3) == 0
                               || g_ascii_strncasecmp (name, "AUX", 3) == 0 || g_ascii_strncasecmp (name, "NUL", 3) == 0
                               || g_ascii_strncasecmp (name, "COM", 3) == 0 || g_ascii_strncasecmp (name, "LPT", 3) == 0)
                           && (stem == 3 || g_ascii_isdigit (name[3]))))
      fail ("a file name Windows keeps", name);
  }

  runs = g_ptr_array_new_with_free_func ((GDestroyNotify) tb_run_unref);
  g_ptr_array_add (runs, run);
  g_ptr_array_add (runs, tb_run_ref (run));

  /* the summary of the same bytes: what the whole run says, without the
   * parts that grow with it */
  {
    GBytes *bytes = g_bytes_new (data, size);
    TbRun *summary = tb_run_load_summary ("fuzz.json", bytes, &error);
    GPtrArray *one = g_ptr_array_new ();
    GPtrArray *other = g_ptr_array_new ();
    char *a, *b;

    g_bytes_unref (bytes);
    if (summary == NULL)
      fail ("a whole run and no summary", error != NULL ? error->message : NULL);
    if (summary->epochs != NULL || summary->loss_curve != NULL || summary->contents != NULL
        || summary->n_epochs != run->epochs->len)
      fail ("a summary that keeps what grows with the run", NULL);
    g_ptr_array_add (one, run);
    g_ptr_array_add (other, summary);
    a = tb_runs_format_csv (one);
    b = tb_runs_format_csv (other);
    if (strcmp (a, b) != 0)
      fail ("a summary's CSV row is not the run's", b);
    g_free (a);
    g_free (b);
    g_ptr_array_unref (one);
    g_ptr_array_unref (other);
    tb_run_unref (summary);
  }

  /* one CSV line per run, whatever the file's text */
  text = tb_runs_format_csv (runs);
  {
    guint lines = 0;
    gboolean quoted = FALSE;

    for (const char *p = text; *p; p++)
      {
        if (*p == '"')
          quoted = !quoted;
        else if (*p == '\n' && !quoted)
          lines++;
      }
    if (lines != 1 + runs->len || quoted)
      fail ("the CSV has other rows than one per run", text);
  }
  g_free (text);

  chart = tb_runs_compare_bars (runs, TB_GROUP_DEVICE);
  tb_chart_data_free (chart);
  chart = tb_runs_compare_bars (runs, TB_GROUP_OS);
  tb_chart_data_free (chart);
  chart = tb_runs_compare_accuracy (runs);
  tb_chart_data_free (chart);
  chart = tb_runs_compare_loss (runs);
  tb_chart_data_free (chart);

  g_ptr_array_unref (runs);
  return 0;
}
