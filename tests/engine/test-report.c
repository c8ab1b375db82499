/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-report.c: the JSON reader (nn-json-read.c) against hostile text, and
 * the article report (nn-report.c) against the fixture runs of
 * tests/data/report: which runs are this machine's (by machine id, never
 * by the hardware a file names), each verdict, the reasons from breakdowns
 * and conditions, the files each figure rests on, runs dated in the
 * future, the missing runs' commands, the HTML page's escaping; folders of
 * more than 20,000 files, links in sweeps/, times beyond what a result may
 * claim and an empty runs folder.
 */

#ifndef _WIN32
#define _DEFAULT_SOURCE /* symlink */
#endif

#include "test-util.h"
#include "nn-json-read.h"
#include "nn-os.h"
#include "nn-report-private.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <unistd.h>
#endif

#define RUNS FIXTURES_DIR "/report/runs"
#define HOSTILE FIXTURES_DIR "/report/hostile"
#define FOREIGN_WINDOWS FIXTURES_DIR "/report/foreign-windows"

/* The machine ids of the fixtures: this machine's runs (and its wine
 * runs); another laptop of the same CPU model. */
#define HERE_ID "5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8b"
#define SAME_MODEL_ID "f0e1d2c3b4a5968778695a4b3c2d1e0f"

static NnStatus
parse (const char *text, NnJsonDoc **doc, NnError *error)
{
  nn_error_clear (error);
  return _nn_json_parse (text, strlen (text), "t.json", doc, error);
}

static void
refused (const char *text, const char *what, const char *expect)
{
  NnJsonDoc *doc = NULL;
  NnError error;
  NnStatus status = parse (text, &doc, &error);
  tap_ok (status == NN_ERROR_FORMAT && doc == NULL && strstr (error.message, "t.json: byte ")
          && strstr (error.message, expect) != NULL,
          "refused: %s (%s)", what, error.message);
}

