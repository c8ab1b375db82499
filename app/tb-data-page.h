/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-data-page.h: the Data page: which data set, how many of its samples,
 * the MNIST download and a preview of sample images.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define TB_TYPE_DATA_PAGE (tb_data_page_get_type ())
G_DECLARE_FINAL_TYPE (TbDataPage, tb_data_page, TB, DATA_PAGE, GtkWidget)

/* Choose a data set (a known name, an IDX folder or an .npz path); it is
 * loaded for the preview in a worker, then "input-changed" says its shape. */
void tb_data_page_set_dataset (TbDataPage *self,
                               const char *name_or_path);
/* The chosen data set, or NULL ("dataset" property). */
const char *tb_data_page_get_dataset (TbDataPage *self);
/* Samples to use (0: all). */
void tb_data_page_set_limits (TbDataPage *self,
                              int         train_limit,
                              int         test_limit);
int tb_data_page_get_train_limit (TbDataPage *self);
int tb_data_page_get_test_limit (TbDataPage *self);

G_END_DECLS
