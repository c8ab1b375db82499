/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-devices.h: the compute devices for the Train page and the preferences:
 * listed in a worker (nn_device_list may load the CUDA module and ask the
 * driver, which can take seconds), and the words the app shows for them.
 */
#pragma once

#include <adwaita.h>

#include "trainbench.h"

G_BEGIN_DECLS

#define TB_MAX_DEVICES 16

typedef struct
{
  NnDeviceInfo devices[TB_MAX_DEVICES];
  int n;
} TbDeviceList;

/* List the devices in a worker. Nothing is held but the cancellable: a
 * window passes itself as `user_data` and cancels when it goes (its
 * dispose), so the callback, seeing NULL from _finish, touches nothing. */
void tb_device_list_async (GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data);
/* The list (free with g_free), or NULL with G_IO_ERROR_CANCELLED when the
 * cancellable was cancelled, even if the worker had answered already. */
TbDeviceList *tb_device_list_finish (GAsyncResult  *result,
                                     GError       **error);

/* The device of `id` ("cpu", "cuda:1": the default-device setting's form),
 * or -1. */
int tb_device_list_find (const TbDeviceList *list,
                         const char         *id);
/* The device to preselect: `id` when that one is usable, else the first
 * usable one, else -1. */
int tb_device_list_choose (const TbDeviceList *list,
                           const char         *id);

/* "cpu" or "cuda:N". */
char *tb_device_id (const NnDeviceInfo *dev);
/* "CPU · <name>" or "GPU N · <name>", translated. */
char *tb_device_title (const NnDeviceInfo *dev);

/* The row that stands where the devices will be listed: a spinner and
 * "Looking for devices…", as the title, or as the subtitle under `title`
 * (may be NULL). Named "device-looking-row" for tests. */
GtkWidget *tb_device_looking_row_new (const char *title);

G_END_DECLS