static void
test_reader (void)
{
  NnJsonDoc *doc = NULL;
  NnError error;

  tap_ok (parse ("{\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\"], "
                 "\"b\": {}, \"a2\": []}", &doc, &error) == NN_OK, "a document parses");
  const NnJsonNode *root = _nn_json_root (doc);
  const NnJsonNode *a = _nn_json_get (doc, root, "a");
  tap_ok (a != NULL && a->kind == NN_JSON_ARRAY && a->count == 6, "an array of six");
  const NnJsonNode *e = _nn_json_child (doc, a);
  tap_ok (e->kind == NN_JSON_NUMBER && e->number == 1, "first element 1");
  e = _nn_json_next (doc, e);
  tap_ok (e->number == -2500, "-2.5e3");
  e = _nn_json_next (doc, _nn_json_next (doc, _nn_json_next (doc, _nn_json_next (doc, e))));
  tap_ok (e != NULL && strcmp (_nn_json_string_of (doc, e), "x\xc3\xa9\xf0\x9f\x98\x80") == 0,
          "escapes decode to UTF-8, surrogate pairs too");
  tap_ok (_nn_json_next (doc, e) == NULL, "the array ends");
  tap_ok (_nn_json_get (doc, root, "b")->kind == NN_JSON_OBJECT
          && _nn_json_get (doc, root, "missing") == NULL, "members by name");
  _nn_json_doc_free (doc);

  tap_ok (parse ("{\"k\": 1, \"k\": 2}", &doc, &error) == NN_OK
          && _nn_json_get_number (doc, _nn_json_root (doc), "k", 0) == 2,
          "of a key given twice, the last counts");
  _nn_json_doc_free (doc);

  /* numbers do not depend on the C locale */
  const char *old = setlocale (LC_NUMERIC, NULL);
  char saved[256];
  snprintf (saved, sizeof saved, "%s", old != NULL ? old : "C");
  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") != NULL || setlocale (LC_NUMERIC, "fr_FR.UTF-8"))
    {
      tap_ok (parse ("[0.25]", &doc, &error) == NN_OK
              && _nn_json_child (doc, _nn_json_root (doc))->number == 0.25,
              "0.25 reads as 0.25 in a locale with a decimal comma");
      _nn_json_doc_free (doc);
    }
  else
    tap_skip ("no locale with a decimal comma installed", "numbers in a decimal-comma locale");
  setlocale (LC_NUMERIC, saved);

  refused ("", "empty text", "no JSON value");
  refused ("{\"a\": 1", "unclosed object", "ends inside");
  refused ("{\"a\" 1}", "missing colon", "expected ':'");
  refused ("[1, 2,]", "trailing comma", "expected a value");
  refused ("[01]", "leading zero", "expected ',' or ']'");
  refused ("[1.]", "point without digits", "after its point");
  refused ("[1e999]", "a number too large", "too large");
  refused ("[\"a\tb\"]", "a tab in a string", "control character");
  refused ("[\"\\ud800\"]", "a lone surrogate", "surrogate");
  refused ("[\"\\u0000\"]", "an escaped NUL", "NUL");
  refused ("[\"\xc0\xaf\"]", "an overlong UTF-8 form", "not UTF-8");
  refused ("[\"\xed\xa0\x80\"]", "a UTF-8 surrogate", "not UTF-8");
  refused ("[\"\\x\"]", "an unknown escape", "unknown escape");
  refused ("[tru]", "a cut word", "expected a value");
  refused ("{} x", "text after the value", "text after");
  refused ("{1: 2}", "an unquoted key", "quoted key");

  /* nesting: 64 levels parse, 65 do not, 100,000 do not crash */
  char deep[200001];
  for (int levels = 64; levels <= 65; levels++)
    {
      memset (deep, '[', (size_t) levels);
      memset (deep + levels, ']', (size_t) levels);
      deep[2 * levels] = '\0';
      NnStatus status = parse (deep, &doc, &error);
      tap_ok (levels == 64 ? status == NN_OK : status == NN_ERROR_FORMAT
                                                 && strstr (error.message, "64 levels") != NULL,
              "%d levels of nesting: %s", levels, levels == 64 ? "read" : error.message);
      _nn_json_doc_free (doc);
      doc = NULL;
    }
  memset (deep, '[', 100000);
  deep[100000] = '\0';
  tap_ok (parse (deep, &doc, &error) == NN_ERROR_FORMAT && strstr (error.message, "byte 64"),
          "100,000 levels stop at byte 64: %s", error.message);

  /* a string longer than the bound */
  size_t n = NN_JSON_READ_MAX_STRING + 10;
  char *big = malloc (n + 5);
  big[0] = '[';
  big[1] = '"';
  memset (big + 2, 'a', n);
  big[n + 2] = '"';
  big[n + 3] = ']';
  big[n + 4] = '\0';
  tap_ok (parse (big, &doc, &error) == NN_ERROR_FORMAT && strstr (error.message, "longer than"),
          "an over-long string: %s", error.message);
  free (big);

  /* more values than the bound: refused, not grown without end */
  size_t values = NN_JSON_READ_MAX_NODES;
  char *many = malloc (2 * values + 3);
  many[0] = '[';
  for (size_t i = 0; i < values; i++)
    {
      many[1 + 2 * i] = '0';
      many[2 + 2 * i] = ',';
    }
  many[2 * values + 1] = '0';
  many[2 * values + 2] = ']';
  big = realloc (many, 2 * values + 4);
  big[2 * values + 3] = '\0';
  tap_ok (parse (big, &doc, &error) == NN_ERROR_FORMAT && strstr (error.message, "more than"),
          "more values than the bound: %s", error.message);
  free (big);

  nn_error_clear (&error);
  tap_ok (_nn_json_read_file (HOSTILE "/missing.json", &doc, &error) == NN_ERROR_IO
          && strstr (error.message, "missing.json") != NULL, "a missing file: %s", error.message);
}

static NnReportMachine
fixture_machine (void)
{
  NnReportMachine m;
  memset (&m, 0, sizeof m);
  m.id_count = 1;
  snprintf (m.ids[0], sizeof m.ids[0], HERE_ID);
  snprintf (m.os_name, sizeof m.os_name, "Debian GNU/Linux");
  snprintf (m.os_version, sizeof m.os_version, "12 (bookworm)");
  snprintf (m.cpu_model, sizeof m.cpu_model, "Test CPU 9000");
  m.gpus_known = true;
  m.gpu_count = 1;
  snprintf (m.gpus[0], sizeof m.gpus[0], "Test GPU X1");
  return m;
}

static const NnReportClaim *
claim (const NnReport *r, const char *id)
{
  for (int i = 0; i < r->claim_count; i++)
    if (strcmp (r->claims[i].claim->id, id) == 0)
      return &r->claims[i];
  return NULL;
}

