/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-preferences.h: the preferences window (runs folder, default device and
 * threads, TF32, style), bound to GSettings.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

GtkWidget *tb_preferences_window_new (GtkWindow *parent);

G_END_DECLS
