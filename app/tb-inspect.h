/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-inspect.h: inspect a finished run: confusion matrix and a grid of
 * misclassified test images (predictions from nn_model_predict).
 */
#pragma once

#include <adwaita.h>

#include "tb-session.h"

G_BEGIN_DECLS

typedef struct
{
  int classes;
  int count;              /* test samples evaluated */
  int correct;
  guint *matrix;          /* (classes, classes): [true][predicted] */
  GArray *wrong;          /* int: indices of misclassified samples */
  GArray *wrong_pred;     /* int: what they were taken for */
} TbConfusion;

/* Predict the whole test split (synchronous; call from a worker). */
TbConfusion *tb_confusion_compute (NnModel          *model,
                                   const NnDataset  *dataset,
                                   GError          **error);
void tb_confusion_free (TbConfusion *confusion);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TbConfusion, tb_confusion_free)

/* Draw the matrix as a heat map with counts (no widgets). */
void tb_confusion_render (cairo_t           *cr,
                          int                width,
                          int                height,
                          const TbConfusion *confusion,
                          gboolean           dark);

#define TB_TYPE_INSPECT_WINDOW (tb_inspect_window_get_type ())
G_DECLARE_FINAL_TYPE (TbInspectWindow, tb_inspect_window, TB, INSPECT_WINDOW, AdwWindow)

/* A window that computes and shows both; keeps a reference on `session`. */
GtkWidget *tb_inspect_window_new (GtkWindow *parent,
                                  TbSession *session);

G_END_DECLS