/* Whether file i of `files` is the fixture `name`. */
static bool
file_is (char **files, int32_t count, int32_t i, const char *name)
{
  if (i >= count)
    return false;
  size_t n = strlen (files[i]), k = strlen (name);
  return n > k && strcmp (files[i] + n - k, name) == 0
         && (files[i][n - k - 1] == '/' || files[i][n - k - 1] == '\\');
}

static bool
files_have (char **files, int32_t count, const char *name)
{
  for (int32_t i = 0; i < count; i++)
    if (file_is (files, count, i, name))
      return true;
  return false;
}

static const NnReportOther *
other (const NnReport *r, const char *file)
{
  for (int i = 0; i < r->other_count; i++)
    if (strstr (r->others[i].path, file) != NULL)
      return &r->others[i];
  return NULL;
}

static void
test_claims_table (void)
{
  int count = 0;
  const NnClaim *c = nn_claims (&count);

  tap_ok (count == 4, "four claims");
  tap_ok (c[0].first == 52 && c[0].second == 123 && c[0].epochs == 10
          && strcmp (c[0].preset, "mlp-small") == 0 && c[0].ratio < 1,
          "claim 1: CPU 52 s, GPU 123 s, 10 epochs, the GPU slower");
  tap_ok (c[1].first == 390 && c[1].second == 224 && c[1].ratio > 1, "claim 2: 390 s, 224 s");
  tap_ok (c[2].first == 162 && c[2].second == 20 && c[2].per_epoch, "claim 3: per epoch");
  tap_close (c[3].ratio, 20.0 / 3.0, 1e-12, 0, "claim 4: Windows 20 min against 3 min");
  for (int i = 0; i < count; i++)
    tap_ok (strcmp (c[i].hardware, "a laptop") == 0 && nn_preset_find (c[i].preset) != NULL,
            "claim %d: on a laptop, of a known preset", i + 1);
}

static void
test_formats (void)
{
  static const struct
  {
    double x;
    const char *text;
  } times[] = {
    { 0.42, "0.42x" }, { 2.371, "2.37x" }, { 12.54, "12.5x" }, { 480.4, "480x" },
    { 9999.4, "9999x" }, { 10000, "1.0e4x" }, { 3.15e16, "3.2e16x" }, { 1e300, "1.0e300x" },
    { 0.004, "4.0e-3x" }, { NAN, "-" }, { 0, "-" }, { -2, "-" },
  };
  char out[64];

  for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
    {
      nn_report_format_times (times[i].x, out, sizeof out);
      tap_ok (strcmp (out, times[i].text) == 0, "%g as a factor: %s (got %s)", times[i].x,
              times[i].text, out);
    }
  nn_report_format_ratio (NN_CLAIM_GPU_VS_CPU, 3.15e16, out, sizeof out);
  tap_ok (strcmp (out, "GPU 3.2e16x faster") == 0, "a ratio of 3.15e16 in words: %s", out);
  nn_report_format_ratio (NN_CLAIM_WINDOWS_VS_LINUX, 1e-20, out, sizeof out);
  tap_ok (strcmp (out, "Windows 1.0e20x faster") == 0, "a ratio of 1e-20 in words: %s", out);

  int64_t t = 0;
  tap_ok (_nn_report_parse_time ("1970-01-01T00:00:00Z", &t) && t == 0, "the epoch is 0");
  tap_ok (_nn_report_parse_time ("2026-12-03T08:05:00Z", &t) && t == 1796285100,
          "2026-12-03T08:05:00Z (got %lld)", (long long) t);
  tap_ok (_nn_report_parse_time ("2024-02-29T23:59:60Z", &t) && t == 1709251200,
          "a leap day and a leap second");
  tap_ok (_nn_report_parse_time ("2999-12-31T00:00:00Z", &t) && t == 32503593600,
          "the year 2999");
  static const char *const not_times[] = {
    "", "2026-12-03", "2026-12-03T08:05:00", "2026-13-03T08:05:00Z", "2026-02-30T08:05:00Z",
    "2026-12-03T24:00:00Z", "2026-12-03T08:05:00+01:00", "+026-12-03T08:05:00Z",
  };
  for (size_t i = 0; i < sizeof not_times / sizeof not_times[0]; i++)
    tap_ok (!_nn_report_parse_time (not_times[i], &t), "not a start time: \"%s\"", not_times[i]);
}

