/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-inspect.c: the confusion matrix and misclassified images of a finished
 * run, and the window that shows them (tb-inspect.ui). Predictions run in a
 * GTask worker; the window shows a spinner until they are in.
 */
#define G_LOG_DOMAIN "trainbench-inspect"

#include "tb-config.h"

#include <math.h>

#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "tb-error.h"
#include "tb-inspect.h"

#define PREDICT_CHUNK 256
#define MAX_WRONG_SHOWN 60

TbConfusion *
tb_confusion_compute (NnModel          *model,
                      const NnDataset  *dataset,
                      GError          **error)
{
  g_autoptr(TbConfusion) c = NULL;
  const NnSplit *split;
  int outputs;
  g_autofree float *probs = NULL;

  g_return_val_if_fail (model != NULL, NULL);
  g_return_val_if_fail (dataset != NULL, NULL);

  split = &dataset->test;
  outputs = nn_model_output_size (model);
  if (outputs < 2)
    {
      g_set_error (error, TB_SESSION_ERROR, NN_ERROR_INVALID_ARGUMENT,
                   _("The model has %d output; a confusion matrix needs one per class"), outputs);
      return NULL;
    }

  c = g_new0 (TbConfusion, 1);
  c->classes = MAX (outputs, dataset->classes);
  c->matrix = g_new0 (guint, (gsize) c->classes * c->classes);
  c->wrong = g_array_new (FALSE, FALSE, sizeof (int));
  c->wrong_pred = g_array_new (FALSE, FALSE, sizeof (int));
  probs = g_new (float, (gsize) PREDICT_CHUNK * outputs); /* (chunk, outputs) */

  for (int first = 0; first < split->count; first += PREDICT_CHUNK)
    {
      int n = MIN (PREDICT_CHUNK, split->count - first);
      NnError err = { 0 };

      if (nn_model_predict (model, split, first, n, probs, &err) != NN_OK)
        {
          g_propagate_error (error, tb_error_new (&err));
          return NULL;
        }
      for (int i = 0; i < n; i++)
        {
          const float *p = probs + (gsize) i * outputs;
          int best = 0;
          int truth = split->labels[first + i];

          for (int k = 1; k < outputs; k++)
            if (p[k] > p[best])
              best = k;
          if (truth >= c->classes)
            continue;
          c->matrix[truth * c->classes + best]++;
          c->count++;
          if (best == truth)
            c->correct++;
          else
            {
              int index = first + i;

              g_array_append_val (c->wrong, index);
              g_array_append_val (c->wrong_pred, best);
            }
        }
    }
  return g_steal_pointer (&c);
}

void
tb_confusion_free (TbConfusion *confusion)
{
  if (confusion == NULL)
    return;
  g_free (confusion->matrix);
  g_array_unref (confusion->wrong);
  g_array_unref (confusion->wrong_pred);
  g_free (confusion);
}

static void
cell_text (cairo_t    *cr,
           const char *text,
           double      cx,
           double      cy,
           double      size)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");
  int w, h;

  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, cx - w / 2.0, cy - h / 2.0);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

void
tb_confusion_render (cairo_t           *cr,
                     int                width,
                     int                height,
                     const TbConfusion *c,
                     gboolean           dark)
{
  double margin = 40, side, cell, x0, y0;
  guint row_max = 1;
  double fg = dark ? 0.93 : 0.1;

  g_return_if_fail (cr != NULL && c != NULL);

  side = MIN (width, height) - margin - 8;
  if (side <= 0 || c->classes <= 0)
    return;
  cell = side / c->classes;
  x0 = margin;
  y0 = margin;

  cairo_set_source_rgb (cr, dark ? 0.12 : 1, dark ? 0.12 : 1, dark ? 0.12 : 1);
  cairo_paint (cr);

  for (int i = 0; i < c->classes * c->classes; i++)
    row_max = MAX (row_max, c->matrix[i]);

  for (int t = 0; t < c->classes; t++)
    for (int p = 0; p < c->classes; p++)
      {
        guint v = c->matrix[t * c->classes + p];
        double a = sqrt ((double) v / row_max);
        g_autofree char *text = g_strdup_printf ("%u", v);

        if (t == p)
          cairo_set_source_rgba (cr, 0.15, 0.64, 0.41, 0.15 + 0.85 * a);
        else
          cairo_set_source_rgba (cr, 0.75, 0.11, 0.16, v ? 0.15 + 0.85 * a : 0.04);
        cairo_rectangle (cr, x0 + p * cell + 1, y0 + t * cell + 1, cell - 2, cell - 2);
        cairo_fill (cr);
        if (cell >= 18)
          {
            double lum = a > 0.6 ? 1 : fg;

            cairo_set_source_rgb (cr, lum, lum, lum);
            cell_text (cr, text, x0 + (p + 0.5) * cell, y0 + (t + 0.5) * cell, MIN (cell * 0.32, 12));
          }
      }

  cairo_set_source_rgb (cr, fg, fg, fg);
  for (int k = 0; k < c->classes; k++)
    {
      char label[16];

      g_snprintf (label, sizeof label, "%d", k);
      cell_text (cr, label, x0 + (k + 0.5) * cell, y0 - 10, 11);
      cell_text (cr, label, x0 - 10, y0 + (k + 0.5) * cell, 11);
    }
  cell_text (cr, _("predicted →"), x0 + side / 2, 10, 11);
  cairo_save (cr);
  cairo_translate (cr, 10, y0 + side / 2);
  cairo_rotate (cr, -G_PI / 2);
  cell_text (cr, _("true →"), 0, 0, 11);
  cairo_restore (cr);
}

/* ------------------------------------------------------------ window */

struct _TbInspectWindow
{
  AdwWindow parent_instance;

