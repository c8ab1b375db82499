/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-articles-page.c: the Articles page: the engine's article report
 * (nn_report_build, made in a worker from the runs folder) shown as one
 * card per claim, with the result files its figures come from, and
 * exported as a PNG drawn with Cairo or the engine's HTML page.
 */
#define G_LOG_DOMAIN "trainbench-articles"

#include "tb-config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "tb-articles-page.h"
#include "tb-error.h"
#include "tb-file.h"
#include "tb-platform.h"

#define CHART_WIDTH 520
#define CHART_HEIGHT 200

/* Files a card names in a list, and lines of a tooltip: the rest are
 * counted (the HTML export names every one). */
#define FILES_SHOWN 8
#define TOOLTIP_LINES 30

struct _TbArticlesPage
{
  GtkWidget parent_instance;

  /* owned */
  char *folder;                 /* the runs folder read */
  NnReport *report;             /* the report shown, or NULL */
  NnReportMachine *machine;     /* the machine judged as this one, or NULL: this machine's */
  GCancellable *cancellable;    /* the report being made */
  GPtrArray *cards;             /* GtkWidget *, one per claim (borrowed from cards_box) */
  gboolean running;             /* a worker makes a report */
  gboolean again;               /* the folder changed meanwhile: make it once more */

  /* template widgets */
  GtkWidget *scroller;
  GtkWidget *machine_label;
  GtkWidget *status_label;
  GtkWidget *cards_box;
  GtkWidget *export_button;
};