static void
test_report (void)
{
  NnReportMachine m = fixture_machine ();
  const char *paths[] = { RUNS, HOSTILE };
  NnReport *r = NULL;
  NnError error;

  nn_error_clear (&error);
  tap_ok (nn_report_build (paths, 2, &m, &r, &error) == NN_OK && r != NULL, "the report builds");
  if (r == NULL)
    return;

  /* 21 runs and the sweep's point; sweep.json is no run and no skip */
  tap_ok (r->files_read == 22, "22 result files read (got %d)", (int) r->files_read);
  tap_ok (r->runs_here == 19, "19 of them this machine's, wine's and the sweep's among them "
          "(got %d)",
          (int) r->runs_here);
  tap_ok (r->skipped_count == 8 && r->skipped_more == 0, "8 hostile files skipped (got %d)",
          (int) r->skipped_count);
  for (int i = 0; i < r->skipped_count; i++)
    tap_ok (strstr (r->skipped[i].why, r->skipped[i].path) != NULL
            && strstr (r->skipped[i].path, "hostile") != NULL,
            "skipped with a message naming the file: %s", r->skipped[i].why);
  bool beyond = false;
  for (int i = 0; i < r->skipped_count; i++)
    beyond = beyond || (strstr (r->skipped[i].why, "seconds-1e300.json: epochs[0].seconds is "
                                                   "1e+300 s") != NULL
                        && strstr (r->skipped[i].why, "a year") != NULL);
  tap_ok (beyond, "an epoch of 1e300 s is no time a result may claim: the file is skipped, "
          "the field named");

  const NnReportClaim *c1 = claim (r, "mlp-small-gpu-slower");
  tap_ok (c1->verdict == NN_VERDICT_HOLDS, "claim 1 holds here");
  tap_close (c1->first.epoch_seconds, 5.0, 1e-12, 0, "claim 1 CPU: the median of three runs");
  tap_ok (c1->first.runs == 3 && strstr (c1->first.device, "2 threads") != NULL,
          "claim 1 CPU: the newest run's thread count only (%s), not the one dated 2999's",
          c1->first.device);
  tap_ok (strcmp (c1->first.newest, "20261203T080003Z-mlp-small-cpu-0003") == 0
          && !c1->first.newest_undated, "claim 1 CPU: the newest run has a time (%s)",
          c1->first.newest);
  tap_close (c1->first.seconds, 50.0, 1e-12, 0, "claim 1 CPU: scaled to the article's 10 epochs");
  tap_close (c1->second.epoch_seconds, 8.0, 1e-12, 0,
             "claim 1 GPU: the default-conditions run, not the article's, a cut one, a failed "
             "one or another machine's");
  tap_close (c1->ratio, 5.0 / 8.0, 1e-12, 0, "claim 1 ratio: CPU time over GPU time");
  tap_ok (c1->first.file_count == 3
          && file_is (c1->first.files, 3, 0, "here-mlp-small-cpu-3.json")
          && file_is (c1->first.files, 3, 1, "here-mlp-small-cpu-2.json")
          && file_is (c1->first.files, 3, 2, "here-mlp-small-cpu-1.json"),
          "claim 1 CPU: the three files its median comes from, the newest first");
  tap_ok (c1->second.file_count == 1
          && file_is (c1->second.files, 1, 0, "here-mlp-small-cuda.json"),
          "claim 1 GPU: its one file");
  tap_ok (strstr (c1->reason, "busy 12 %") && strstr (c1->reason, "host-bound"),
          "claim 1 reason: the GPU's busy share from the breakdown (%s)", c1->reason);
  tap_ok (strstr (c1->reason, "matrix products take 60 %") != NULL,
          "claim 1 reason: the CPU's largest part");
  tap_ok (strstr (c1->reason, "article's conditions") && strstr (c1->reason, "0.42x")
          && strstr (c1->reason, "it loses then"),
          "claim 1 reason: the GPU under the article's conditions");
  tap_ok (strstr (c1->reason, "pageable host memory every batch costs most (1.25x")
          && strstr (c1->reason, "CUDA graph (1.12x)"),
          "claim 1 reason: which single switch costs most");
  int32_t n = c1->reason_file_count;
  tap_ok (n == 5 && files_have (c1->reason_files, n, "here-mlp-small-cuda.json")
          && files_have (c1->reason_files, n, "here-mlp-small-cpu-3.json")
          && files_have (c1->reason_files, n, "here-mlp-small-cuda-article.json")
          && files_have (c1->reason_files, n, "here-mlp-small-cuda-pageable.json")
          && files_have (c1->reason_files, n, "here-mlp-small-cuda-no-graph.json"),
          "claim 1 reason: the files of its breakdowns and conditions (%d)", (int) n);

  const NnReportClaim *c2 = claim (r, "mlp-wide-gpu-faster");
  tap_ok (c2->verdict == NN_VERDICT_DOES_NOT_HOLD,
          "claim 2 does not hold here: the newer GPU run of a file without a machine id does "
          "not count");
  tap_close (c2->ratio, 0.8, 1e-12, 0, "claim 2 ratio 0.8");
  tap_ok (strstr (c2->reason, "no breakdown") != NULL, "claim 2 reason: no breakdown recorded");

  const NnReportClaim *c3 = claim (r, "cnn-gpu-8x");
  tap_ok (c3->verdict == NN_VERDICT_NOT_MEASURED && c3->first.measured && !c3->second.measured
          && isnan (c3->ratio),
          "claim 3 is not measured yet: the whole GPU run of another laptop of this CPU model, "
          "GPU and OS does not measure it");
  tap_ok (strcmp (c3->second.command, "trainbench-cli train --preset cnn --device cuda:0") == 0,
          "claim 3: the command that would measure it");
  tap_ok (strstr (c3->second.why, "cut short: 10 of 235 steps") != NULL,
          "claim 3: why the cut run does not count (%s)", c3->second.why);
  tap_ok (c3->second.file_count == 0, "claim 3 GPU: no file");

  const NnReportClaim *c4 = claim (r, "cnn-windows-slower");
  tap_ok (c4->verdict == NN_VERDICT_HOLDS, "claim 4 holds here");
  tap_close (c4->ratio, 3.0, 1e-12, 0, "claim 4: like with like, 2 threads on both sides");
  tap_ok (strstr (c4->first.os, "Windows 7 under wine 8.0") != NULL,
          "claim 4: the wine run labelled so (%s)", c4->first.os);
  tap_ok (file_is (c4->first.files, c4->first.file_count, 0, "wine-cnn-cpu.json")
          && file_is (c4->second.files, c4->second.file_count, 0, "here-cnn-cpu.json"),
          "claim 4: the wine run's file and the Linux run's");
  tap_ok (strstr (c4->reason, "The GPU half") != NULL && strstr (c4->reason, "NVIDIA GPU") != NULL, "claim 4: the GPU half is said");

  const NnReportOther *co = other (r, "other-mlp-small-cuda.json");
  const NnReportOther *same = other (r, "foreign-same-model-cnn-cuda.json");
  const NnReportOther *no_id = other (r, "no-id-mlp-wide-cuda.json");
  const NnReportOther *wine = other (r, "wine-cnn-cpu.json");
  tap_ok (co != NULL && strstr (co->machine, "Co's CPU") != NULL
          && strcmp (co->why, "another machine (9a8b7c6d)") == 0,
          "another machine's run listed apart, said so (%s)", co != NULL ? co->why : "");
  tap_ok (same != NULL && strstr (same->machine, "Test CPU 9000, Test GPU X1, Debian") != NULL
          && strcmp (same->why, "another machine (f0e1d2c3)") == 0,
          "the same model's run is another machine's (%s)", same != NULL ? same->why : "");
  tap_ok (no_id != NULL && strstr (no_id->why, "no machine id recorded") != NULL,
          "a run without a machine id is never this machine's (%s)",
          no_id != NULL ? no_id->why : "");
  tap_ok (wine != NULL && strstr (wine->machine, "under wine") != NULL
          && strcmp (wine->why, "this machine under another OS") == 0,
          "the wine runs are this machine's under another OS");
  tap_ok (r->other_count == 5 && r->others_more == 0, "five runs listed apart (got %d)",
          (int) r->other_count);

  tap_ok (r->undated_count == 1 && strstr (r->undated[0].path, "here-mlp-small-cpu-future.json")
          && strcmp (r->undated[0].started_at, "2999-12-31T00:00:00Z") == 0
          && strstr (r->undated[0].why, "ahead of this machine's clock") != NULL,
          "the run started in 2999 is of unknown time, and said so");
  tap_ok (strstr (r->machine_label, "(machine 5e1f0c2a)") != NULL, "the machine's label: %s",
          r->machine_label);

  char *html = nn_report_html (r);
  tap_ok (html != NULL && strstr (html, "<script") == NULL && strstr (html, "<b>") == NULL
          && strstr (html, "&lt;script&gt;alert(&quot;x&quot;)") != NULL
          && strstr (html, "Co&#39;s CPU") != NULL,
          "the HTML page escapes what the files say");
  tap_ok (html != NULL && strstr (html, "http://") == strstr (html, "http://www.w3.org/2000/svg")
          && strstr (html, "src=") == NULL && strstr (html, "<link") == NULL,
          "the HTML page fetches nothing");
  tap_ok (html != NULL && strstr (html, "<svg") != NULL && strstr (html, "holds here") != NULL
          && strstr (html, "does not hold here") != NULL
          && strstr (html, "not measured yet") != NULL, "the page has charts and each verdict");
  tap_ok (html != NULL && strstr (html, "here-mlp-small-cpu-3.json") != NULL
          && strstr (html, "here-mlp-small-cuda-pageable.json") != NULL
          && strstr (html, "another machine (f0e1d2c3)") != NULL
          && strstr (html, "2999-12-31T00:00:00Z") != NULL,
          "the page names the files of each figure, why runs are apart, the undated run");
  free (html);

  const char *json = test_path ("report.json");
  nn_error_clear (&error);
  tap_ok (nn_report_write_json (r, json, &error) == NN_OK, "the JSON report is written");
  NnJsonDoc *doc = NULL;
  tap_ok (_nn_json_read_file (json, &doc, &error) == NN_OK
          && strcmp (_nn_json_get_string (doc, _nn_json_root (doc), "kind", ""),
                     "trainbench-report") == 0, "and reads back");
  if (doc != NULL)
    {
      const NnJsonNode *claims = _nn_json_get (doc, _nn_json_root (doc), "claims");
      const NnJsonNode *first = _nn_json_child (doc, claims);
      const NnJsonNode *cpu = _nn_json_get (doc, first, "cpu");
      const NnJsonNode *files = _nn_json_get (doc, cpu, "files");
      const NnJsonNode *f0 = _nn_json_child (doc, files);
      tap_ok (files != NULL && files->count == 3 && f0 != NULL
              && strstr (_nn_json_string_of (doc, f0), "here-mlp-small-cpu-3.json") != NULL,
              "the JSON names claim 1's CPU files");
      const NnJsonNode *reason_files = _nn_json_get (doc, first, "reason_files");
      tap_ok (reason_files != NULL && reason_files->count == 5, "and its reason's");
      const NnJsonNode *undated = _nn_json_get (doc, _nn_json_root (doc), "undated_runs");
      tap_ok (undated != NULL && undated->count == 1, "and the undated run");
    }
  _nn_json_doc_free (doc);
  nn_report_free (r);

  /* another machine: none of the fixture runs is its own, whatever
   * hardware it has */
  NnReportMachine another = m;
  snprintf (another.ids[0], sizeof another.ids[0], "00000000000000000000000000000001");
  const char *one[] = { RUNS };
  tap_ok (nn_report_build (one, 1, &another, &r, &error) == NN_OK && r->runs_here == 0
          && r->claims[0].verdict == NN_VERDICT_NOT_MEASURED
          && r->claims[3].verdict == NN_VERDICT_NOT_MEASURED
          && r->other_count == r->files_read,
          "on another machine of the same CPU, GPU and OS nothing is measured and every run is "
          "listed apart");
  nn_report_free (r);

  /* a machine without an id: nothing is its own */
  NnReportMachine none = m;
  none.id_count = 0;
  r = NULL;
  NnStatus status = nn_report_build (one, 1, &none, &r, &error);
  tap_ok (status == NN_OK && r->runs_here == 0
          && r->claims[0].verdict == NN_VERDICT_NOT_MEASURED
          && strstr (r->machine_label, "(no machine id)") != NULL,
          "a machine with no id has no runs: %s", r->machine_label);
  nn_report_free (r);
}

