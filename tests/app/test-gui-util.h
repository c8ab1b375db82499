/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-gui-util.h: helpers shared by the GUI tests: a private environment
 * (data home, memory settings), the test's application, a tiny IDX data set
 * on disk, main-loop waits and window screenshots.
 */
#pragma once

#include "tb-application.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Point XDG_DATA_HOME at a fresh folder and use in-memory settings; returns
 * the folder (owned by the util, removed at exit unless KEEP_TEST_FILES). */
const char *tb_test_setup_env (void);

/* After g_test_init: warnings stay fatal except the ones about a missing
 * session bus (CI containers have none; the app works without it). */
void tb_test_allow_no_session_bus (void);

/* The start of every GUI test's main: tb_test_setup_env (its folder in
 * *root, may be NULL), g_test_init, tb_test_allow_no_session_bus, then GTK
 * and libadwaita. Returns -1 to go on, or the status main returns: without a
 * display the test is skipped (TAP's "skip all"), or it fails when
 * TRAINBENCH_REQUIRE_DISPLAY is set (.ci/run starts Xvfb and sets it, so
 * a missing display there cannot pass unseen). */
int tb_test_gui_init (int          *argc,
                      char       ***argv,
                      const char  **root);

/* The application every window of a test belongs to: non-unique (tests
 * run side by side), with `flags` added, registered. */
TbApplication *tb_test_app_new (GApplicationFlags flags);

/* Write a small IDX data set (the four usual raw files) into `folder`:
 * `classes` classes of 28x28 images, each a bar in its own place. */
gboolean tb_test_write_idx (const char *folder,
                            int         train,
                            int         test,
                            int         classes);

/* Iterate the main loop until *flag is TRUE or timeout_s passes. */
gboolean tb_test_wait_for (gboolean *flag,
                           double    timeout_s);
/* Iterate until `check (data)` returns TRUE or timeout_s passes. */
gboolean tb_test_wait_until (gboolean (*check) (gpointer data),
                             gpointer  data,
                             double    timeout_s);
/* Run the main loop for about `ms` milliseconds. */
void tb_test_spin (guint ms);

/* Render a realized widget (normally a window) to a PNG file. */
gboolean tb_test_screenshot (GtkWidget  *widget,
                             const char *path,
                             GError    **error);

/* The newest visible window other than `main` (a dialog), or NULL. */
GtkWindow *tb_test_newest_dialog (GtkWindow *main);

G_END_DECLS
