/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-chart-view.c: the chart widget. Drawing is tb_chart_render on the
 * snapshot's cairo context; the widget adds the hover read-out, a context
 * menu and the export dialog.
 */
#define G_LOG_DOMAIN "trainbench-chart-view"

#include "tb-config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "tb-chart-view.h"
#include "tb-platform.h"

struct _TbChartView
{
  GtkWidget parent_instance;

  /* owned */
  TbChartData *data;
  char *name;
  GtkWidget *menu;          /* GtkPopoverMenu, child of this widget */
  GtkWidget *button;        /* "Export…" in the top right corner, child */
};

G_DEFINE_FINAL_TYPE (TbChartView, tb_chart_view, GTK_TYPE_WIDGET)

static void
tb_chart_view_snapshot (GtkWidget   *widget,
                        GtkSnapshot *snapshot)
{
  TbChartView *self = TB_CHART_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (self->data == NULL || width <= 0 || height <= 0)
    return;

  self->data->dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  tb_chart_render (cr, width, height, self->data);
  cairo_destroy (cr);

  gtk_widget_snapshot_child (widget, self->button, snapshot);

  if (gtk_widget_has_visible_focus (widget))
    {
      GdkRGBA focus = { 0.21, 0.52, 0.89, 0.5 };
      GskRoundedRect rect;
      float w[4] = { 2, 2, 2, 2 };
      GdkRGBA colors[4] = { focus, focus, focus, focus };

      gsk_rounded_rect_init_from_rect (&rect, &GRAPHENE_RECT_INIT (1, 1, width - 2, height - 2), 0);
      gtk_snapshot_append_border (snapshot, &rect, w, colors);
    }
}

static void
motion_cb (GtkEventControllerMotion *motion,
           double                    x,
           double                    y,
           TbChartView              *self)
{
  g_autofree char *text = NULL;

  if (self->data == NULL)
    return;
  text = tb_chart_hover (self->data, gtk_widget_get_width (GTK_WIDGET (self)),
                         gtk_widget_get_height (GTK_WIDGET (self)), x, y);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
leave_cb (GtkEventControllerMotion *motion,
          TbChartView              *self)
{
  if (self->data == NULL)
    return;
  self->data->hover_active = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
pressed_cb (GtkGestureClick *gesture,
            int              n_press,
            double           x,
            double           y,
            TbChartView     *self)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));

  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (button == GDK_BUTTON_SECONDARY)
    {
      gtk_popover_set_pointing_to (GTK_POPOVER (self->menu),
                                   &(GdkRectangle) { (int) x, (int) y, 1, 1 });
      gtk_popover_popup (GTK_POPOVER (self->menu));
    }
}

static void
show_toast (TbChartView *self,
            const char  *text)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);
  /* a toast's title is markup: a file's name with "&" or "<" in it is text */
  g_autofree char *title = g_markup_escape_text (text, -1);

  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (title));
  else
    g_message ("%s", text);
}

gboolean
tb_chart_view_save (TbChartView  *self,
                    const char   *path,
                    const char   *format,
                    const char   *size,
                    char        **saved_path,
                    GError      **error)
{
  g_autoptr(TbChartData) copy = NULL;
  g_autofree char *file = NULL;
  int width, height;

  g_return_val_if_fail (TB_IS_CHART_VIEW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (self->data == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The chart is empty"));
      return FALSE;
    }

  /* the format choice adds its extension when the name has none */
  if (g_str_has_suffix (path, ".png") || g_str_has_suffix (path, ".svg"))
    file = g_strdup (path);
  else
    file = g_strconcat (path, g_strcmp0 (format, "svg") == 0 ? ".svg" : ".png", NULL);

  width = gtk_widget_get_width (GTK_WIDGET (self));
  height = gtk_widget_get_height (GTK_WIDGET (self));
  if (size != NULL && g_strcmp0 (size, "widget") != 0
      && sscanf (size, "%dx%d", &width, &height) != 2)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("“%s” is not a size"), size);
      return FALSE;
    }

  /* exports are for documents: light style, no hover box */
  copy = tb_chart_data_copy (self->data);
  copy->dark = FALSE;
  copy->hover_active = FALSE;
  if (!tb_chart_export (copy, file, width, height, error))
    return FALSE;
  if (saved_path != NULL)
    *saved_path = g_steal_pointer (&file);
  return TRUE;
}