/* Another laptop of the same CPU model under Windows 10: before machine
 * ids its one file made the Windows claim "holds here". */
static void
test_foreign_windows (void)
{
  NnReportMachine m = fixture_machine ();
  const char *paths[] = { FOREIGN_WINDOWS };
  NnReport *r = NULL;
  NnError error;

  nn_error_clear (&error);
  tap_ok (nn_report_build (paths, 1, &m, &r, &error) == NN_OK, "a report of a Linux run and a "
          "foreign Windows run");
  if (r == NULL)
    return;
  const NnReportClaim *c4 = claim (r, "cnn-windows-slower");
  tap_ok (c4->verdict == NN_VERDICT_NOT_MEASURED && !c4->first.measured && c4->second.measured,
          "claim 4 is not measured: the Windows run of the same CPU model is another machine's "
          "(%s)", nn_verdict_name (c4->verdict));
  const NnReportOther *o = other (r, "foreign-same-model-windows-cnn-cpu.json");
  tap_ok (o != NULL && strcmp (o->why, "another machine (f0e1d2c3)") == 0,
          "and it is listed apart as another machine's");
  nn_report_free (r);

  /* the same machine's Windows installation, named with --machine twice:
   * its runs are this machine's */
  NnReportMachine both;
  tap_ok (nn_report_machine_from_file (FOREIGN_WINDOWS "/here-cnn-cpu-linux.json", &both,
                                       &error) == NN_OK
          && nn_report_machine_add_file (&both, FOREIGN_WINDOWS
                                         "/foreign-same-model-windows-cnn-cpu.json", &error)
               == NN_OK
          && both.id_count == 2 && strcmp (both.ids[1], SAME_MODEL_ID) == 0
          && strcmp (both.os_name, "Debian GNU/Linux") == 0,
          "a second machine file adds its id; the OS stays the first's");
  tap_ok (nn_report_machine_add_file (&both, FOREIGN_WINDOWS "/here-cnn-cpu-linux.json", &error)
          == NN_OK && both.id_count == 2, "an id given twice counts once");
  tap_ok (nn_report_build (paths, 1, &both, &r, &error) == NN_OK
          && claim (r, "cnn-windows-slower")->verdict == NN_VERDICT_HOLDS && r->runs_here == 2,
          "with both ids the Windows claim is measured: one machine, two OSes");
  nn_report_free (r);
}

