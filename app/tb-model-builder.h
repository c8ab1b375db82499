/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-model-builder.h: build a model without code: a list of layers to add,
 * edit in place, reorder and remove, presets, live output shapes and
 * parameter counts (nn_spec_infer), and the spec text kept in sync.
 */
#pragma once

#include <gtk/gtk.h>

#include "trainbench.h"

G_BEGIN_DECLS

#define TB_TYPE_MODEL_BUILDER (tb_model_builder_get_type ())
G_DECLARE_FINAL_TYPE (TbModelBuilder, tb_model_builder, TB, MODEL_BUILDER, GtkBox)

GtkWidget *tb_model_builder_new (void);

/* Replace the model by a spec text; FALSE when it does not parse: the
 * layers are then the text's that do, and the one error shown names the
 * first that does not (as when the text is typed). */
gboolean tb_model_builder_set_spec_text (TbModelBuilder *self,
                                         const char     *text);
/* The canonical spec text of the current layers (owned by the builder). */
const char *tb_model_builder_get_spec_text (TbModelBuilder *self);
/* The name of the preset the layers are, or NULL once they were edited
 * (and again the name when edited back to it). */
const char *tb_model_builder_get_preset_name (TbModelBuilder *self);
/* The preset loaded last, also once its layers were edited, or NULL before
 * one is; "changed" says when it, or whether it is modified, changes. */
const NnPreset *tb_model_builder_get_loaded_preset (TbModelBuilder *self);
gboolean tb_model_builder_load_preset (TbModelBuilder *self,
                                       const char     *name);

/* The shape of one sample and the number of classes of the chosen data. */
void tb_model_builder_set_input (TbModelBuilder *self,
                                 NnInputShape    input,
                                 int             classes);

guint tb_model_builder_get_n_layers (TbModelBuilder *self);
const NnLayerSpec *tb_model_builder_get_layer (TbModelBuilder *self,
                                               guint           index);
/* A layer of `kind` with its default settings, put before the output layer
 * (a final dense layer with softmax or one output per class), or at the
 * end of a model without one: what "Add Layer" does. */
void tb_model_builder_add_layer (TbModelBuilder *self,
                                 NnLayerKind     kind);
void tb_model_builder_set_layer (TbModelBuilder    *self,
                                 guint              index,
                                 const NnLayerSpec *layer);
void tb_model_builder_remove_layer (TbModelBuilder *self,
                                    guint           index);
void tb_model_builder_move_layer (TbModelBuilder *self,
                                  guint           from,
                                  guint           to);

/* Valid: parses, every layer fits, the last one gives one output per class. */
gboolean tb_model_builder_is_valid (TbModelBuilder *self);
/* The problem shown, or NULL; and the 0-based layer it belongs to (-1 when
 * it is not one layer's). */
const char *tb_model_builder_get_error (TbModelBuilder *self,
                                        int            *layer);
gint64 tb_model_builder_get_params (TbModelBuilder *self);

G_END_DECLS
