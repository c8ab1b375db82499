/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-preferences.c: the preferences window. Every control is bound to a
 * GSettings key, so changes apply at once and persist; the device list is
 * asked for in a worker, behind a spinner row.
 */
#define G_LOG_DOMAIN "trainbench-preferences"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "trainbench.h"
#include "tb-application.h"
#include "tb-devices.h"
#include "tb-preferences.h"

static const char *scheme_ids[] = { "default", "light", "dark", NULL };

static void
update_folder_row (GtkWidget *row,
                   GSettings *settings)
{
  g_autofree char *folder = g_settings_get_string (settings, "runs-folder");
  char def[4096];

  if (folder == NULL || *folder == '\0')
    {
      g_autofree char *text = NULL;

      nn_runs_dir (def, sizeof def);
      text = g_strdup_printf (_("%s (default)"), def);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), text);
    }
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), folder);
}

static void
folder_changed_cb (GSettings  *settings,
                   const char *key,
                   GtkWidget  *row)
{
  update_folder_row (row, settings);
}

static void
folder_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    GSettings       *settings)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);

      if (path != NULL)
        g_settings_set_string (settings, "runs-folder", path);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
choose_folder_cb (GtkButton *button,
                  GSettings *settings)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (button));
  GtkFileChooserNative *dialog =
    gtk_file_chooser_native_new (_("Runs Folder"), GTK_WINDOW (root),
                                 GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                 _("_Select"), _("_Cancel"));

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (folder_response_cb), settings);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
reset_folder_cb (GtkButton *button,
                 GSettings *settings)
{
  g_settings_reset (settings, "runs-folder");
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
device_selected_cb (AdwComboRow *row,
                    GParamSpec  *pspec,
                    GSettings   *settings)
{
  GtkStringList *ids = g_object_get_data (G_OBJECT (row), "ids");
  guint i = adw_combo_row_get_selected (row);
  const char *id = gtk_string_list_get_string (ids, i);

  if (id != NULL)
    g_settings_set_string (settings, "default-device", id);
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
  GtkWidget *window = user_data;
  GSettings *settings;
  GtkWidget *row, *looking;
  GtkStringList *device_ids;
  g_autoptr(GtkStringList) device_names = NULL;
  g_autofree char *current = NULL;
  int selected;

  if (list == NULL)
    return;   /* cancelled: the window closed first, and may be freed */

  settings = g_object_get_data (G_OBJECT (window), "settings");
  row = g_object_get_data (G_OBJECT (window), "device-row");
  looking = g_object_get_data (G_OBJECT (window), "device-looking-row");
  device_ids = g_object_get_data (G_OBJECT (row), "ids");
  device_names = gtk_string_list_new (NULL);
  current = g_settings_get_string (settings, "default-device");

  for (int i = 0; i < list->n; i++)
    {
      const NnDeviceInfo *dev = &list->devices[i];
      g_autofree char *id = tb_device_id (dev);
      g_autofree char *label = NULL;

      if (dev->kind == NN_DEVICE_CUDA && !dev->usable)
        label = g_strdup_printf (_("GPU %d · %s (not usable)"), dev->index, dev->name);
      else
        label = tb_device_title (dev);
      gtk_string_list_append (device_ids, id);
      gtk_string_list_append (device_names, label);
    }
  /* the stored choice, even a GPU not usable here (the setting stays) */
  selected = tb_device_list_find (list, current);
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (device_names));
  adw_combo_row_set_selected (ADW_COMBO_ROW (row), selected >= 0 ? (guint) selected : 0);
  /* connected now, so showing the stored choice does not write it back */
  g_signal_connect (row, "notify::selected", G_CALLBACK (device_selected_cb), settings);
  gtk_widget_set_visible (looking, FALSE);
  gtk_widget_set_visible (row, TRUE);
}

static void
cancel_on_destroy_cb (GtkWidget    *window,
                      GCancellable *cancellable)
{
  g_cancellable_cancel (cancellable);
}

GtkWidget *
tb_preferences_window_new (GtkWindow *parent)
{
  GSettings *settings = tb_settings_new ();
  GtkWidget *window = adw_preferences_window_new ();
  GtkWidget *page = adw_preferences_page_new ();
  GtkWidget *group, *row, *button, *reset, *spin, *sw;
  g_autoptr(GtkStringList) schemes = gtk_string_list_new (NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_set_modal (GTK_WINDOW (window), TRUE);
  g_object_set_data_full (G_OBJECT (window), "settings", settings, g_object_unref);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (window), ADW_PREFERENCES_PAGE (page));

  /* Runs */
  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Runs"));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));
  row = adw_action_row_new ();
  /* the folder's path is its subtitle: text, never markup */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Runs folder"));
  button = gtk_button_new_with_mnemonic (_("_Choose…"));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  g_signal_connect (button, "clicked", G_CALLBACK (choose_folder_cb), settings);
  reset = gtk_button_new_from_icon_name ("edit-undo-symbolic");
  gtk_widget_set_valign (reset, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (reset, _("Use the default folder"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (reset), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Use the default folder"), -1);
  g_signal_connect (reset, "clicked", G_CALLBACK (reset_folder_cb), settings);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), reset);
  update_folder_row (row, settings);
  g_signal_connect_object (settings, "changed::runs-folder", G_CALLBACK (folder_changed_cb), row, 0);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  /* Defaults for new runs */
  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Training Defaults"));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));

  /* until the worker answers: a spinner row in the combo row's place */
  row = tb_device_looking_row_new (_("Default device"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  g_object_set_data (G_OBJECT (window), "device-looking-row", row);

  row = adw_combo_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Default _device"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  gtk_widget_set_name (row, "device-row");
  gtk_widget_set_visible (row, FALSE);
  g_object_set_data_full (G_OBJECT (row), "ids", gtk_string_list_new (NULL), g_object_unref);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  g_object_set_data (G_OBJECT (window), "device-row", row);

  /* the task does not hold the window, so closing it disposes it at once
   * and cancels; the answer then touches nothing */
  g_object_set_data_full (G_OBJECT (window), "device-cancellable", g_object_ref (cancellable), g_object_unref);
  g_signal_connect (window, "destroy", G_CALLBACK (cancel_on_destroy_cb), cancellable);
  tb_device_list_async (cancellable, devices_listed_cb, window);

  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("CPU _threads"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("0 uses every core"));
  spin = gtk_spin_button_new_with_range (0, 1024, 1);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  g_settings_bind (settings, "threads", spin, "value", G_SETTINGS_BIND_DEFAULT);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Allow _TF32 on GPUs"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  sw = gtk_switch_new ();
  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  g_settings_bind (settings, "tf32", sw, "active", G_SETTINGS_BIND_DEFAULT);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), sw);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), sw);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (sw), GTK_ACCESSIBLE_RELATION_LABELLED_BY, row, NULL, -1);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  /* Appearance */
  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Appearance"));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));
  gtk_string_list_append (schemes, _("Follow the system"));
  gtk_string_list_append (schemes, _("Light"));
  gtk_string_list_append (schemes, _("Dark"));
  row = adw_combo_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("_Style"));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), TRUE);
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (schemes));
  g_settings_bind_with_mapping (settings, "color-scheme", row, "selected", G_SETTINGS_BIND_DEFAULT,
                                scheme_get_mapping, scheme_set_mapping, NULL, NULL);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  return window;
}
