/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-report-write.c: the article report as one self-contained HTML page a
 * user can post (inline CSS and SVG bar charts; no scripts, nothing
 * fetched) and as JSON.
 *
 * Every text in the page that came from a result file (paths, CPU and GPU
 * names, run ids, messages) is escaped and repaired to UTF-8: those files
 * come from other people.
 */

#include "nn-json.h"
#include "nn-report-private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- a growing text */

typedef struct
{
  char *data;
  size_t len;
  size_t cap;
  bool failed;
} Buf;

static bool
buf_reserve (Buf *b, size_t extra)
{
  if (b->failed)
    return false;
  if (b->len + extra + 1 <= b->cap)
    return true;
  size_t cap = b->cap > 0 ? b->cap : 16384;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *grown = realloc (b->data, cap);
  if (grown == NULL)
    {
      b->failed = true;
      return false;
    }
  b->data = grown;
  b->cap = cap;
  return true;
}

static void
buf_put (Buf *b, const char *s, size_t n)
{
  if (!buf_reserve (b, n))
    return;
  memcpy (b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void
buf_puts (Buf *b, const char *s)
{
  buf_put (b, s, strlen (s));
}

static void buf_printf (Buf *b, const char *format, ...) NN_PRINTF (2, 3);

static void
buf_printf (Buf *b, const char *format, ...)
{
  char text[4096];
  va_list args;

  va_start (args, format);
  int n = vsnprintf (text, sizeof text, format, args);
  va_end (args);
  if (n < 0)
    return;
  buf_put (b, text, (size_t) n < sizeof text ? (size_t) n : sizeof text - 1);
}

/* The length of a valid UTF-8 sequence at s, 0 when there is none. */
static size_t
utf8_length (const unsigned char *s)
{
  unsigned char c = s[0];
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;

  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    {
      n = 3;
      lo = c == 0xE0 ? 0xA0 : 0x80;
      hi = c == 0xED ? 0x9F : 0xBF;
    }
  else if (c >= 0xF0 && c <= 0xF4)
    {
      n = 4;
      lo = c == 0xF0 ? 0x90 : 0x80;
      hi = c == 0xF4 ? 0x8F : 0xBF;
    }
  else
    return 0;
  if (s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xBF)
      return 0;
  return n;
}

/* Text for HTML: &, <, >, " and ' as entities, control characters (but
 * tab and line breaks) dropped, bytes that are not UTF-8 as U+FFFD. */
static void
buf_escape (Buf *b, const char *text)
{
  const unsigned char *s = (const unsigned char *) (text != NULL ? text : "");

  while (*s != '\0')
    {
      switch (*s)
        {
        case '&': buf_puts (b, "&amp;"); s++; continue;
        case '<': buf_puts (b, "&lt;"); s++; continue;
        case '>': buf_puts (b, "&gt;"); s++; continue;
        case '"': buf_puts (b, "&quot;"); s++; continue;
        case '\'': buf_puts (b, "&#39;"); s++; continue;
        default: break;
        }
      if (*s < 0x20 && *s != '\t' && *s != '\n')
        {
          s++;
          continue;
        }
      size_t n = utf8_length (s);
      if (n == 0)
        {
          buf_puts (b, "\xEF\xBF\xBD");
          s++;
          continue;
        }
      buf_put (b, (const char *) s, n);
      s += n;
    }
}

/* ---------------------------------------------------------------- the chart */

/* Two bars on a log axis of ratios, from the 1x line: the article's and
 * the one measured here. Left of the line the claim's first side (the
 * CPU, Windows) is the faster. */
static void
chart_svg (Buf *b, const NnReportClaim *rc)
{
  const double width = 560, left = 96, right = 24, row = 26, top = 8;
  double lo = -1, hi = 1;
  double values[2] = { rc->claim->ratio, rc->ratio };
  char text[64];

  for (int i = 0; i < 2; i++)
    if (isfinite (values[i]) && values[i] > 0)
      {
        double l = log10 (values[i]);
        if (l < lo)
          lo = floor (l);
        if (l > hi)
          hi = ceil (l);
      }
  double span = hi - lo;
  double plot = width - left - right;
#define X(v) (left + (log10 (v) - lo) / span * plot)
  double height = top + 2 * row + 22;

  buf_printf (b, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
              "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">", width, height, width,
              height);
  buf_puts (b, "<title>");
  buf_escape (b, "The article's ratio against this machine's, on a log scale");
  buf_puts (b, "</title>");
  /* decade lines and their labels; over a span of many decades (a ratio
   * of 1e16) every few, so that they stay apart */
  int step = (int) ceil (span / 8);
  for (int d = (int) lo; d <= (int) hi; d += step)
    {
      double x = X (pow (10, d));
      buf_printf (b, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" class=\"%s\"/>", x,
                  top, x, top + 2 * row, d == 0 ? "one" : "grid");
      nn_report_format_times (pow (10, d), text, sizeof text);
      buf_printf (b, "<text x=\"%.1f\" y=\"%.0f\" class=\"tick\">%s</text>", x,
                  top + 2 * row + 16, text);
    }
  static const char *const names[2] = { "article", "here" };
  for (int i = 0; i < 2; i++)
    {
      double y = top + i * row + 4;
      buf_printf (b, "<text x=\"4\" y=\"%.0f\" class=\"label\">%s</text>", y + 13,
                  i == 0 ? "article" : "this machine");
      if (!(isfinite (values[i]) && values[i] > 0))
        {
          buf_printf (b, "<text x=\"%.1f\" y=\"%.0f\" class=\"value\">not measured</text>",
                      X (1.0) + 6, y + 13);
          continue;
        }
      double x0 = X (1.0), x1 = X (values[i]);
      double xa = x0 < x1 ? x0 : x1, w = fabs (x1 - x0);
      if (w < 2)
        w = 2;
      buf_printf (b, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"18\" class=\"%s\"/>",
                  xa, y, w, names[i]);
      nn_report_format_ratio (rc->claim->kind, values[i], text, sizeof text);
      bool right_side = values[i] >= 1;
      double tx = right_side ? x1 + 4 : x1 - 4;
      /* a label that would leave the chart goes inside its bar */
      bool inside = right_side ? tx + 130 > width : tx - 130 < 0;
      buf_printf (b, "<text x=\"%.1f\" y=\"%.0f\" class=\"value%s\" text-anchor=\"%s\">", inside
                  ? (right_side ? x1 - 4 : x1 + 4) : tx, y + 13, inside ? " inside" : "",
                  (right_side != inside) ? "start" : "end");
      buf_escape (b, text);
      buf_puts (b, "</text>");
    }
#undef X
  buf_puts (b, "</svg>\n");
}

/* ---------------------------------------------------------------- the page */

static const char style[] =
  "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;"
  "color:#222;line-height:1.45}"
  "h1{font-size:1.6rem}h2{font-size:1.15rem;margin-bottom:.4rem}"
  "section.claim{border:1px solid #ccc;border-radius:8px;padding:.8rem 1.2rem;margin:1.2rem 0}"
  "section.holds{border-left:6px solid #2e7d32}section.fails{border-left:6px solid #c62828}"
  "section.missing{border-left:6px solid #9e9e9e}"
  ".badge{display:inline-block;padding:.1rem .6rem;border-radius:1rem;font-weight:600;"
  "color:#fff}.badge.holds{background:#2e7d32}.badge.fails{background:#c62828}"
  ".badge.missing{background:#757575}"
  "table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ddd;padding:.3rem .6rem;"
  "text-align:left;vertical-align:top}th{background:#f5f5f5}small{color:#555}"
  "code{background:#f2f2f2;padding:.05rem .3rem;border-radius:4px}"
  "svg.chart text{font:12px system-ui,sans-serif;fill:#333}svg.chart .tick{text-anchor:middle;"
  "fill:#777}svg.chart .grid{stroke:#e0e0e0}svg.chart .one{stroke:#555;stroke-width:1.5}"
  "svg.chart rect.article{fill:#90a4ae}svg.chart rect.here{fill:#1e88e5}"
  "svg.chart text.inside{fill:#fff}"
  ".note{color:#555}";

static const char *
verdict_class (NnVerdict v)
{
  switch (v)
    {
    case NN_VERDICT_HOLDS: return "holds";
    case NN_VERDICT_DOES_NOT_HOLD: return "fails";
    case NN_VERDICT_NOT_MEASURED: return "missing";
    }
  return "missing";
}

static void
side_cell (Buf *b, const NnReportClaim *rc, bool first)
{
  const NnReportSide *side = first ? &rc->first : &rc->second;
  char text[256];

  buf_puts (b, "<td>");
  nn_report_format_measured (rc, first, text, sizeof text);
  buf_escape (b, text);
  if (side->measured)
    {
      buf_puts (b, "<br><small>");
      buf_escape (b, side->device);
      buf_puts (b, ", ");
      buf_escape (b, side->os);
      buf_printf (b, "; median of %d run%s, newest ", (int) side->runs,
                  side->runs == 1 ? "" : "s");
      buf_escape (b, side->newest);
      if (side->newest_undated)
        buf_puts (b, " (start time unknown)");
      buf_puts (b, "</small>");
    }
  buf_puts (b, "</td>");
}

/* The result files a list of figures rests on, one a line. */
static void
files_list (Buf *b, const char *title, char **files, int32_t count)
{
  if (count == 0)
    return;
  buf_puts (b, "<li>");
  buf_escape (b, title);
  buf_puts (b, ":<br><code>");
  for (int32_t i = 0; i < count; i++)
    {
      if (i > 0)
        buf_puts (b, "<br>");
      buf_escape (b, files[i]);
    }
  buf_puts (b, "</code></li>\n");
}

static void
claim_files (Buf *b, const NnReportClaim *rc)
{
  const NnClaim *c = rc->claim;
  int32_t all = rc->first.file_count + rc->second.file_count + rc->reason_file_count;

  if (all == 0)
    return;
  buf_printf (b, "<details class=\"files\"><summary>The result file%s these figures come "
              "from</summary>\n<ul>\n", all == 1 ? "" : "s");
  files_list (b, c->first_label, rc->first.files, rc->first.file_count);
  files_list (b, c->second_label, rc->second.files, rc->second.file_count);
  files_list (b, "The reason's figures", rc->reason_files, rc->reason_file_count);
  buf_puts (b, "</ul>\n</details>\n");
}

char *
nn_report_html (const NnReport *report)
{
  Buf b = { 0 };
  char text[256];

  buf_puts (&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                "<title>");
  buf_escape (&b, "Trainbench: the articles' claims on ");
  buf_escape (&b, report->machine_label);
  buf_printf (&b, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
  buf_puts (&b, "<h1>The articles' claims, measured on this machine</h1>\n<p>This machine: "
                "<strong>");
  buf_escape (&b, report->machine_label);
  buf_printf (&b, "</strong>. Read %d result file%s, %d of them this machine's (by the machine "
              "id they record)", (int) report->files_read, report->files_read == 1 ? "" : "s",
              (int) report->runs_here);
  int not_read = report->skipped_count + report->skipped_more;
  if (not_read > 0)
    buf_printf (&b, "; %d file%s not read (below)", not_read, not_read == 1 ? "" : "s");
  buf_puts (&b, ".</p>\n");
  if (report->machine.id_count == 0)
    {
      buf_puts (&b, "<p class=\"note\">This machine has no machine id, so no run is its own: ");
      buf_escape (&b, report->machine.id_why);
      buf_puts (&b, "</p>\n");
    }
  buf_puts (&b, "<p class=\"note\">Ratios are compared, not seconds: the articles timed Keras on "
                "a laptop, this is another machine and another program. A figure for a whole "
                "training is the median seconds per epoch times the article's epochs. A claim "
                "holds where the ratio measured here is on the article's side of 1x by more "
                "than 10 %.</p>\n");

  for (int i = 0; i < report->claim_count; i++)
    {
      const NnReportClaim *rc = &report->claims[i];
      const NnClaim *c = rc->claim;
      bool gpu = c->kind == NN_CLAIM_GPU_VS_CPU;

      buf_printf (&b, "<section class=\"claim %s\" id=\"", verdict_class (rc->verdict));
      buf_escape (&b, c->id);
      buf_printf (&b, "\">\n<h2>%d. ", i + 1);
      buf_escape (&b, c->model);
      buf_puts (&b, ": ");
      buf_escape (&b, c->text);
      buf_printf (&b, "</h2>\n<p><span class=\"badge %s\">", verdict_class (rc->verdict));
      buf_escape (&b, nn_verdict_name (rc->verdict));
      buf_puts (&b, "</span>");
      if (isfinite (rc->ratio))
        {
          nn_report_format_ratio (c->kind, rc->ratio, text, sizeof text);
          buf_puts (&b, " here: ");
          buf_escape (&b, text);
        }
      nn_report_format_ratio (c->kind, c->ratio, text, sizeof text);
      buf_puts (&b, "; the article: ");
      buf_escape (&b, text);
      buf_puts (&b, "</p>\n<table>\n<tr><th></th><th>");
      buf_escape (&b, c->first_label);
      buf_puts (&b, "</th><th>");
      buf_escape (&b, c->second_label);
      buf_printf (&b, "</th><th>%s</th></tr>\n<tr><th>The article (", gpu
                  ? "GPU speed-up (CPU time / GPU time)" : "Windows time / Linux time");
      buf_escape (&b, c->hardware);
      buf_puts (&b, ")</th><td>");
      nn_report_format_article (c, true, text, sizeof text);
      buf_escape (&b, text);
      buf_puts (&b, "</td><td>");
      nn_report_format_article (c, false, text, sizeof text);
      buf_escape (&b, text);
      nn_report_format_times (c->ratio, text, sizeof text);
      buf_puts (&b, "</td><td>");
      buf_escape (&b, text);
      buf_puts (&b, "</td></tr>\n<tr><th>This machine</th>");
      side_cell (&b, rc, true);
      side_cell (&b, rc, false);
      nn_report_format_times (rc->ratio, text, sizeof text);
      buf_puts (&b, "<td>");
      buf_escape (&b, text);
      buf_puts (&b, "</td></tr>\n</table>\n");
      chart_svg (&b, rc);
      buf_puts (&b, "<p class=\"reason\">");
      buf_escape (&b, rc->reason);
      buf_puts (&b, "</p>\n");
      claim_files (&b, rc);
      buf_puts (&b, "</section>\n");
    }

  bool any_missing = false;
  for (int i = 0; i < report->claim_count; i++)
    for (int s = 0; s < 2; s++)
      {
        const NnReportSide *side = s == 0 ? &report->claims[i].first : &report->claims[i].second;
        if (side->measured || side->command[0] == '\0')
          continue;
        if (!any_missing)
          buf_puts (&b, "<h2>Missing measurements</h2>\n<ul>\n");
        any_missing = true;
        buf_puts (&b, "<li><code>");
        buf_escape (&b, side->command);
        buf_printf (&b, "</code> (claim %d: ", i + 1);
        buf_escape (&b, side->why);
        buf_puts (&b, ")</li>\n");
      }
  if (any_missing)
    buf_puts (&b, "</ul>\n");

  if (report->undated_count > 0)
    {
      buf_puts (&b, "<h2>Runs of unknown time</h2>\n<p class=\"note\">This machine's runs "
                    "whose start time is not one to order by: each is taken as older than "
                    "every run with a time, so it is the newest of no claim while one with a "
                    "time is there.</p>\n<table>\n<tr><th>Run</th><th>Started</th><th>Why"
                    "</th><th>File</th></tr>\n");
      for (int i = 0; i < report->undated_count; i++)
        {
          const NnReportUndated *u = &report->undated[i];
          buf_puts (&b, "<tr><td>");
          buf_escape (&b, u->run_id);
          buf_puts (&b, "</td><td>");
          buf_escape (&b, u->started_at);
          buf_puts (&b, "</td><td>");
          buf_escape (&b, u->why);
          buf_puts (&b, "</td><td><code>");
          buf_escape (&b, u->path);
          buf_puts (&b, "</code></td></tr>\n");
        }
      buf_puts (&b, "</table>\n");
      if (report->undated_more > 0)
        buf_printf (&b, "<p class=\"note\">And %d more, not listed.</p>\n",
                    (int) report->undated_more);
    }

  if (report->other_count > 0)
    {
      buf_puts (&b, "<h2>Runs of other machines or operating systems</h2>\n<p class=\"note\">"
                    "Listed, never counted as this machine's (the Windows runs on this "
                    "machine's CPU are the fourth claim's). A run is this machine's by the "
                    "machine id it records, not by the hardware it names.</p>\n<table>\n"
                    "<tr><th>Run</th><th>Why apart</th><th>Machine</th><th>Model</th>"
                    "<th>Device</th><th>Status</th><th>Seconds per epoch</th></tr>\n");
      for (int i = 0; i < report->other_count; i++)
        {
          const NnReportOther *o = &report->others[i];
          buf_puts (&b, "<tr><td>");
          buf_escape (&b, o->run_id);
          buf_puts (&b, "</td><td>");
          buf_escape (&b, o->why);
          buf_puts (&b, "</td><td>");
          buf_escape (&b, o->machine);
          buf_puts (&b, "</td><td>");
          buf_escape (&b, o->preset[0] != '\0' ? o->preset : "custom");
          buf_puts (&b, "</td><td>");
          buf_escape (&b, o->device);
          buf_puts (&b, "</td><td>");
          buf_escape (&b, o->status);
          if (isfinite (o->epoch_seconds))
            buf_printf (&b, "</td><td>%.3g</td></tr>\n", o->epoch_seconds);
          else
            buf_puts (&b, "</td><td>-</td></tr>\n");
        }
      buf_puts (&b, "</table>\n");
      if (report->others_more > 0)
        buf_printf (&b, "<p class=\"note\">And %d more runs of other machines or operating "
                    "systems, not listed.</p>\n", (int) report->others_more);
    }

  if (report->skipped_count > 0)
    {
      buf_puts (&b, "<h2>Files not read</h2>\n<ul>\n");
      for (int i = 0; i < report->skipped_count; i++)
        {
          buf_puts (&b, "<li>");
          buf_escape (&b, report->skipped[i].why);
          buf_puts (&b, "</li>\n");
        }
      buf_puts (&b, "</ul>\n");
      if (report->skipped_more > 0)
        buf_printf (&b, "<p class=\"note\">And %d more files not read, not listed.</p>\n",
                    (int) report->skipped_more);
    }
  buf_printf (&b, "<p class=\"note\">Made by Trainbench %s.</p>\n</body>\n</html>\n",
              NN_VERSION_STRING);
  if (b.failed)
    {
      free (b.data);
      return NULL;
    }
  return b.data;
}

NnStatus
nn_report_write_html (const NnReport *report, const char *path, NnError *error)
{
  char *html = nn_report_html (report);
  if (html == NULL)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory for the report", path);
  NnStatus status = _nn_file_write_atomically (path, html, strlen (html), false, error);
  free (html);
  return status;
}

/* ---------------------------------------------------------------- JSON */

static void
json_files (NnJson *j, const char *key, char **files, int32_t count)
{
  _nn_json_key (j, key);
  _nn_json_begin_array (j);
  for (int32_t i = 0; i < count; i++)
    _nn_json_string (j, files[i]);
  _nn_json_end_array (j);
}

static void
json_side (NnJson *j, const char *key, const NnReportSide *side)
{
  _nn_json_key (j, key);
  _nn_json_begin_object (j);
  _nn_json_key (j, "measured");
  _nn_json_bool (j, side->measured);
  if (side->measured)
    {
      _nn_json_key (j, "runs");
      _nn_json_int (j, side->runs);
      _nn_json_key (j, "epoch_seconds");
      _nn_json_double (j, side->epoch_seconds);
      _nn_json_key (j, "seconds");
      _nn_json_double (j, side->seconds);
      _nn_json_key (j, "device");
      _nn_json_string_bounded (j, side->device, sizeof side->device);
      _nn_json_key (j, "os");
      _nn_json_string_bounded (j, side->os, sizeof side->os);
      _nn_json_key (j, "newest_run");
      _nn_json_string_bounded (j, side->newest, sizeof side->newest);
      _nn_json_key (j, "newest_started_at");
      _nn_json_string_bounded (j, side->newest_started, sizeof side->newest_started);
      _nn_json_key (j, "newest_of_unknown_time");
      _nn_json_bool (j, side->newest_undated);
      json_files (j, "files", side->files, side->file_count);
    }
  else
    {
      _nn_json_key (j, "why");
      _nn_json_string_bounded (j, side->why, sizeof side->why);
      _nn_json_key (j, "command");
      _nn_json_string_bounded (j, side->command, sizeof side->command);
    }
  _nn_json_end_object (j);
}

NnStatus
nn_report_write_json (const NnReport *report, const char *path, NnError *error)
{
  NnJson j;

  _nn_json_init (&j);
  _nn_json_begin_object (&j);
  _nn_json_key (&j, "kind");
  _nn_json_string (&j, "trainbench-report");
  _nn_json_key (&j, "schema");
  _nn_json_int (&j, 1);
  _nn_json_key (&j, "app_version");
  _nn_json_string (&j, NN_VERSION_STRING);
  _nn_json_key (&j, "machine");
  _nn_json_string_bounded (&j, report->machine_label, sizeof report->machine_label);
  _nn_json_key (&j, "files_read");
  _nn_json_int (&j, report->files_read);
  _nn_json_key (&j, "runs_here");
  _nn_json_int (&j, report->runs_here);
  _nn_json_key (&j, "claims");
  _nn_json_begin_array (&j);
  for (int i = 0; i < report->claim_count; i++)
    {
      const NnReportClaim *rc = &report->claims[i];
      const NnClaim *c = rc->claim;
      _nn_json_begin_object (&j);
      _nn_json_key (&j, "id");
      _nn_json_string (&j, c->id);
      _nn_json_key (&j, "claim");
      _nn_json_string (&j, c->text);
      _nn_json_key (&j, "preset");
      _nn_json_string (&j, c->preset);
      _nn_json_key (&j, "compares");
      _nn_json_string (&j, c->kind == NN_CLAIM_GPU_VS_CPU ? "gpu/cpu speed-up"
                                                          : "windows/linux time");
      _nn_json_key (&j, "article");
      _nn_json_begin_object (&j);
      _nn_json_key (&j, "hardware");
      _nn_json_string (&j, c->hardware);
      _nn_json_key (&j, "epochs");
      _nn_json_int (&j, c->epochs);
      _nn_json_key (&j, "unit");
      _nn_json_string (&j, c->unit);
      _nn_json_key (&j, c->kind == NN_CLAIM_GPU_VS_CPU ? "cpu" : "windows");
      _nn_json_double (&j, c->first);
      _nn_json_key (&j, c->kind == NN_CLAIM_GPU_VS_CPU ? "gpu" : "linux");
      _nn_json_double (&j, c->second);
      _nn_json_key (&j, "ratio");
      _nn_json_double (&j, c->ratio);
      _nn_json_end_object (&j);
      json_side (&j, c->kind == NN_CLAIM_GPU_VS_CPU ? "cpu" : "windows", &rc->first);
      json_side (&j, c->kind == NN_CLAIM_GPU_VS_CPU ? "gpu" : "linux", &rc->second);
      _nn_json_key (&j, "ratio");
      _nn_json_double (&j, rc->ratio);
      _nn_json_key (&j, "verdict");
      _nn_json_string (&j, nn_verdict_name (rc->verdict));
      _nn_json_key (&j, "reason");
      _nn_json_string_bounded (&j, rc->reason, sizeof rc->reason);
      json_files (&j, "reason_files", rc->reason_files, rc->reason_file_count);
      _nn_json_end_object (&j);
    }
  _nn_json_end_array (&j);
  _nn_json_key (&j, "other_runs");
  _nn_json_begin_array (&j);
  for (int i = 0; i < report->other_count; i++)
    {
      const NnReportOther *o = &report->others[i];
      _nn_json_begin_object (&j);
      _nn_json_key (&j, "path");
      _nn_json_string_bounded (&j, o->path, sizeof o->path);
      _nn_json_key (&j, "run_id");
      _nn_json_string_bounded (&j, o->run_id, sizeof o->run_id);
      _nn_json_key (&j, "why");
      _nn_json_string_bounded (&j, o->why, sizeof o->why);
      _nn_json_key (&j, "machine");
      _nn_json_string_bounded (&j, o->machine, sizeof o->machine);
      _nn_json_key (&j, "preset");
      _nn_json_string_bounded (&j, o->preset, sizeof o->preset);
      _nn_json_key (&j, "device");
      _nn_json_string_bounded (&j, o->device, sizeof o->device);
      _nn_json_key (&j, "status");
      _nn_json_string_bounded (&j, o->status, sizeof o->status);
      _nn_json_key (&j, "epoch_seconds");
      _nn_json_double (&j, o->epoch_seconds);
      _nn_json_end_object (&j);
    }
  _nn_json_end_array (&j);
  _nn_json_key (&j, "other_runs_not_listed");
  _nn_json_int (&j, report->others_more);
  _nn_json_key (&j, "undated_runs");
  _nn_json_begin_array (&j);
  for (int i = 0; i < report->undated_count; i++)
    {
      const NnReportUndated *u = &report->undated[i];
      _nn_json_begin_object (&j);
      _nn_json_key (&j, "path");
      _nn_json_string_bounded (&j, u->path, sizeof u->path);
      _nn_json_key (&j, "run_id");
      _nn_json_string_bounded (&j, u->run_id, sizeof u->run_id);
      _nn_json_key (&j, "started_at");
      _nn_json_string_bounded (&j, u->started_at, sizeof u->started_at);
      _nn_json_key (&j, "why");
      _nn_json_string_bounded (&j, u->why, sizeof u->why);
      _nn_json_end_object (&j);
    }
  _nn_json_end_array (&j);
  _nn_json_key (&j, "undated_runs_not_listed");
  _nn_json_int (&j, report->undated_more);
  _nn_json_key (&j, "skipped");
  _nn_json_begin_array (&j);
  for (int i = 0; i < report->skipped_count; i++)
    {
      _nn_json_begin_object (&j);
      _nn_json_key (&j, "path");
      _nn_json_string_bounded (&j, report->skipped[i].path, sizeof report->skipped[i].path);
      _nn_json_key (&j, "why");
      _nn_json_string_bounded (&j, report->skipped[i].why, sizeof report->skipped[i].why);
      _nn_json_end_object (&j);
    }
  _nn_json_end_array (&j);
  _nn_json_key (&j, "skipped_not_listed");
  _nn_json_int (&j, report->skipped_more);
  _nn_json_end_object (&j);
  if (!_nn_json_ok (&j))
    {
      _nn_json_free (&j);
      return _nn_error_set (error, NN_ERROR_NO_MEMORY, "%s: out of memory for the report", path);
    }
  NnStatus status = _nn_file_write_atomically (path, j.data, j.len, false, error);
  _nn_json_free (&j);
  return status;
}