G_DEFINE_FINAL_TYPE (TbArticlesPage, tb_articles_page, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_MEASURE,
  SIGNAL_REPORT_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---------------------------------------------------------------- texts */

static const char *
verdict_text (NnVerdict verdict)
{
  switch (verdict)
    {
    case NN_VERDICT_HOLDS: return _("Holds here");
    case NN_VERDICT_DOES_NOT_HOLD: return _("Does not hold here");
    case NN_VERDICT_NOT_MEASURED: return _("Not measured yet");
    }
  return _("Not measured yet");
}

static const char *
verdict_icon (NnVerdict verdict)
{
  switch (verdict)
    {
    case NN_VERDICT_HOLDS: return "emblem-ok-symbolic";
    case NN_VERDICT_DOES_NOT_HOLD: return "window-close-symbolic";
    case NN_VERDICT_NOT_MEASURED: return "dialog-question-symbolic";
    }
  return "dialog-question-symbolic";
}

static const char *
verdict_css (NnVerdict verdict)
{
  switch (verdict)
    {
    case NN_VERDICT_HOLDS: return "success";
    case NN_VERDICT_DOES_NOT_HOLD: return "error";
    case NN_VERDICT_NOT_MEASURED: return "dim-label";
    }
  return "dim-label";
}

static guint32
verdict_rgb (NnVerdict verdict)
{
  switch (verdict)
    {
    case NN_VERDICT_HOLDS: return 0x2e7d32;
    case NN_VERDICT_DOES_NOT_HOLD: return 0xc62828;
    case NN_VERDICT_NOT_MEASURED: return 0x757575;
    }
  return 0x757575;
}

static const char *
side_label (const NnClaim *claim,
            gboolean       first)
{
  if (claim->kind == NN_CLAIM_GPU_VS_CPU)
    return first ? _("CPU") : _("GPU");
  return first ? _("Windows (CPU)") : _("Linux (CPU)");
}

static char *
article_line (const NnClaim *claim)
{
  char a[128], b[128], r[64];

  nn_report_format_article (claim, TRUE, a, sizeof a);
  nn_report_format_article (claim, FALSE, b, sizeof b);
  nn_report_format_ratio (claim->kind, claim->ratio, r, sizeof r);
  /* TRANSLATORS: the article's figures: "On a laptop: CPU 52 s (10 epochs), GPU 123 s (10 epochs): GPU 2.37x slower" */
  return g_strdup_printf (_("The article, on %s: %s %s, %s %s: %s"), claim->hardware,
                          side_label (claim, TRUE), a, side_label (claim, FALSE), b, r);
}

static char *
measured_line (const NnReportClaim *rc)
{
  char a[128], b[128], r[64];

  nn_report_format_measured (rc, TRUE, a, sizeof a);
  nn_report_format_measured (rc, FALSE, b, sizeof b);
  nn_report_format_ratio (rc->claim->kind, rc->ratio, r, sizeof r);
  if (!isfinite (rc->ratio))
    return g_strdup_printf (_("This machine: %s %s, %s %s"), side_label (rc->claim, TRUE), a,
                            side_label (rc->claim, FALSE), b);
  return g_strdup_printf (_("This machine: %s %s, %s %s: %s"), side_label (rc->claim, TRUE), a,
                          side_label (rc->claim, FALSE), b, r);
}

static char *
claim_title (guint                index,
             const NnReportClaim *rc)
{
  return g_strdup_printf ("%u. %s: %s", index + 1, rc->claim->model, rc->claim->text);
}

/* A claim's lists of files: the first side's, the second's, the reason's. */
static void
claim_files (const NnReportClaim *rc,
             guint                list,
             const char         **label,
             char              ***files,
             int32_t             *count)
{
  switch (list)
    {
    case 0:
      *label = side_label (rc->claim, TRUE);
      *files = rc->first.files;
      *count = rc->first.file_count;
      return;
    case 1:
      *label = side_label (rc->claim, FALSE);
      *files = rc->second.files;
      *count = rc->second.file_count;
      return;
    default:
      *label = _("the reason");
      *files = rc->reason_files;
      *count = rc->reason_file_count;
      return;
    }
}

/* The result files a claim's figures come from, by name: "Figures from:
 * CPU: a.json, b.json; GPU: c.json"; NULL when there are none. */
static char *
files_line (const NnReportClaim *rc)
{
  g_autoptr(GString) lists = g_string_new (NULL);

  for (guint l = 0; l < 3; l++)
    {
      const char *label;
      char **files;
      int32_t count;
      g_autoptr(GString) names = g_string_new (NULL);

      claim_files (rc, l, &label, &files, &count);
      if (count == 0)
        continue;
      for (int32_t i = 0; i < count && i < FILES_SHOWN; i++)
        {
          g_autofree char *name = g_path_get_basename (files[i]);
          if (i > 0)
            g_string_append (names, ", ");
          g_string_append (names, name);
        }
      if (count > FILES_SHOWN)
        /* TRANSLATORS: after the names of a list of files: " and 12 more" */
        g_string_append_printf (names, ngettext (" and %d more", " and %d more",
                                                 count - FILES_SHOWN), count - FILES_SHOWN);
      if (lists->len > 0)
        g_string_append (lists, "; ");
      /* TRANSLATORS: one side of a claim and the files it comes from: "CPU: a.json, b.json" */
      g_string_append_printf (lists, _("%s: %s"), label, names->str);
    }
  if (lists->len == 0)
    return NULL;
  /* TRANSLATORS: the result files a claim's figures come from: "Figures from: CPU: a.json, b.json; GPU: c.json" */
  return g_strdup_printf (_("Figures from: %s"), lists->str);
}

/* The same files with their folders, a path a line, for a tooltip. */
static char *
files_tooltip (const NnReportClaim *rc)
{
  g_autoptr(GString) text = g_string_new (NULL);
  int lines = 0, left = 0;

  for (guint l = 0; l < 3; l++)
    {
      const char *label;
      char **files;
      int32_t count;

      claim_files (rc, l, &label, &files, &count);
      for (int32_t i = 0; i < count; i++)
        {
          if (lines++ >= TOOLTIP_LINES)
            {
              left++;
              continue;
            }
          if (text->len > 0)
            g_string_append_c (text, '\n');
          g_string_append_printf (text, _("%s: %s"), label, files[i]);
        }
    }
  if (left > 0)
    {
      g_string_append_c (text, '\n');
      /* TRANSLATORS: the last line of a list of files: "and 12 more" */
      g_string_append_printf (text, ngettext ("and %d more", "and %d more", left), left);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* What the report read and left out, in a sentence or three. */
static char *
status_text (const NnReport *report)
{
  int not_read = report->skipped_count + report->skipped_more;
  int apart = report->other_count + report->others_more;
  int undated = report->undated_count + report->undated_more;
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append_printf (text,
                          ngettext ("%d result file read, %d of them this machine's (by the machine id they record); ratios are compared, not seconds.",
                                    "%d result files read, %d of them this machine's (by the machine id they record); ratios are compared, not seconds.",
                                    report->files_read),
                          (int) report->files_read, (int) report->runs_here);
  if (report->machine.id_count == 0)
    {
      g_string_append_c (text, ' ');
      g_string_append_printf (text, _("This machine has no machine id, so no run is its own: %s"),
                              report->machine.id_why);
    }
  if (apart > 0)
    {
      g_string_append_c (text, ' ');
      g_string_append_printf (text,
                              ngettext ("%d run of another machine or OS is not counted.",
                                        "%d runs of other machines or OSes are not counted.",
                                        apart),
                              apart);
    }
  if (undated > 0)
    {
      g_string_append_c (text, ' ');
      g_string_append_printf (text,
                              ngettext ("%d run dated in the future counts as of unknown time, never the newest.",
                                        "%d runs dated in the future count as of unknown time, never the newest.",
                                        undated),
                              undated);
    }
  if (not_read > 0)
    {
      g_string_append_c (text, ' ');
      g_string_append_printf (text,
                              ngettext ("%d file could not be read (the tooltip says why).",
                                        "%d files could not be read (the tooltip says why).",
                                        not_read),
                              not_read);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* Why the files left out were, a file a line. */
static char *
skipped_tooltip (const NnReport *report)
{
  g_autoptr(GString) text = g_string_new (NULL);
  int left = report->skipped_more;

  if (report->skipped_count == 0)
    return NULL;
  for (int i = 0; i < report->skipped_count; i++)
    {
      if (i >= TOOLTIP_LINES)
        {
          left++;
          continue;
        }
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, report->skipped[i].why);
    }
  if (left > 0)
    {
      g_string_append_c (text, '\n');
      g_string_append_printf (text, ngettext ("and %d more", "and %d more", left), left);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* ---------------------------------------------------------------- the chart */

TbChartData *
tb_articles_claim_chart (const NnReportClaim *rc)
{
  gboolean gpu = rc->claim->kind == NN_CLAIM_GPU_VS_CPU;
  TbChartData *data = tb_chart_data_new (TB_CHART_BARS, NULL, NULL,
                                         _("Ratio"));
  guint article = tb_chart_data_add_category (data, _("The article"));
  guint here = tb_chart_data_add_category (data, _("This machine"));
  TbChartSeries *series = tb_chart_data_add_series (data, gpu ? _("GPU speed-up")
                                                              : _("Windows slow-down"), 0);
  char note[64];

  nn_report_format_ratio (rc->claim->kind, rc->claim->ratio, note, sizeof note);
  tb_chart_series_set_bar (series, article, rc->claim->ratio, note);
  if (isfinite (rc->ratio))
    {
      nn_report_format_ratio (rc->claim->kind, rc->ratio, note, sizeof note);
      tb_chart_series_set_bar (series, here, rc->ratio, note);
    }
  else
    tb_chart_series_set_bar (series, here, NAN, NULL);
  data->y_scale = TB_CHART_SCALE_LOG;
  return data;
}

static void
chart_draw_cb (GtkDrawingArea *area,
               cairo_t        *cr,
               int             width,
               int             height,
               gpointer        user_data)
{
  TbChartData *data = user_data;

  data->dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  tb_chart_render (cr, width, height, data);
}

/* ---------------------------------------------------------------- the cards */

guint
tb_articles_page_measurable (TbArticlesPage *self,
                             guint           index)
{
  g_return_val_if_fail (TB_IS_ARTICLES_PAGE (self), 0);
  if (self->report == NULL || index >= (guint) self->report->claim_count)
    return 0;
  return nn_report_claim_unmeasured (self->report, (int32_t) index);
}

static void
measure_clicked_cb (GtkButton      *button,
                    TbArticlesPage *self)
{
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "claim"));

  g_signal_emit (self, signals[SIGNAL_MEASURE], 0, index,
                 tb_articles_page_measurable (self, index));
}

static GtkWidget *
label_new (const char *text,
           const char *css)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), FALSE);
  if (css != NULL)
    gtk_widget_add_css_class (label, css);
  return label;
}

static GtkWidget *
card_new (TbArticlesPage *self,
          guint           index)
{
  const NnReportClaim *rc = &self->report->claims[index];
  g_autofree char *title = claim_title (index, rc);
  g_autofree char *article = article_line (rc->claim);
  g_autofree char *measured = measured_line (rc);
  GtkWidget *card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *row, *icon, *verdict, *area, *button;
  TbChartData *chart;

  gtk_widget_add_css_class (card, "card");
  gtk_widget_add_css_class (card, "article-card");
  g_object_set (card, "margin-start", 0, NULL);
  gtk_widget_set_name (card, rc->claim->id);

  row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  g_object_set (row, "margin-start", 18, "margin-end", 18, "margin-top", 14, "margin-bottom", 14,
                NULL);
  gtk_box_append (GTK_BOX (card), row);
  gtk_box_append (GTK_BOX (row), label_new (title, "heading"));
  gtk_box_append (GTK_BOX (row), label_new (article, NULL));
  gtk_box_append (GTK_BOX (row), label_new (measured, NULL));

  /* the chart lives as long as its drawing area */
  chart = tb_articles_claim_chart (rc);
  area = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (area), CHART_HEIGHT);
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (area), CHART_WIDTH);
  gtk_widget_set_halign (area, GTK_ALIGN_START);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), chart_draw_cb, chart,
                                  (GDestroyNotify) tb_chart_data_free);
  gtk_box_append (GTK_BOX (row), area);

  GtkWidget *line = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  icon = gtk_image_new_from_icon_name (verdict_icon (rc->verdict));
  gtk_widget_add_css_class (icon, verdict_css (rc->verdict));
  gtk_widget_set_name (icon, "verdict-icon");
  verdict = label_new (verdict_text (rc->verdict), "heading");
  gtk_widget_add_css_class (verdict, verdict_css (rc->verdict));
  gtk_widget_set_name (verdict, "verdict");
  gtk_widget_set_hexpand (verdict, TRUE);
  gtk_box_append (GTK_BOX (line), icon);
  gtk_box_append (GTK_BOX (line), verdict);
  if (rc->verdict == NN_VERDICT_NOT_MEASURED)
    {
      guint sides = tb_articles_page_measurable (self, index);
      button = gtk_button_new_with_label (_("Measure"));
      gtk_widget_set_name (button, "measure");
      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (button, "suggested-action");
      gtk_widget_set_sensitive (button, sides != 0);
      gtk_widget_set_tooltip_text (button, sides != 0 ? _("Train the missing runs on this machine")
                                                      : _("The missing runs need another machine or OS"));
      g_object_set_data (G_OBJECT (button), "claim", GUINT_TO_POINTER (index));
      g_signal_connect (button, "clicked", G_CALLBACK (measure_clicked_cb), self);
      gtk_box_append (GTK_BOX (line), button);
    }
  gtk_box_append (GTK_BOX (row), line);

  GtkWidget *reason = label_new (rc->reason, "dim-label");
  gtk_widget_set_name (reason, "reason");
  gtk_box_append (GTK_BOX (row), reason);

  g_autofree char *files = files_line (rc);
  if (files != NULL)
    {
      g_autofree char *paths = files_tooltip (rc);
      GtkWidget *label = label_new (files, "dim-label");
      gtk_widget_add_css_class (label, "caption");
      gtk_widget_set_name (label, "files");
      gtk_widget_set_tooltip_text (label, paths);
      gtk_box_append (GTK_BOX (row), label);
    }
  return card;
}

