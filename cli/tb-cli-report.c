/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-report.c: `trainbench-cli report`, the articles' claims against
 * this machine's runs (engine/nn-report.c judges them): a table per claim
 * with the result files its figures come from, then the commands of the
 * missing measurements, the runs of unknown time, the other machines' runs
 * and the files that were skipped; --html and --json write the same report.
 */

#include "tb-cli-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COLUMN 32

/* Files a claim's list names in the text; the rest are counted (the HTML
 * and JSON reports name every one). */
#define FILES_SHOWN 10

/* `text` wrapped at 78 columns, each line after `indent` spaces (the first
 * line's indent is the caller's). */
static void
print_wrapped (const char *text, int indent)
{
  int width = 78 - indent;
  const char *p = text;
  bool first = true;

  while (*p != '\0')
    {
      int len = (int) strlen (p);
      int cut = len;
      if (len > width)
        {
          cut = width;
          while (cut > 0 && p[cut] != ' ')
            cut--;
          if (cut == 0)
            {
              cut = width;
              while (p[cut] != '\0' && p[cut] != ' ')
                cut++;
            }
        }
      if (!first)
        tb_cli_print ("%*s", indent, "");
      tb_cli_print ("%.*s\n", cut, p);
      first = false;
      p += cut;
      while (*p == ' ')
        p++;
    }
  if (first)
    tb_cli_print ("\n");
}

static void
print_row (const char *head, const char *a, const char *b, const char *ratio)
{
  tb_cli_print ("   %-14s%-*s %-*s %s\n", head, COLUMN, a, COLUMN, b, ratio);
}

static void
print_claim (int number, const NnReportClaim *rc)
{
  const NnClaim *c = rc->claim;
  char a[128], b[128], r[64], head[64];

  tb_cli_print ("%d. %s: ", number, c->model);
  print_wrapped (c->text, 3);
  print_row ("", c->first_label, c->second_label,
             c->kind == NN_CLAIM_GPU_VS_CPU ? "GPU speed-up" : "Windows/Linux time");
  nn_report_format_article (c, true, a, sizeof a);
  nn_report_format_article (c, false, b, sizeof b);
  nn_report_format_ratio (c->kind, c->ratio, r, sizeof r);
  snprintf (head, sizeof head, "article");
  print_row (head, a, b, r);
  nn_report_format_measured (rc, true, a, sizeof a);
  nn_report_format_measured (rc, false, b, sizeof b);
  nn_report_format_ratio (c->kind, rc->ratio, r, sizeof r);
  print_row ("this machine", a, b, r);
  for (int s = 0; s < 2; s++)
    {
      const NnReportSide *side = s == 0 ? &rc->first : &rc->second;
      if (!side->measured)
        continue;
      char runs[640];
      snprintf (runs, sizeof runs, "%s: %s, %s; median of %d run%s, newest %s%s",
                s == 0 ? c->first_label : c->second_label, side->device, side->os,
                (int) side->runs, side->runs == 1 ? "" : "s", side->newest,
                side->newest_undated ? " (start time unknown)" : "");
      tb_cli_print ("   %-14s", s == 0 || !rc->first.measured ? "runs" : "");
      print_wrapped (runs, 17);
    }
  tb_cli_print ("   %-14s%s\n", "verdict", nn_verdict_name (rc->verdict));
  tb_cli_print ("   %-14s", "reason");
  print_wrapped (rc->reason, 17);
  /* the files the figures come from, a path a line: a path is not wrapped */
  const char *row = "files";
  for (int s = 0; s < 3; s++)
    {
      const char *label = s == 0 ? c->first_label : s == 1 ? c->second_label : "reason";
      char **files = s == 0 ? rc->first.files : s == 1 ? rc->second.files : rc->reason_files;
      int32_t count = s == 0 ? rc->first.file_count
                    : s == 1 ? rc->second.file_count : rc->reason_file_count;
      for (int32_t i = 0; i < count && i < FILES_SHOWN; i++)
        {
          tb_cli_print ("   %-14s%s%-*s%s\n", row, i == 0 ? label : "",
                        i == 0 ? 2 : (int) strlen (label) + 2, i == 0 ? ":" : "", files[i]);
          row = "";
        }
      if (count > FILES_SHOWN)
        tb_cli_print ("   %-14s%*sand %d more (--json and --html name them all)\n", "",
                      (int) strlen (label) + 2, "", (int) (count - FILES_SHOWN));
    }
  tb_cli_print ("\n");
}

