/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-platform.h: what the `trainbench` program sets up about its system
 * before anything else: its translations, and on Windows the console of a
 * headless export and a font workaround for wine 8; and whether it runs
 * from a build tree, where its schema and translations are found then.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Call first thing in main; `headless` when no window will open. */
void tb_platform_init (gboolean headless);

/* Call `stop (data)` on the main loop when the system asks the app to end,
 * as the CLI's runs stop: on SIGTERM (logout, kill, systemctl stop), SIGHUP
 * (its terminal went away) or SIGINT (Ctrl-C in that terminal); a second
 * such signal ends the app at once, by that signal. A signal ignored when
 * the app started (nohup's SIGHUP) stays ignored. Nothing on Windows,
 * whose logoff closes the windows. Unwatch stops watching. */
typedef void (*TbPlatformStopFunc) (gpointer data);
void tb_platform_watch_stop_signals (TbPlatformStopFunc stop,
                                     gpointer           data);
void tb_platform_unwatch_stop_signals (void);

/* The meson build tree the running program was built in (the program is
 * BUILD/app/trainbench), or NULL for an installed program. An installed
 * program has no build path compiled in: this is found from where the
 * program is, so packages stay reproducible and `tools/run` finds the
 * schema (BUILD/data) and translations (BUILD/po) it built. */
const char *tb_platform_build_dir (void);

/* Where a save dialog for pictures opens: the user's Pictures folder, or
 * the home folder where there is none (never the folder the program was
 * started in, such as a source checkout). */
GFile *tb_platform_pictures_folder (void);

G_END_DECLS