static void
show_report (TbArticlesPage *self)
{
  GtkWidget *child;
  char machine[640];

  while ((child = gtk_widget_get_first_child (self->cards_box)) != NULL)
    gtk_box_remove (GTK_BOX (self->cards_box), child);
  g_ptr_array_set_size (self->cards, 0);
  if (self->report == NULL)
    return;

  g_snprintf (machine, sizeof machine, _("This machine: %s"), self->report->machine_label);
  gtk_label_set_text (GTK_LABEL (self->machine_label), machine);
  g_autofree char *status = status_text (self->report);
  g_autofree char *skipped = skipped_tooltip (self->report);
  gtk_label_set_text (GTK_LABEL (self->status_label), status);
  gtk_widget_set_tooltip_text (self->status_label, skipped);
  for (int i = 0; i < self->report->claim_count; i++)
    {
      GtkWidget *card = card_new (self, (guint) i);
      gtk_box_append (GTK_BOX (self->cards_box), card);
      g_ptr_array_add (self->cards, card);
    }
  gtk_widget_set_sensitive (self->export_button, TRUE);
}

/* ---------------------------------------------------------------- making the report */

typedef struct
{
  char *folder;
  NnReportMachine *machine;     /* NULL: this machine */
} Job;

static void
job_free (Job *job)
{
  g_free (job->folder);
  g_free (job->machine);
  g_free (job);
}

