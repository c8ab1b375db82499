/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-preferences.h: the preferences window (runs folder, default device and
 * threads, TF32, style), bound to GSettings.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define TB_TYPE_PREFERENCES_WINDOW (tb_preferences_window_get_type ())
G_DECLARE_FINAL_TYPE (TbPreferencesWindow, tb_preferences_window, TB, PREFERENCES_WINDOW,
                      AdwPreferencesWindow)

/* A modal window over `parent` (may be NULL). */
GtkWidget *tb_preferences_window_new (GtkWindow *parent);

G_END_DECLS
