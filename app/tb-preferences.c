/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-preferences.c: the preferences window (tb-preferences.ui). Every
 * control is bound to a GSettings key, so changes apply at once and
 * persist; the device list is asked for in a worker, behind a spinner row.
 */
#define G_LOG_DOMAIN "trainbench-preferences"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "trainbench.h"
#include "tb-application.h"
#include "tb-devices.h"
#include "tb-preferences.h"

struct _TbPreferencesWindow
{
  AdwPreferencesWindow parent_instance;

  /* owned */
  GSettings *settings;
  GCancellable *cancellable;     /* the device list's request, cancelled when the window goes */
  GtkStringList *device_ids;     /* "cpu", "cuda:0": the id of each of device_row's items */

  /* template widgets */
  AdwActionRow *folder_row;
  GtkWidget *device_looking_row; /* in device_row's place until the devices are listed */
  AdwComboRow *device_row;
  GtkWidget *threads_spin;
  GtkWidget *tf32_switch;
  AdwComboRow *style_row;
};

G_DEFINE_FINAL_TYPE (TbPreferencesWindow, tb_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

/* the color-scheme setting's values, in the order of style_row's items */
static const char *scheme_ids[] = { "default", "light", "dark", NULL };

static void
update_folder_row (TbPreferencesWindow *self)
{
  g_autofree char *folder = g_settings_get_string (self->settings, "runs-folder");
  char def[4096];

  if (folder == NULL || *folder == '\0')
    {
      g_autofree char *text = NULL;

      nn_runs_dir (def, sizeof def);
      text = g_strdup_printf (_("%s (default)"), def);
      adw_action_row_set_subtitle (self->folder_row, text);
    }
  else
    adw_action_row_set_subtitle (self->folder_row, folder);
}

static void
folder_changed_cb (TbPreferencesWindow *self,
                   const char          *key,
                   GSettings           *settings)
{
  update_folder_row (self);
}

static void
folder_response_cb (GtkNativeDialog     *dialog,
                    int                  response,
                    TbPreferencesWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);

      if (path != NULL)
        g_settings_set_string (self->settings, "runs-folder", path);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
choose_folder_cb (TbPreferencesWindow *self,
                  GtkButton           *button)
{
  GtkFileChooserNative *dialog =
    gtk_file_chooser_native_new (_("Runs Folder"), GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                 _("_Select"), _("_Cancel"));

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  /* the window stays until the answer, which comes once */
  g_signal_connect (dialog, "response", G_CALLBACK (folder_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
reset_folder_cb (TbPreferencesWindow *self,
                 GtkButton           *button)
{
  g_settings_reset (self->settings, "runs-folder");
}

static gboolean
scheme_get_mapping (GValue   *value,
                    GVariant *variant,
                    gpointer  user_data)
{
  const char *s = g_variant_get_string (variant, NULL);

  for (guint i = 0; scheme_ids[i] != NULL; i++)
    if (g_strcmp0 (s, scheme_ids[i]) == 0)
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  g_value_set_uint (value, 0);
  return TRUE;
}

static GVariant *
scheme_set_mapping (const GValue       *value,
                    const GVariantType *type,
                    gpointer            user_data)
{
  guint i = g_value_get_uint (value);

  return g_variant_new_string (i < 3 ? scheme_ids[i] : "default");
}

/* ------------------------------------------------------------ devices */

/* Listing the devices can take seconds (tb-devices.h): a spinner row waits
 * in the combo row's place until the worker answers. */

static void
device_selected_cb (TbPreferencesWindow *self,
                    GParamSpec          *pspec,
                    AdwComboRow         *row)
{
  guint i = adw_combo_row_get_selected (row);
  const char *id = gtk_string_list_get_string (self->device_ids, i);

  if (id != NULL)
    g_settings_set_string (self->settings, "default-device", id);
}

/* Main thread: the devices are known; the combo row takes the spinner's
 * place. */
static void
devices_listed_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree TbDeviceList *list = tb_device_list_finish (result, &error);
  TbPreferencesWindow *self;
  g_autoptr(GtkStringList) device_names = NULL;
  g_autofree char *current = NULL;
  int selected;

  if (list == NULL)
    return;   /* cancelled: the window closed first, and may be freed */

  self = TB_PREFERENCES_WINDOW (user_data);
  device_names = gtk_string_list_new (NULL);
  current = g_settings_get_string (self->settings, "default-device");

  for (int i = 0; i < list->n; i++)
    {
      const NnDeviceInfo *dev = &list->devices[i];
      g_autofree char *id = tb_device_id (dev);
      g_autofree char *label = NULL;

      if (dev->kind == NN_DEVICE_CUDA && !dev->usable)
        label = g_strdup_printf (_("GPU %d · %s (not usable)"), dev->index, dev->name);
      else
        label = tb_device_title (dev);
      gtk_string_list_append (self->device_ids, id);
      gtk_string_list_append (device_names, label);
    }
  /* the stored choice, even a GPU not usable here (the setting stays) */
  selected = tb_device_list_find (list, current);
  adw_combo_row_set_model (self->device_row, G_LIST_MODEL (device_names));
  adw_combo_row_set_selected (self->device_row, selected >= 0 ? (guint) selected : 0);
  /* connected now, so showing the stored choice does not write it back */
  g_signal_connect_swapped (self->device_row, "notify::selected",
                            G_CALLBACK (device_selected_cb), self);
  gtk_widget_set_visible (self->device_looking_row, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->device_row), TRUE);
}

/* ------------------------------------------------------------ class */

static void
tb_preferences_window_dispose (GObject *object)
{
  TbPreferencesWindow *self = TB_PREFERENCES_WINDOW (object);

  /* the request does not hold the window: its answer, cancelled, touches
   * nothing */
  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), TB_TYPE_PREFERENCES_WINDOW);
  G_OBJECT_CLASS (tb_preferences_window_parent_class)->dispose (object);
}

