/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-glib.h: for the fuzz targets of GLib code: a GLib warning or
 * critical (a g_return_if_fail, a misused API) stops the fuzzer with
 * abort(), which libFuzzer catches and saves the input for; GLib's own
 * fatal path ends in a breakpoint trap, which libFuzzer does not catch.
 */
#pragma once

#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

static void
fuzz_log_cb (const char     *log_domain,
             GLogLevelFlags  log_level,
             const char     *message,
             gpointer        user_data)
{
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    {
      fprintf (stderr, "%s: %s\n", log_domain != NULL ? log_domain : "GLib", message);
      abort ();
    }
}

static inline void
fuzz_glib_init (void)
{
  g_log_set_default_handler (fuzz_log_cb, NULL);
}