  /* owned */
  TbSession *session;        /* the run inspected: its model and data set */
  TbConfusion *confusion;    /* once computed */

  /* template widgets */
  GtkWidget *stack;          /* "busy", then "result" */
  GtkWidget *summary;
  GtkWidget *area;           /* the confusion matrix */
  GtkWidget *grid;           /* GtkFlowBox of misclassified images */
};

G_DEFINE_FINAL_TYPE (TbInspectWindow, tb_inspect_window, ADW_TYPE_WINDOW)

static void
compute_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  TbSession *session = task_data;
  GError *error = NULL;
  TbConfusion *c = tb_confusion_compute (tb_session_get_model (session),
                                         tb_session_get_dataset (session), &error);

  if (c == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, c, (GDestroyNotify) tb_confusion_free);
}

static void
draw_cb (GtkDrawingArea *area,
         cairo_t        *cr,
         int             width,
         int             height,
         gpointer        user_data)
{
  TbInspectWindow *self = user_data;

  if (self->confusion != NULL)
    tb_confusion_render (cr, width, height, self->confusion,
                         adw_style_manager_get_dark (adw_style_manager_get_default ()));
}

static GtkWidget *
sample_widget (const NnSplit *split,
               int            index,
               int            predicted)
{
  int h = split->height, w = split->width, ch = split->channels;
  const guint8 *img = split->images + (gsize) index * ch * h * w; /* (C, H, W) */
  g_autofree guint8 *rgb = g_malloc ((gsize) h * w * 3);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *picture, *label;
  g_autofree char *text = g_strdup_printf ("%d → %d", split->labels[index], predicted);
  g_autofree char *a11y = g_strdup_printf (_("Test image %d: a %d taken for a %d"), index, split->labels[index], predicted);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int k = 0; k < 3; k++)
        rgb[(y * w + x) * 3 + k] = img[((ch >= 3 ? k : 0) * h + y) * w + x];
  bytes = g_bytes_new_take (g_steal_pointer (&rgb), (gsize) h * w * 3);
  texture = gdk_memory_texture_new (w, h, GDK_MEMORY_R8G8B8, bytes, (gsize) w * 3);

  picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));
  gtk_widget_set_size_request (picture, w * 2, h * 2);
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
  gtk_widget_add_css_class (picture, "tb-pixelated");
  label = gtk_label_new (text);
  gtk_widget_add_css_class (label, "caption");
  gtk_box_append (GTK_BOX (box), picture);
  gtk_box_append (GTK_BOX (box), label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (box), GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
  return box;
}

/* Main thread: the predictions are in. The task holds the window until
 * then, so one closed meanwhile still has its widgets. */
static void
computed_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  TbInspectWindow *self = TB_INSPECT_WINDOW (object);
  g_autoptr(GError) error = NULL;
  TbConfusion *c = g_task_propagate_pointer (G_TASK (result), &error);
  const NnDataset *ds;
  g_autofree char *summary = NULL;

  if (c == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->summary), error->message);
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "result");
      return;
    }

  self->confusion = c;
  ds = tb_session_get_dataset (self->session);
  summary = g_strdup_printf (_("%d of %d test images right (%.2f %%); %u misclassified"),
                             c->correct, c->count, c->count ? 100.0 * c->correct / c->count : 0.0,
                             c->wrong->len);
  gtk_label_set_text (GTK_LABEL (self->summary), summary);
  if (c->wrong->len == 0)
    gtk_flow_box_append (GTK_FLOW_BOX (self->grid),
                         gtk_label_new (_("None: every test image is classified right")));
  for (guint i = 0; i < MIN (c->wrong->len, MAX_WRONG_SHOWN); i++)
    gtk_flow_box_append (GTK_FLOW_BOX (self->grid),
                         sample_widget (&ds->test, g_array_index (c->wrong, int, i),
                                        g_array_index (c->wrong_pred, int, i)));
  gtk_widget_queue_draw (self->area);
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "result");
}

static void
tb_inspect_window_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), TB_TYPE_INSPECT_WINDOW);
  G_OBJECT_CLASS (tb_inspect_window_parent_class)->dispose (object);
}

static void
tb_inspect_window_finalize (GObject *object)
{
  TbInspectWindow *self = TB_INSPECT_WINDOW (object);

  g_clear_object (&self->session);
  g_clear_pointer (&self->confusion, tb_confusion_free);
  G_OBJECT_CLASS (tb_inspect_window_parent_class)->finalize (object);
}

static void
tb_inspect_window_class_init (TbInspectWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tb_inspect_window_dispose;
  object_class->finalize = tb_inspect_window_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-inspect.ui");
  gtk_widget_class_bind_template_child (widget_class, TbInspectWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, TbInspectWindow, summary);
  gtk_widget_class_bind_template_child (widget_class, TbInspectWindow, area);
  gtk_widget_class_bind_template_child (widget_class, TbInspectWindow, grid);
}

static void
tb_inspect_window_init (TbInspectWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->area), draw_cb, self, NULL);
}

GtkWidget *
tb_inspect_window_new (GtkWindow *parent,
                       TbSession *session)
{
  TbInspectWindow *self;
  g_autoptr(GTask) task = NULL;

  g_return_val_if_fail (TB_IS_SESSION (session), NULL);

  self = g_object_new (TB_TYPE_INSPECT_WINDOW, "transient-for", parent, NULL);
  self->session = g_object_ref (session);
  /* the task holds the window until its answer */
  task = g_task_new (self, NULL, computed_cb, NULL);
  g_task_set_task_data (task, g_object_ref (session), g_object_unref);
  g_task_run_in_thread (task, compute_thread);
  return GTK_WIDGET (self);
}