static void
report_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Job *job = task_data;
  NnReportMachine here;
  NnReport *report = NULL;
  NnError error;
  const char *paths[1] = { job->folder };

  nn_error_clear (&error);
  if (job->machine == NULL)
    nn_report_machine_here (&here);
  if (nn_report_build (paths, 1, job->machine != NULL ? job->machine : &here, &report, &error)
      != NN_OK)
    {
      g_task_return_error (task, tb_error_new (&error));
      return;
    }
  g_task_return_pointer (task, report, (GDestroyNotify) nn_report_free);
}

static void start_report (TbArticlesPage *self);

static void
report_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  NnReport *report = g_task_propagate_pointer (G_TASK (result), &error);
  TbArticlesPage *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      nn_report_free (report);
      return;
    }
  self = TB_ARTICLES_PAGE (object);
  self->running = FALSE;
  if (report == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->status_label), error->message);
      g_warning ("the article report: %s", error->message);
    }
  else
    {
      nn_report_free (self->report);
      self->report = report;
      show_report (self);
    }
  if (self->again)
    {
      self->again = FALSE;
      start_report (self);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_REPORT_CHANGED], 0);
}

static void
start_report (TbArticlesPage *self)
{
  g_autoptr(GTask) task = NULL;
  Job *job;

  if (self->folder == NULL)
    return;
  if (self->running)
    {
      self->again = TRUE;
      return;
    }
  job = g_new0 (Job, 1);
  job->folder = g_strdup (self->folder);
  job->machine = self->machine != NULL ? g_memdup2 (self->machine, sizeof *self->machine) : NULL;
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->running = TRUE;
  task = g_task_new (self, self->cancellable, report_done_cb, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, report_thread);
}

