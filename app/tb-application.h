/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-application.h: the AdwApplication: app actions, preferences, about,
 * style, and where settings come from.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define TB_TYPE_APPLICATION (tb_application_get_type ())
G_DECLARE_FINAL_TYPE (TbApplication, tb_application, TB, APPLICATION, AdwApplication)

TbApplication *tb_application_new (void);

/* The app's GSettings: the installed schema, else the one compiled in the
 * build folder (running uninstalled). */
GSettings *tb_settings_new (void);

G_END_DECLS