/* The machines of --machine FILE, given once or more: the first is the
 * machine, the others its other OS installations. Exits on a usage error. */
static void
machine_of_files (const TbCliArgs *args, NnReportMachine *machine)
{
  const char *files[NN_REPORT_MACHINE_IDS_MAX + 1];
  int n = tb_cli_arg_all (args, "machine", files, NN_REPORT_MACHINE_IDS_MAX + 1);
  NnError error;

  nn_error_clear (&error);
  if (n > NN_REPORT_MACHINE_IDS_MAX)
    tb_cli_usage_error ("report", "--machine: given %d times; a machine has at most %d ids", n,
                        NN_REPORT_MACHINE_IDS_MAX);
  for (int i = 0; i < n; i++)
    if ((i == 0 ? nn_report_machine_from_file (files[i], machine, &error)
                : nn_report_machine_add_file (machine, files[i], &error)) != NN_OK)
      tb_cli_usage_error ("report", "--machine: %s", error.message);
}

int
tb_cli_cmd_report (int argc, char **argv)
{
  TbCliArgs args;
  const char **paths = calloc ((size_t) argc + 1, sizeof *paths);
  char **rest = calloc ((size_t) argc + 1, sizeof *rest);
  int n_paths = 0, n_rest = 0;
  char runs_dir[4096];

  if (paths == NULL || rest == NULL)
    {
      tb_cli_error ("out of memory");
      return TB_CLI_EXIT_FAILED;
    }
  /* --runs takes every argument up to the next option (as the app's
   * --runs does), and may be given again; the other options go to the
   * usual parser. */
  for (int i = 0; i < argc; i++)
    {
      if (strncmp (argv[i], "--runs=", 7) == 0)
        {
          if (argv[i][7] == '\0')
            tb_cli_usage_error ("report", "--runs: the value is empty (expected DIR|FILE)");
          paths[n_paths++] = argv[i] + 7;
          continue;
        }
      if (strcmp (argv[i], "--runs") != 0)
        {
          rest[n_rest++] = argv[i];
          continue;
        }
      int before = n_paths;
      while (i + 1 < argc && strncmp (argv[i + 1], "--", 2) != 0)
        {
          if (argv[i + 1][0] == '\0')
            tb_cli_usage_error ("report", "--runs: the value is empty (expected DIR|FILE)");
          paths[n_paths++] = argv[++i];
        }
      if (n_paths == before)
        tb_cli_usage_error ("report", "--runs needs a value (DIR|FILE)");
    }
  tb_cli_args_parse (&args, "report", tb_cli_report_options, n_rest, rest);
  if (n_paths == 0)
    {
      nn_runs_dir (runs_dir, sizeof runs_dir);
      paths[n_paths++] = runs_dir;
    }

  NnReportMachine machine;
  NnError error;
  nn_error_clear (&error);
  if (tb_cli_arg (&args, "machine") != NULL)
    machine_of_files (&args, &machine);
  else
    {
      nn_blas_init ();
      nn_report_machine_here (&machine);
    }

  NnReport *report = NULL;
  if (nn_report_build (paths, n_paths, &machine, &report, &error) != NN_OK)
    {
      tb_cli_error ("%s", error.message);
      free (paths);
      free (rest);
      return TB_CLI_EXIT_FAILED;
    }
  free (paths);
  free (rest);

  for (int i = 0; i < report->skipped_count; i++)
    tb_cli_error ("skipped: %s", report->skipped[i].why);
  if (report->skipped_more > 0)
    tb_cli_error ("skipped: %d more files, not listed", (int) report->skipped_more);

  int not_read = report->skipped_count + report->skipped_more;
  char read[256];
  snprintf (read, sizeof read, "Read %d result file%s, %d of them this machine's (by the machine "
            "id they record)", (int) report->files_read, report->files_read == 1 ? "" : "s",
            (int) report->runs_here);
  if (not_read > 0)
    snprintf (read + strlen (read), sizeof read - strlen (read), "; %d file%s not read "
              "(listed on stderr)", not_read, not_read == 1 ? "" : "s");
  tb_cli_print ("The articles' claims on this machine: %s\n", report->machine_label);
  print_wrapped (read, 0);
  if (report->machine.id_count == 0)
    {
      char why[NN_ERROR_MESSAGE_MAX + 64];
      snprintf (why, sizeof why, "This machine has no machine id, so no run is its own: %s",
                report->machine.id_why);
      print_wrapped (why, 0);
    }
  tb_cli_print ("Ratios are compared, not seconds: the articles ran Keras on a laptop.\n\n");
  for (int i = 0; i < report->claim_count; i++)
    print_claim (i + 1, &report->claims[i]);

  bool any = false;
  for (int i = 0; i < report->claim_count; i++)
    for (int s = 0; s < 2; s++)
      {
        const NnReportClaim *rc = &report->claims[i];
        const NnReportSide *side = s == 0 ? &rc->first : &rc->second;
        if (side->measured || side->command[0] == '\0')
          continue;
        if (!any)
          tb_cli_print ("Missing measurements:\n");
        any = true;
        tb_cli_print ("  %s\n      claim %d, %s: ", side->command, i + 1,
                s == 0 ? rc->claim->first_label : rc->claim->second_label);
        print_wrapped (side->why, 6);
      }
  if (any)
    tb_cli_print ("\n");

  if (report->undated_count > 0)
    {
      tb_cli_print ("Runs of unknown time (never the newest while a run with a time is there):\n");
      for (int i = 0; i < report->undated_count; i++)
        {
          const NnReportUndated *u = &report->undated[i];
          tb_cli_print ("  %s, started %s\n      %s\n      %s\n", u->run_id, u->started_at,
                        u->why, u->path);
        }
      if (report->undated_more > 0)
        tb_cli_print ("  and %d more, not listed\n", (int) report->undated_more);
      tb_cli_print ("\n");
    }

  if (report->other_count > 0)
    {
      tb_cli_print ("Runs of other machines or operating systems (not counted as this "
                    "machine's):\n");
      for (int i = 0; i < report->other_count; i++)
        {
          const NnReportOther *o = &report->others[i];
          char sec[32] = "-";
          if (isfinite (o->epoch_seconds))
            snprintf (sec, sizeof sec, "%.3g s per epoch", o->epoch_seconds);
          char apart[1024];
          tb_cli_print ("  %s  %s, %s, %s, %s\n      ", o->run_id,
                        o->preset[0] != '\0' ? o->preset : "custom", o->device, o->status, sec);
          snprintf (apart, sizeof apart, "%s: %s", o->why, o->machine);
          print_wrapped (apart, 6);
          tb_cli_print ("      %s\n", o->path);
        }
      if (report->others_more > 0)
        tb_cli_print ("  and %d more, not listed\n", (int) report->others_more);
      tb_cli_print ("\n");
    }

  int status = TB_CLI_EXIT_OK;
  const char *html = tb_cli_arg (&args, "html");
  const char *json = tb_cli_arg (&args, "json");
  if (html != NULL)
    {
      if (nn_report_write_html (report, html, &error) != NN_OK)
        {
          tb_cli_error ("%s", error.message);
          status = TB_CLI_EXIT_FAILED;
        }
      else
        tb_cli_print ("HTML report: %s\n", html);
    }
  if (json != NULL)
    {
      if (nn_report_write_json (report, json, &error) != NN_OK)
        {
          tb_cli_error ("%s", error.message);
          status = TB_CLI_EXIT_FAILED;
        }
      else
        tb_cli_print ("JSON report: %s\n", json);
    }
  nn_report_free (report);
  return status;
}
