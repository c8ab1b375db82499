/* tb-platform.h: what the `trainbench` program sets up about its system
 * before anything else: its translations, and on Windows the console of a
 * headless export and a font workaround for wine 8.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Call first thing in main; `headless` when no window will open. */
void tb_platform_init (gboolean headless);

G_END_DECLS