static void
tb_preferences_window_finalize (GObject *object)
{
  TbPreferencesWindow *self = TB_PREFERENCES_WINDOW (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->device_ids);
  G_OBJECT_CLASS (tb_preferences_window_parent_class)->finalize (object);
}

static void
tb_preferences_window_class_init (TbPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = tb_preferences_window_dispose;
  object_class->finalize = tb_preferences_window_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/tb-preferences.ui");
  gtk_widget_class_bind_template_child (widget_class, TbPreferencesWindow, folder_row);
  gtk_widget_class_bind_template_child (widget_class, TbPreferencesWindow, device_looking_row);
  gtk_widget_class_bind_template_child (widget_class, TbPreferencesWindow, device_row);
  gtk_widget_class_bind_template_child (widget_class, TbPreferencesWindow, threads_spin);
  gtk_widget_class_bind_template_child (widget_class, TbPreferencesWindow, tf32_switch);
  gtk_widget_class_bind_template_child (widget_class, TbPreferencesWindow, style_row);
  gtk_widget_class_bind_template_callback (widget_class, choose_folder_cb);
  gtk_widget_class_bind_template_callback (widget_class, reset_folder_cb);
}

static void
tb_preferences_window_init (TbPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = tb_settings_new ();
  self->cancellable = g_cancellable_new ();
  self->device_ids = gtk_string_list_new (NULL);

  update_folder_row (self);
  g_signal_connect_object (self->settings, "changed::runs-folder", G_CALLBACK (folder_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_settings_bind (self->settings, "threads", self->threads_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "tf32", self->tf32_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (self->settings, "color-scheme", self->style_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, scheme_get_mapping, scheme_set_mapping,
                                NULL, NULL);

  tb_device_list_async (self->cancellable, devices_listed_cb, self);
}

GtkWidget *
tb_preferences_window_new (GtkWindow *parent)
{
  return g_object_new (TB_TYPE_PREFERENCES_WINDOW, "transient-for", parent, NULL);
}
