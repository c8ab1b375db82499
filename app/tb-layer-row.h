/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-layer-row.h: a row of the model builder's layer list that edits one
 * layer in place (its settings for its kind), shows its output shape,
 * parameters and problem, and asks to be moved or removed.
 */
#pragma once

#include <gtk/gtk.h>

#include "trainbench.h"

G_BEGIN_DECLS

#define TB_TYPE_LAYER_ROW (tb_layer_row_get_type ())
G_DECLARE_FINAL_TYPE (TbLayerRow, tb_layer_row, TB, LAYER_ROW, GtkListBoxRow)

/* A row for `layer`, the model's layer `index` (from 0; shown from 1).
 * Signals: "changed" when a setting edited the layer
 * (tb_layer_row_get_layer), "move" (gint: -1 up, +1 down) and "remove"
 * when its buttons ask for that. */
GtkWidget *tb_layer_row_new (const NnLayerSpec *layer,
                             guint              index);
/* The layer with the row's edits. */
const NnLayerSpec *tb_layer_row_get_layer (TbLayerRow *self);
/* The layer's output shape ("(128)") and parameter count. */
void tb_layer_row_set_shape (TbLayerRow *self,
                             const char *shape,
                             const char *params);
/* The layer's problem, shown under it with the row marked, or none (NULL). */
void tb_layer_row_set_error (TbLayerRow *self,
                             const char *error);

/* A kind of layer as the list and the "Add Layer" menu name it ("Conv 2D"),
 * translated. */
const char *tb_layer_kind_title (NnLayerKind kind);

G_END_DECLS
