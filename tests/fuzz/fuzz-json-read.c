/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-json-read.c: libFuzzer target for the engine's JSON reader
 * (nn-json-read.c) and the article report over what it reads. Any bytes go
 * in: the reader must refuse them with a message naming the file and a
 * byte offset, or give a tree whose every string is bounded UTF-8 and
 * whose nesting stays within its bound; a tree that is a result file then
 * goes through the report (its claims, its HTML page) as a runs folder's
 * file would.
 */

#include "nn-json-read.h"
#include "nn-report-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-json-read: %s: %s\n", what, detail != NULL ? detail : "");
  abort ();
}

static bool
utf8_valid (const char *s, size_t len)
{
  const unsigned char *p = (const unsigned char *) s;
  size_t i = 0;

  while (i < len)
    {
      unsigned char c = p[i];
      size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                                : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
      if (n == 0 || i + n > len)
        return false;
      for (size_t k = 1; k < n; k++)
        if ((p[i + k] & 0xC0) != 0x80)
          return false;
      i += n;
    }
  return true;
}

/* Walk the tree without recursion deeper than the reader allows. */
static void
walk (const NnJsonDoc *doc, const NnJsonNode *node, int depth)
{
  if (depth > NN_JSON_READ_MAX_DEPTH)
    fail ("nested deeper than the bound", NULL);
  const char *key = _nn_json_key_of (doc, node);
  if (!utf8_valid (key, strlen (key)) || strlen (key) > NN_JSON_READ_MAX_STRING)
    fail ("a key that is not bounded UTF-8", key);
  if (node->kind == NN_JSON_STRING)
    {
      const char *s = _nn_json_string_of (doc, node);
      if (strlen (s) != node->text_len || !utf8_valid (s, node->text_len)
          || node->text_len > NN_JSON_READ_MAX_STRING)
        fail ("a string that is not bounded UTF-8 without NUL", s);
    }
  uint32_t n = 0;
  for (const NnJsonNode *c = _nn_json_child (doc, node); c != NULL; c = _nn_json_next (doc, c))
    {
      walk (doc, c, node->kind == NN_JSON_ARRAY || node->kind == NN_JSON_OBJECT ? depth + 1
                                                                                : depth);
      n++;
    }
  if ((node->kind == NN_JSON_ARRAY || node->kind == NN_JSON_OBJECT) && n != node->count)
    fail ("a container's count is not its children's", NULL);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  NnJsonDoc *doc = NULL;
  NnError error;

  nn_error_clear (&error);
  NnStatus status = _nn_json_parse ((const char *) data, size, "fuzz.json", &doc, &error);
  if (status != NN_OK)
    {
      if (doc != NULL || strstr (error.message, "fuzz.json") == NULL)
        fail ("refused without naming the file", error.message);
      if (status == NN_ERROR_FORMAT && strstr (error.message, "fuzz.json: byte ") == NULL
          && strstr (error.message, "too large") == NULL)
        fail ("a syntax error without its byte offset", error.message);
      return 0;
    }
  if (_nn_json_root (doc) == NULL)
    fail ("a document without a root", NULL);
  walk (doc, _nn_json_root (doc), 1);

  /* as a result file in a report */
  NnReportRun run;
  NnReportHardware hw;
  bool sweep_file = false;
  if (_nn_report_run_from_doc (doc, "fuzz.json", &run, &hw, &sweep_file, &error) == NN_OK
      && !sweep_file)
    {
      char path[] = "fuzz.json";
      NnReport *report = calloc (1, sizeof *report);
      if (report == NULL)
        fail ("out of memory", NULL);
      run.path = path;
      run.dated = run.start_known;
      /* the machine that wrote it: its id, when it records one */
      report->machine.id_count = run.machine_id[0] != '\0';
      snprintf (report->machine.ids[0], sizeof report->machine.ids[0], "%s", run.machine_id);
      snprintf (report->machine.cpu_model, sizeof report->machine.cpu_model, "%s",
                hw.cpu_model);
      snprintf (report->machine.os_name, sizeof report->machine.os_name, "%s", run.os_name);
      snprintf (report->machine.os_version, sizeof report->machine.os_version, "%s",
                run.os_version);
      if (!_nn_report_judge (report, &run, 1))
        fail ("out of memory judging", NULL);
      char *html = nn_report_html (report);
      if (html == NULL)
        fail ("no HTML page", NULL);
      if (strstr (html, "<script") != NULL || !utf8_valid (html, strlen (html)))
        fail ("an HTML page with a script or not UTF-8", NULL);
      free (html);
      nn_report_free (report);
    }
  _nn_json_doc_free (doc);
  return 0;
}
