/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-run-row.h: a run as a row of the Runs page's list: a check box that
 * ticks it for comparison, its title, details and error, when it started,
 * its conditions and status. The list recycles rows: one shows one run at
 * a time, given and taken as the list scrolls.
 */
#pragma once

#include <gtk/gtk.h>

#include "tb-run-history.h"

G_BEGIN_DECLS

#define TB_TYPE_RUN_ROW (tb_run_row_get_type ())
G_DECLARE_FINAL_TYPE (TbRunRow, tb_run_row, TB, RUN_ROW, GtkWidget)

GtkWidget *tb_run_row_new (void);
/* Show the run of `item` (a reference is kept), or nothing (NULL). */
void tb_run_row_set_item (TbRunRow  *self,
                          TbRunItem *item);
/* The run shown (borrowed), or NULL. */
TbRun *tb_run_row_get_run (TbRunRow *self);
/* Tick or untick the check box, without TbRunRow::toggled. */
void tb_run_row_set_ticked (TbRunRow *self,
                            gboolean  ticked);
gboolean tb_run_row_get_ticked (TbRunRow *self);
/* What hovering `part` shows (the row itself: the run's file; its date: the
 * file's own UTC time; a badge: the conditions' switches or the error), or
 * NULL. */
char *tb_run_row_dup_tooltip (TbRunRow  *self,
                              GtkWidget *part);

G_END_DECLS