void
tb_articles_page_set_folder (TbArticlesPage *self,
                             const char     *folder)
{
  g_return_if_fail (TB_IS_ARTICLES_PAGE (self));

  g_free (self->folder);
  self->folder = g_strdup (folder);
  start_report (self);
}

void
tb_articles_page_refresh (TbArticlesPage *self)
{
  g_return_if_fail (TB_IS_ARTICLES_PAGE (self));

  start_report (self);
}

void
tb_articles_page_set_machine (TbArticlesPage        *self,
                              const NnReportMachine *machine)
{
  g_return_if_fail (TB_IS_ARTICLES_PAGE (self));

  g_clear_pointer (&self->machine, g_free);
  if (machine != NULL)
    self->machine = g_memdup2 (machine, sizeof *machine);
  start_report (self);
}

const NnReport *
tb_articles_page_get_report (TbArticlesPage *self)
{
  g_return_val_if_fail (TB_IS_ARTICLES_PAGE (self), NULL);

  return self->report;
}

guint
tb_articles_page_get_n_pending (TbArticlesPage *self)
{
  g_return_val_if_fail (TB_IS_ARTICLES_PAGE (self), 0);

  return (self->running ? 1 : 0) + (self->again ? 1 : 0);
}

GtkWidget *
tb_articles_page_get_card (TbArticlesPage *self,
                           guint           index)
{
  g_return_val_if_fail (TB_IS_ARTICLES_PAGE (self), NULL);

  return index < self->cards->len ? g_ptr_array_index (self->cards, index) : NULL;
}

/* ---------------------------------------------------------------- PNG and HTML */