static void
test_machine_files (void)
{
  NnReportMachine from;
  NnError error;

  nn_error_clear (&error);
  tap_ok (nn_report_machine_from_file (RUNS "/here-mlp-small-cuda.json", &from, &error) == NN_OK
          && strcmp (from.cpu_model, "Test CPU 9000") == 0 && from.gpus_known
          && from.gpu_count == 1 && from.id_count == 1 && strcmp (from.ids[0], HERE_ID) == 0,
          "the machine of a GPU run's file, with its id");
  nn_error_clear (&error);
  tap_ok (nn_report_machine_from_file (RUNS "/no-id-mlp-wide-cuda.json", &from, &error)
          == NN_ERROR_FORMAT && strstr (error.message, "no-id-mlp-wide-cuda.json")
          && strstr (error.message, "records no machine id"),
          "a file without a machine id names no machine: %s", error.message);
  NnReportMachine m = fixture_machine ();
  nn_error_clear (&error);
  tap_ok (nn_report_machine_add_file (&m, RUNS "/no-id-mlp-wide-cuda.json", &error)
          == NN_ERROR_FORMAT && m.id_count == 1, "nor adds one");
}

/* A copy of the fixture runs folder, its sweeps too, into `dest`. */
static void
copy_folder (const char *from, const char *dest)
{
  char **names = NULL;
  size_t count = 0;
  char a[4096], b[4096];

  test_make_folder (dest);
  if (_nn_os_folder_list (from, &names, &count) != 0)
    return;
  for (size_t i = 0; i < count; i++)
    {
      nn_path_join (a, sizeof a, from, names[i]);
      nn_path_join (b, sizeof b, dest, names[i]);
      if (test_is_folder (a))
        copy_folder (a, b);
      else
        {
          size_t size = 0;
          char *data = test_read_file (a, &size);
          test_write_file (b, data, size);
          free (data);
        }
      free (names[i]);
    }
  free (names);
}

