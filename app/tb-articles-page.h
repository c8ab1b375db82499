/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-articles-page.h: the Articles page: each claim of the articles as a
 * card (the article's numbers and this machine's, a bar chart of the two
 * ratios, the verdict and its reason, a Measure button for what is
 * missing), and the report's export as PNG or HTML.
 */
#pragma once

#include <gtk/gtk.h>

#include "trainbench.h"
#include "tb-chart.h"

G_BEGIN_DECLS

#define TB_TYPE_ARTICLES_PAGE (tb_articles_page_get_type ())
G_DECLARE_FINAL_TYPE (TbArticlesPage, tb_articles_page, TB, ARTICLES_PAGE, GtkWidget)

/* The runs folder the report reads (with its sweeps/ folders); the report
 * is made again in a worker. */
void tb_articles_page_set_folder (TbArticlesPage *self,
                                  const char     *folder);
/* Make the report again (the runs folder changed); while one is being
 * made, once more after it. */
void tb_articles_page_refresh (TbArticlesPage *self);
/* Judge the runs as those of `machine` (copied) instead of this one's;
 * NULL: this machine. */
void tb_articles_page_set_machine (TbArticlesPage        *self,
                                   const NnReportMachine *machine);
/* The report shown (borrowed), or NULL before the first is made. */
const NnReport *tb_articles_page_get_report (TbArticlesPage *self);
/* Reports being made (0: the cards are up to date). */
guint tb_articles_page_get_n_pending (TbArticlesPage *self);
/* The card of claim `index` (borrowed; NULL before a report). */
GtkWidget *tb_articles_page_get_card (TbArticlesPage *self,
                                      guint           index);

/* Which sides of claim `index` a run on this machine could measure now
 * (nn_report_claim_unmeasured): bit 0 the first side (CPU, Windows), bit 1
 * the second (GPU, Linux). */
guint tb_articles_page_measurable (TbArticlesPage *self,
                                   guint           index);

/* Open the file dialog and export the report as PNG or HTML. */
void tb_articles_page_export (TbArticlesPage *self);

/* A claim's bar chart: the article's ratio against the one measured here,
 * on a log scale (owned by the caller). */
TbChartData *tb_articles_claim_chart (const NnReportClaim *claim);

/* Write the report as a PNG (the whole report drawn with Cairo, `width`
 * pixels wide) or, for a name ending in .html, the engine's HTML page. */
gboolean tb_articles_export (const NnReport *report,
                             const char     *path,
                             int             width,
                             GError        **error);

G_END_DECLS