static void
export_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    TbChartView     *self)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *saved = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      path = g_file_get_path (file);
    }
  if (path != NULL)
    {
      if (tb_chart_view_save (self, path,
                              gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (dialog), "format"),
                              gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (dialog), "size"),
                              &saved, &error))
        {
          g_autofree char *base = g_path_get_basename (saved);
          g_autofree char *msg = g_strdup_printf (_("Chart saved as “%s”"), base);

          show_toast (self, msg);
        }
      else
        show_toast (self, error->message);
    }

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

void
tb_chart_view_export (TbChartView *self)
{
  GtkFileChooserNative *dialog;
  GtkFileFilter *filter;
  g_autofree char *name = NULL;
  g_autofree char *widget_size = NULL;
  g_autoptr(GFile) folder = NULL;
  const char *size_ids[] = { "widget", "1280x720", "1920x1080", "3840x2160", NULL };
  const char *size_labels[5] = { NULL };
  const char *format_ids[] = { "png", "svg", NULL };
  const char *format_labels[] = { "PNG", "SVG", NULL };
  GtkRoot *root;

  g_return_if_fail (TB_IS_CHART_VIEW (self));

  if (self->data == NULL)
    return;

  root = gtk_widget_get_root (GTK_WIDGET (self));
  dialog = gtk_file_chooser_native_new (_("Export Chart"),
                                        GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        GTK_FILE_CHOOSER_ACTION_SAVE,
                                        _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);

  filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, _("PNG and SVG images"));
  gtk_file_filter_add_suffix (filter, "png");
  gtk_file_filter_add_suffix (filter, "svg");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);

  widget_size = g_strdup_printf (_("As shown (%d×%d)"),
                                 gtk_widget_get_width (GTK_WIDGET (self)),
                                 gtk_widget_get_height (GTK_WIDGET (self)));
  size_labels[0] = widget_size;
  size_labels[1] = "1280×720";
  size_labels[2] = "1920×1080";
  size_labels[3] = "3840×2160";
  gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (dialog), "size", _("Size"), size_ids, size_labels);
  gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (dialog), "size", "widget");
  gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (dialog), "format", _("Format"), format_ids, format_labels);
  gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (dialog), "format", "png");

  folder = tb_platform_pictures_folder ();
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), folder, NULL);
  name = g_strdup_printf ("%s.png", self->name ? self->name : "chart");
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);

  g_signal_connect (dialog, "response", G_CALLBACK (export_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  tb_chart_view_export (TB_CHART_VIEW (widget));
}

static void
tb_chart_view_dispose (GObject *object)
{
  TbChartView *self = TB_CHART_VIEW (object);

  g_clear_pointer (&self->menu, gtk_widget_unparent);
  g_clear_pointer (&self->button, gtk_widget_unparent);
  G_OBJECT_CLASS (tb_chart_view_parent_class)->dispose (object);
}

static void
tb_chart_view_finalize (GObject *object)
{
  TbChartView *self = TB_CHART_VIEW (object);

  g_clear_pointer (&self->data, tb_chart_data_free);
  g_free (self->name);
  G_OBJECT_CLASS (tb_chart_view_parent_class)->finalize (object);
}

static void
tb_chart_view_size_allocate (GtkWidget *widget,
                             int        width,
                             int        height,
                             int        baseline)
{
  TbChartView *self = TB_CHART_VIEW (widget);
  GtkRequisition button;

  gtk_popover_present (GTK_POPOVER (self->menu));
  gtk_widget_get_preferred_size (self->button, &button, NULL);
  gtk_widget_size_allocate (self->button,
                            &(GtkAllocation) { width - button.width - 4, 4, button.width, button.height },
                            -1);
}

static void
tb_chart_view_measure (GtkWidget      *widget,
                       GtkOrientation  orientation,
                       int             for_size,
                       int            *minimum,
                       int            *natural,
                       int            *minimum_baseline,
                       int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 160 : 120;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 420 : 240;
}

enum
{
  PROP_0,
  PROP_EXPORT_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
tb_chart_view_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  TbChartView *self = TB_CHART_VIEW (object);

  switch (prop_id)
    {
    case PROP_EXPORT_NAME:
      g_value_set_string (value, self->name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tb_chart_view_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  TbChartView *self = TB_CHART_VIEW (object);

  switch (prop_id)
    {
    case PROP_EXPORT_NAME:
      tb_chart_view_set_name (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
tb_chart_view_class_init (TbChartViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tb_chart_view_dispose;
  object_class->finalize = tb_chart_view_finalize;
  object_class->get_property = tb_chart_view_get_property;
  object_class->set_property = tb_chart_view_set_property;

  /* the file-name stem of exports, so a page's .ui can name its charts */
  properties[PROP_EXPORT_NAME] =
    g_param_spec_string ("export-name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  widget_class->snapshot = tb_chart_view_snapshot;
  widget_class->measure = tb_chart_view_measure;
  widget_class->size_allocate = tb_chart_view_size_allocate;

  gtk_widget_class_install_action (widget_class, "chart.export", NULL, export_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "chart.export", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Menu, 0, "chart.export", NULL);
  gtk_widget_class_set_css_name (widget_class, "tbchart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
tb_chart_view_init (TbChartView *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkGesture *click = gtk_gesture_click_new ();
  g_autoptr(GMenu) menu = g_menu_new ();

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  g_signal_connect (motion, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect (motion, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  g_signal_connect (click, "pressed", G_CALLBACK (pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  g_menu_append (menu, _("_Export Chart…"), "chart.export");
  /* the button names the shortcut; the chart itself needs no tooltip */
  self->menu = gtk_popover_menu_new_from_model (G_MENU_MODEL (menu));
  gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
  gtk_widget_set_halign (self->menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->menu, GTK_WIDGET (self));

  self->button = gtk_button_new_from_icon_name ("document-save-symbolic");
  gtk_widget_add_css_class (self->button, "flat");
  gtk_widget_add_css_class (self->button, "circular");
  gtk_widget_set_tooltip_text (self->button, _("Export Chart… (Ctrl+E)"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->button), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Export Chart…"), -1);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->button), "chart.export");
  gtk_widget_set_parent (self->button, GTK_WIDGET (self));
}

GtkWidget *
tb_chart_view_new (void)
{
  return g_object_new (TB_TYPE_CHART_VIEW, NULL);
}

void
tb_chart_view_set_data (TbChartView *self,
                        TbChartData *data)
{
  g_return_if_fail (TB_IS_CHART_VIEW (self));

  if (self->data == data)
    return;
  g_clear_pointer (&self->data, tb_chart_data_free);
  self->data = data;
  if (data != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                    GTK_ACCESSIBLE_PROPERTY_LABEL, data->title,
                                    -1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

TbChartData *
tb_chart_view_get_data (TbChartView *self)
{
  g_return_val_if_fail (TB_IS_CHART_VIEW (self), NULL);
  return self->data;
}

void
tb_chart_view_changed (TbChartView *self)
{
  g_return_if_fail (TB_IS_CHART_VIEW (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
tb_chart_view_set_name (TbChartView *self,
                        const char  *name)
{
  g_return_if_fail (TB_IS_CHART_VIEW (self));
  if (g_strcmp0 (self->name, name) == 0)
    return;
  g_free (self->name);
  self->name = g_strdup (name);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXPORT_NAME]);
}
