/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-run-row.c: a row of the Runs page's list, showing one run at a time
 * (the list recycles rows as it scrolls): the check box, the run's title,
 * details and error, its date and badges. Text from files is never markup.
 */
#define G_LOG_DOMAIN "trainbench-run-row"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "tb-run-row.h"
#include "tb-window.h"

struct _TbRunRow
{
  GtkWidget parent_instance;

  /* owned */
  TbRunItem *item;               /* shown, or NULL */

  /* template widgets */
  GtkWidget *check;
  GtkWidget *title;
  GtkWidget *details;
  GtkWidget *error;
  GtkWidget *date;
  GtkWidget *conditions_badge;
  GtkWidget *status_badge;
};

G_DEFINE_FINAL_TYPE (TbRunRow, tb_run_row, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_TOGGLED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
check_toggled_cb (TbRunRow *self)
{
  g_signal_emit (self, signals[SIGNAL_TOGGLED], 0);
}

/* Tooltips are asked for when they are shown, not set as a row is given
 * its run: each gtk_widget_set_tooltip_text asks the display where the
 * pointer is (two round trips to an X server), and a list binds its rows
 * again at every change near the top. */
static gboolean
query_tooltip_cb (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip,
                  TbRunRow   *self)
{
  g_autofree char *text = tb_run_row_dup_tooltip (self, widget);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

char *
tb_run_row_dup_tooltip (TbRunRow  *self,
                        GtkWidget *part)
{
  TbRun *run;
  g_autofree char *text = NULL;

  g_return_val_if_fail (TB_IS_RUN_ROW (self), NULL);

  run = self->item != NULL ? tb_run_item_get_run (self->item) : NULL;
  if (run == NULL)
    return NULL;
  if (part == self->date)
    text = tb_window_bound_text (run->started_at, 64);
  else if (part == self->conditions_badge)
    text = tb_run_has_conditions (run) ? tb_run_conditions_text (run) : NULL;
  else if (part == self->status_badge || part == self->error)
    text = tb_window_bound_text (run->error, 400);
  else if (part == GTK_WIDGET (self))
    text = tb_window_bound_text (run->path, 400);
  if (text == NULL || *text == '\0')
    return NULL;
  return g_steal_pointer (&text);
}

/* What the row shows was made with the item, off the main thread: a bind
 * only hands it to the labels. */
void
tb_run_row_set_item (TbRunRow  *self,
                     TbRunItem *item)
{
  const char *error, *started;
  TbRun *run;
  gboolean completed, cancelled;

  g_return_if_fail (TB_IS_RUN_ROW (self));

  g_set_object (&self->item, item);
  if (item == NULL)
    return;

  run = tb_run_item_get_run (item);
  error = tb_run_item_get_error_line (item);
  started = tb_run_item_get_started (item);
  completed = g_strcmp0 (run->status, "completed") == 0;
  cancelled = g_strcmp0 (run->status, "cancelled") == 0;

  gtk_label_set_text (GTK_LABEL (self->title), tb_run_item_get_title (item));
  gtk_label_set_text (GTK_LABEL (self->details), tb_run_item_get_details (item));
  gtk_widget_set_visible (self->error, error != NULL);
  gtk_label_set_text (GTK_LABEL (self->error), error != NULL ? error : "");
  gtk_label_set_text (GTK_LABEL (self->date), started != NULL ? started : run->started_at);

  gtk_widget_set_visible (self->conditions_badge, tb_run_has_conditions (run));
  gtk_label_set_text (GTK_LABEL (self->conditions_badge), tb_run_conditions_label (run));

  gtk_widget_set_visible (self->status_badge, !completed);
  gtk_label_set_text (GTK_LABEL (self->status_badge),
                      completed ? "" : cancelled ? _("cancelled") : _("failed"));
  if (cancelled)
    {
      gtk_widget_remove_css_class (self->status_badge, "error");
      gtk_widget_add_css_class (self->status_badge, "warning");
    }
  else
    {
      gtk_widget_remove_css_class (self->status_badge, "warning");
      gtk_widget_add_css_class (self->status_badge, "error");
    }
}

TbRun *
tb_run_row_get_run (TbRunRow *self)
{
  g_return_val_if_fail (TB_IS_RUN_ROW (self), NULL);
  return self->item != NULL ? tb_run_item_get_run (self->item) : NULL;
}

void
tb_run_row_set_ticked (TbRunRow *self,
                       gboolean  ticked)
{
  g_return_if_fail (TB_IS_RUN_ROW (self));

  g_signal_handlers_block_by_func (self->check, check_toggled_cb, self);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->check), ticked);
  g_signal_handlers_unblock_by_func (self->check, check_toggled_cb, self);
}

gboolean
tb_run_row_get_ticked (TbRunRow *self)
{
  g_return_val_if_fail (TB_IS_RUN_ROW (self), FALSE);
  return gtk_check_button_get_active (GTK_CHECK_BUTTON (self->check));
}

GtkWidget *
tb_run_row_new (void)
{
  return g_object_new (TB_TYPE_RUN_ROW, NULL);
}

static void
tb_run_row_dispose (GObject *object)
{
  TbRunRow *self = TB_RUN_ROW (object);
  GtkWidget *child;

  g_clear_object (&self->item);
  gtk_widget_dispose_template (GTK_WIDGET (self), TB_TYPE_RUN_ROW);
  /* the template's box without a name too */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (tb_run_row_parent_class)->dispose (object);
}

static void
tb_run_row_class_init (TbRunRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tb_run_row_dispose;

  /* TbRunRow::toggled: the user ticked or unticked the run. */
  signals[SIGNAL_TOGGLED] =
    g_signal_new ("toggled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-run-row.ui");
  gtk_widget_class_bind_template_child (widget_class, TbRunRow, check);
  gtk_widget_class_bind_template_child (widget_class, TbRunRow, title);
  gtk_widget_class_bind_template_child (widget_class, TbRunRow, details);
  gtk_widget_class_bind_template_child (widget_class, TbRunRow, error);
  gtk_widget_class_bind_template_child (widget_class, TbRunRow, date);
  gtk_widget_class_bind_template_child (widget_class, TbRunRow, conditions_badge);
  gtk_widget_class_bind_template_child (widget_class, TbRunRow, status_badge);
  gtk_widget_class_bind_template_callback (widget_class, check_toggled_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "tbrunrow");
}

static void
tb_run_row_init (TbRunRow *self)
{
  GtkWidget *tipped[5];

  gtk_widget_init_template (GTK_WIDGET (self));
  tipped[0] = GTK_WIDGET (self);
  tipped[1] = self->date;
  tipped[2] = self->conditions_badge;
  tipped[3] = self->status_badge;
  tipped[4] = self->error;
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (GTK_WIDGET (self))), 12);
  /* the run's file on the row, the file's own UTC time on the date, every
   * switch of the conditions on their badge, the whole error on the status
   * and the error's line */
  for (guint i = 0; i < G_N_ELEMENTS (tipped); i++)
    {
      gtk_widget_set_has_tooltip (tipped[i], TRUE);
      g_signal_connect (tipped[i], "query-tooltip", G_CALLBACK (query_tooltip_cb), self);
    }
}