/* A paragraph at (x, *y), `width` wide; *y moves below it. */
static void
draw_text (cairo_t    *cr,
           double      x,
           double     *y,
           int         width,
           const char *text,
           const char *font,
           guint32     rgb)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *desc = pango_font_description_from_string (font);
  int w, h;

  pango_layout_set_font_description (layout, desc);
  pango_layout_set_width (layout, width * PANGO_SCALE);
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_set_source_rgb (cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                        (rgb & 0xff) / 255.0);
  cairo_move_to (cr, x, *y);
  pango_cairo_show_layout (cr, layout);
  *y += h;
  pango_font_description_free (desc);
  g_object_unref (layout);
}

/* The whole report from the top of `cr`; returns the height it took. */
static double
draw_report (cairo_t        *cr,
             int             width,
             const NnReport *report)
{
  const double margin = 32;
  int inner = width - 2 * (int) margin;
  double y = margin;
  g_autofree char *machine = g_strdup_printf (_("This machine: %s"), report->machine_label);
  g_autofree char *status = status_text (report);

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  draw_text (cr, margin, &y, inner, _("The articles' claims, measured on this machine"),
             "Sans Bold 18", 0x222222);
  y += 6;
  draw_text (cr, margin, &y, inner, machine, "Sans 11", 0x222222);
  draw_text (cr, margin, &y, inner, status, "Sans 10", 0x666666);
  y += 12;
  for (int i = 0; i < report->claim_count; i++)
    {
      const NnReportClaim *rc = &report->claims[i];
      g_autofree char *title = claim_title ((guint) i, rc);
      g_autofree char *article = article_line (rc->claim);
      g_autofree char *measured = measured_line (rc);
      g_autoptr(TbChartData) chart = tb_articles_claim_chart (rc);
      double top = y;

      y += 14;
      draw_text (cr, margin + 16, &y, inner - 32, title, "Sans Bold 12", 0x222222);
      y += 4;
      draw_text (cr, margin + 16, &y, inner - 32, article, "Sans 10", 0x333333);
      draw_text (cr, margin + 16, &y, inner - 32, measured, "Sans 10", 0x333333);
      y += 4;
      cairo_save (cr);
      cairo_translate (cr, margin + 16, y);
      tb_chart_render (cr, CHART_WIDTH, CHART_HEIGHT, chart);
      cairo_restore (cr);
      y += CHART_HEIGHT + 4;
      draw_text (cr, margin + 16, &y, inner - 32, verdict_text (rc->verdict), "Sans Bold 12",
                 verdict_rgb (rc->verdict));
      y += 2;
      draw_text (cr, margin + 16, &y, inner - 32, rc->reason, "Sans 10", 0x555555);
      g_autofree char *files = files_line (rc);
      if (files != NULL)
        {
          y += 4;
          draw_text (cr, margin + 16, &y, inner - 32, files, "Sans 8", 0x777777);
        }
      y += 14;
      /* the card's frame, with the verdict's colour down its left edge */
      cairo_set_source_rgb (cr, 0.8, 0.8, 0.8);
      cairo_set_line_width (cr, 1);
      cairo_rectangle (cr, margin + 0.5, top + 0.5, inner - 1, y - top - 1);
      cairo_stroke (cr);
      guint32 rgb = verdict_rgb (rc->verdict);
      cairo_set_source_rgb (cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                            (rgb & 0xff) / 255.0);
      cairo_rectangle (cr, margin, top, 6, y - top);
      cairo_fill (cr);
      y += 14;
    }
  return y + margin - 14;
}

gboolean
tb_articles_export (const NnReport *report,
                    const char     *path,
                    int             width,
                    GError        **error)
{
  g_return_val_if_fail (report != NULL && path != NULL, FALSE);

  if (g_str_has_suffix (path, ".html") || g_str_has_suffix (path, ".htm"))
    {
      NnError nn_error;

      nn_error_clear (&nn_error);
      if (nn_report_write_html (report, path, &nn_error) != NN_OK)
        {
          g_propagate_error (error, tb_error_new (&nn_error));
          return FALSE;
        }
      return TRUE;
    }

  /* measured first on a recording surface, then drawn at its height */
  cairo_surface_t *recording = cairo_recording_surface_create (CAIRO_CONTENT_COLOR, NULL);
  cairo_t *cr = cairo_create (recording);
  double height = draw_report (cr, width, report);
  cairo_destroy (cr);
  cairo_surface_destroy (recording);

  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width,
                                                         (int) ceil (height));
  cr = cairo_create (surface);
  draw_report (cr, width, report);
  cairo_destroy (cr);
  gboolean ok = tb_file_write_png (surface, path, error);
  cairo_surface_destroy (surface);
  return ok;
}