/* More than 20,000 files (a bound the report once had, past which the
 * newest runs and the sweeps went unread), the runs and the sweeps named
 * last: all are read, and the files that are not results are counted
 * beyond the list's bound. Under wine, where making and reading a file
 * takes a millisecond or more, 1,500 take the same path past the list's
 * bound in a few seconds. */
static void
test_many_files (void)
{
  const char *folder = test_path ("many");
  NnReportMachine m = fixture_machine ();
  NnReport *r = NULL;
  NnError error;
  const int fillers = test_under_wine () ? 1500 : 20000;

  copy_folder (RUNS, folder);
  for (int i = 0; i < fillers; i++)
    {
      char name[64], path[4096];
      snprintf (name, sizeof name, "0-not-a-result-%05d.json", i);
      nn_path_join (path, sizeof path, folder, name);
      test_write_file (path, "{}", 2);
    }
  const char *paths[] = { folder };
  nn_error_clear (&error);
  double start = _nn_now ();
  tap_ok (nn_report_build (paths, 1, &m, &r, &error) == NN_OK, "a folder of %d files",
          fillers + 23);
  tap_diag ("read in %.2f s", _nn_now () - start);
  if (r == NULL)
    return;
  tap_ok (r->files_read == 22 && claim (r, "mlp-small-gpu-slower")->verdict == NN_VERDICT_HOLDS
          && claim (r, "cnn-windows-slower")->verdict == NN_VERDICT_HOLDS,
          "the runs named after %d others are read, the sweep's point too (%d)", fillers,
          (int) r->files_read);
  tap_ok (r->skipped_count == NN_REPORT_LIST_MAX && r->skipped_more == fillers - NN_REPORT_LIST_MAX,
          "%d files that are no results: %d listed with why, %d counted (got %d, %d)", fillers,
          NN_REPORT_LIST_MAX, fillers - NN_REPORT_LIST_MAX, (int) r->skipped_count,
          (int) r->skipped_more);
  nn_report_free (r);
}

