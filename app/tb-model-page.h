/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-model-page.h: the Model page: the model builder, filling the page. */
#pragma once

#include <gtk/gtk.h>

#include "tb-model-builder.h"

G_BEGIN_DECLS

#define TB_TYPE_MODEL_PAGE (tb_model_page_get_type ())
G_DECLARE_FINAL_TYPE (TbModelPage, tb_model_page, TB, MODEL_PAGE, GtkWidget)

/* The page's builder (borrowed): its "changed" and "preset-chosen" signals
 * are what the window follows. */
TbModelBuilder *tb_model_page_get_builder (TbModelPage *self);

G_END_DECLS