static void
export_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    TbArticlesPage  *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->report != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      const char *format = gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (dialog), "format");
      g_autoptr(GError) error = NULL;
      GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

      if (path != NULL && !g_str_has_suffix (path, ".png") && !g_str_has_suffix (path, ".html"))
        {
          char *named = g_strconcat (path, g_strcmp0 (format, "html") == 0 ? ".html" : ".png",
                                     NULL);
          g_free (path);
          path = named;
        }
      if (path != NULL && !tb_articles_export (self->report, path, 1000, &error))
        {
          if (ADW_IS_APPLICATION_WINDOW (root))
            {
              GtkWidget *d = adw_message_dialog_new (GTK_WINDOW (root), _("Could not export the report"),
                                                     error->message);
              adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (d), "close", _("_Close"));
              gtk_window_present (GTK_WINDOW (d));
            }
          else
            g_warning ("%s", error->message);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

void
tb_articles_page_export (TbArticlesPage *self)
{
  GtkFileChooserNative *dialog;
  GtkFileFilter *filter;
  g_autoptr(GFile) folder = NULL;
  const char *format_ids[] = { "png", "html", NULL };
  const char *format_labels[] = { "PNG", "HTML", NULL };
  GtkRoot *root;

  g_return_if_fail (TB_IS_ARTICLES_PAGE (self));

  if (self->report == NULL)
    return;
  root = gtk_widget_get_root (GTK_WIDGET (self));
  dialog = gtk_file_chooser_native_new (_("Export the Report"),
                                        GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        GTK_FILE_CHOOSER_ACTION_SAVE,
                                        _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, _("PNG images and HTML pages"));
  gtk_file_filter_add_suffix (filter, "png");
  gtk_file_filter_add_suffix (filter, "html");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);
  gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (dialog), "format", _("Format"), format_ids,
                               format_labels);
  gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (dialog), "format", "png");
  folder = tb_platform_pictures_folder ();
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), folder, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "trainbench-report.png");
  g_signal_connect (dialog, "response", G_CALLBACK (export_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
export_clicked_cb (GtkButton      *button,
                   TbArticlesPage *self)
{
  tb_articles_page_export (self);
}

/* ---------------------------------------------------------------- the widget */

static void
tb_articles_page_dispose (GObject *object)
{
  TbArticlesPage *self = TB_ARTICLES_PAGE (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), TB_TYPE_ARTICLES_PAGE);
  G_OBJECT_CLASS (tb_articles_page_parent_class)->dispose (object);
}

static void
tb_articles_page_finalize (GObject *object)
{
  TbArticlesPage *self = TB_ARTICLES_PAGE (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->report, nn_report_free);
  g_clear_pointer (&self->machine, g_free);
  g_clear_pointer (&self->cards, g_ptr_array_unref);
  g_free (self->folder);
  G_OBJECT_CLASS (tb_articles_page_parent_class)->finalize (object);
}

static void
tb_articles_page_class_init (TbArticlesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tb_articles_page_dispose;
  object_class->finalize = tb_articles_page_finalize;

  /* TbArticlesPage::measure: (claim, sides) the Measure button of claim
   * `claim` was pressed: train its missing runs, `sides` as
   * tb_articles_page_measurable says. */
  signals[SIGNAL_MEASURE] =
    g_signal_new ("measure", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  /* TbArticlesPage::report-changed: a new report is shown. */
  signals[SIGNAL_REPORT_CHANGED] =
    g_signal_new ("report-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-articles-page.ui");
  gtk_widget_class_bind_template_child (widget_class, TbArticlesPage, scroller);
  gtk_widget_class_bind_template_child (widget_class, TbArticlesPage, machine_label);
  gtk_widget_class_bind_template_child (widget_class, TbArticlesPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, TbArticlesPage, cards_box);
  gtk_widget_class_bind_template_child (widget_class, TbArticlesPage, export_button);
  gtk_widget_class_bind_template_callback (widget_class, export_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
tb_articles_page_init (TbArticlesPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->cards = g_ptr_array_new ();
}