/* An empty runs folder: nothing to sort (qsort of NULL was undefined). */
static void
test_empty_folder (void)
{
  const char *folder = test_path ("empty");
  NnReportMachine m = fixture_machine ();
  NnReport *r = NULL;
  NnError error;

  test_make_folder (folder);
  const char *paths[] = { folder };
  nn_error_clear (&error);
  tap_ok (nn_report_build (paths, 1, &m, &r, &error) == NN_OK && r->files_read == 0
          && r->skipped_count == 0 && r->claims[0].verdict == NN_VERDICT_NOT_MEASURED,
          "an empty runs folder: every claim not measured yet");
  nn_report_free (r);
}

/* Links in sweeps/: `up -> ..` would count every run twice, a link out of
 * the folder read what is there; a link to a run, the run twice. */
static void
test_links (void)
{
#ifdef _WIN32
  tap_skip ("links need privileges on Windows", "links in sweeps/ are not followed");
#else
  const char *folder = test_path ("linked");
  char path[4096], target[4096];
  NnReportMachine m = fixture_machine ();
  NnReport *r = NULL;
  NnError error;

  copy_folder (RUNS, folder);
  copy_folder (FOREIGN_WINDOWS, test_path ("outside"));
  snprintf (path, sizeof path, "%s/sweeps/up", folder);
  bool made = symlink ("..", path) == 0;
  snprintf (path, sizeof path, "%s/sweeps/outside", folder);
  made = made && symlink (test_path ("outside"), path) == 0;
  snprintf (path, sizeof path, "%s/sweeps/20261203T090000Z-sweep-ab12/again.json", folder);
  snprintf (target, sizeof target, "%s/here-mlp-small-cpu-1.json", folder);
  made = made && symlink (target, path) == 0;
  if (!tap_ok (made, "links made in sweeps/"))
    return;
  const char *paths[] = { folder };
  nn_error_clear (&error);
  tap_ok (nn_report_build (paths, 1, &m, &r, &error) == NN_OK, "the report builds");
  if (r == NULL)
    return;
  tap_ok (r->files_read == 22 && claim (r, "mlp-small-gpu-slower")->first.runs == 3,
          "each run is read once (%d files; claim 1's CPU median of %d runs)",
          (int) r->files_read, (int) claim (r, "mlp-small-gpu-slower")->first.runs);
  int folders = 0, twice = 0;
  for (int i = 0; i < r->skipped_count; i++)
    {
      folders += strstr (r->skipped[i].why, "a link to a folder: not followed") != NULL;
      twice += strstr (r->skipped[i].why, "again.json: a file read already") != NULL;
    }
  tap_ok (folders == 2 && twice == 1 && r->skipped_count == 3,
          "the two links to folders and the second name of a run are said (%d, %d)", folders,
          twice);
  nn_report_free (r);
#endif
}

int
main (void)
{
  test_reader ();
  test_claims_table ();
  test_formats ();
  test_report ();
  test_foreign_windows ();
  test_machine_files ();
  test_many_files ();
  test_empty_folder ();
  test_links ();
  return tap_done ();
}
