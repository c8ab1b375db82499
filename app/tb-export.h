/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-export.h: the headless command line of `trainbench`: export comparison
 * charts (PNG/SVG) and runs (CSV/JSON) from result files, without a display.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when argv asks for a headless export (then tb_export_main runs it). */
gboolean tb_export_wanted (int    argc,
                           char **argv);
/* Run the export; returns the process exit status (0 ok, 1 failed, 2 usage). */
int tb_export_main (int    argc,
                    char **argv);

G_END_DECLS
