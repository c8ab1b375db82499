/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-devices.c: the device list asked for in a GTask worker, the ids the
 * settings store, and the row shown while the worker looks.
 */
#define G_LOG_DOMAIN "trainbench-devices"

#include "tb-config.h"

#include <glib/gi18n.h>

#include "tb-devices.h"

static void
list_devices_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  TbDeviceList *list = g_new0 (TbDeviceList, 1);

  /* nothing to cancel inside: nn_device_list is one blocking call */
  list->n = nn_device_list (list->devices, TB_MAX_DEVICES);
  g_task_return_pointer (task, list, g_free);
}

void
tb_device_list_async (GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  /* no source object: holding the window would keep GTK 4.8 from
   * disposing it on gtk_window_destroy, so closing could not cancel */
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, tb_device_list_async);
  g_task_run_in_thread (task, list_devices_thread);
}

TbDeviceList *
tb_device_list_finish (GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == tb_device_list_async, NULL);

  /* GTask checks the cancellable here, so a list that arrives after a
   * cancel still reads as cancelled */
  return g_task_propagate_pointer (G_TASK (result), error);
}

int
tb_device_list_find (const TbDeviceList *list,
                     const char         *id)
{
  NnDeviceKind kind = NN_DEVICE_CPU;
  int32_t index = 0;
  NnError err = { 0 };

  g_return_val_if_fail (list != NULL, -1);

  if (id == NULL || nn_device_parse (id, &kind, &index, &err) != NN_OK)
    return -1;
  for (int i = 0; i < list->n; i++)
    if (list->devices[i].kind == kind && (kind == NN_DEVICE_CPU || list->devices[i].index == index))
      return i;
  return -1;
}

int
tb_device_list_choose (const TbDeviceList *list,
                       const char         *id)
{
  int wanted;

  g_return_val_if_fail (list != NULL, -1);

  wanted = tb_device_list_find (list, id);
  if (wanted >= 0 && list->devices[wanted].usable)
    return wanted;
  for (int i = 0; i < list->n; i++)
    if (list->devices[i].usable)
      return i;
  return -1;
}

char *
tb_device_id (const NnDeviceInfo *dev)
{
  g_return_val_if_fail (dev != NULL, NULL);

  if (dev->kind == NN_DEVICE_CPU)
    return g_strdup ("cpu");
  return g_strdup_printf ("cuda:%d", dev->index);
}

char *
tb_device_title (const NnDeviceInfo *dev)
{
  g_return_val_if_fail (dev != NULL, NULL);

  if (dev->kind == NN_DEVICE_CPU)
    return g_strdup_printf (_("CPU · %s"), dev->name);
  return g_strdup_printf (_("GPU %d · %s"), dev->index, dev->name);
}

GtkWidget *
tb_device_looking_row_new (const char *title)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spinner = gtk_spinner_new ();

  if (title != NULL)
    {
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Looking for devices…"));
    }
  else
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Looking for devices…"));
  gtk_widget_set_name (row, "device-looking-row");
  gtk_spinner_start (GTK_SPINNER (spinner));
  gtk_widget_set_valign (spinner, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spinner);
  return row;
}
