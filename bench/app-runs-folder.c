/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app-runs-folder.c: the app's window on a big runs folder, timed: how long
 * until the window answers (its first frame) and until the whole history is
 * listed, the longest time the main loop did not turn meanwhile, the same
 * after the Runs page is left and shown again, and the memory it took. A
 * development probe, not a test: it links a build's static libraries, so a
 * build before a change and one after can be compared on the same folder.
 *
 *   bench/runs-folder.py /tmp/runs50k/trainbench/runs 50000 A.json B.json
 *   gcc -O2 -std=gnu11 -o app-runs-folder bench/app-runs-folder.c \
 *     BUILD/app/tb-resources.c -Iapp -IBUILD/app -Iengine \
 *     -Wl,--whole-archive BUILD/app/libtbgui.a -Wl,--no-whole-archive \
 *     BUILD/engine/libtrainbench.a BUILD/engine/libtrainbench-kernels-*.a \
 *     $(pkg-config --cflags --libs gtk4 libadwaita-1 json-glib-1.0 zlib) -lm -lpthread -ldl
 *   GSK_RENDERER=cairo GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR=BUILD/data \
 *     XDG_DATA_HOME=/tmp/runs50k /usr/bin/time -v ./app-runs-folder 50000
 *
 * (A.json, B.json: result files of `trainbench-cli train`.) Built with
 * -DRUNS_PAGE_BEFORE_HISTORY it times a tree from before the run history
 * was a model of its own (92aa0ce and older), whose Runs page held it.
 * BENCH_GAPS=1 prints every stall of the main loop over 0.1 s as it ends.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <adwaita.h>

#include "tb-application.h"
#include "tb-window.h"
#ifndef RUNS_PAGE_BEFORE_HISTORY
#include "tb-run-history.h"
#endif

static gint64 t0;        /* start, monotonic µs */
static gint64 t_frame;   /* the window's first frame */

/* A thread asks the main loop to run a callback every 5 ms and times how
 * long it waits for each: the longest wait is the longest the window did
 * not answer. */
static GMutex lock;
static GCond cond;
static gboolean answered;
static gint64 answered_at;
static gint64 max_gap, max_gap_at;

static gboolean
pong_cb (gpointer data)
{
  g_mutex_lock (&lock);
  answered = TRUE;
  answered_at = g_get_monotonic_time ();
  g_cond_signal (&cond);
  g_mutex_unlock (&lock);
  return G_SOURCE_REMOVE;
}

static gpointer
ping_thread (gpointer data)
{
  for (;;)
    {
      gint64 sent = g_get_monotonic_time ();
      GSource *source = g_idle_source_new ();

      g_mutex_lock (&lock);
      answered = FALSE;
      g_mutex_unlock (&lock);
      g_source_set_priority (source, G_PRIORITY_HIGH);
      g_source_set_callback (source, pong_cb, NULL, NULL);
      g_source_attach (source, g_main_context_default ());
      g_source_unref (source);
      g_mutex_lock (&lock);
      while (!answered)
        g_cond_wait (&cond, &lock);
      if (answered_at - sent > 100000 && g_getenv ("BENCH_GAPS") != NULL)
        printf ("  stall %.3f s at %.2f s\n", (answered_at - sent) / 1e6, (sent - t0) / 1e6);
      if (answered_at - sent > max_gap)
        {
          max_gap = answered_at - sent;
          max_gap_at = sent;
        }
      g_mutex_unlock (&lock);
      g_usleep (5000);
    }
  return NULL;
}

static void
after_paint_cb (GdkFrameClock *clock,
                gpointer       data)
{
  if (t_frame != 0)
    return;
  t_frame = g_get_monotonic_time ();
  /* the window's own making is not the runs' */
  g_mutex_lock (&lock);
  max_gap = 0;
  g_mutex_unlock (&lock);
}

/* Runs listed, and loads still to finish. */
static guint
n_listed (TbWindow *w,
          guint    *pending)
{
#ifdef RUNS_PAGE_BEFORE_HISTORY
  TbRunsPage *page = tb_window_get_runs_page (w);
  *pending = tb_runs_page_get_n_pending (page);
  return tb_runs_page_get_runs (page) != NULL ? tb_runs_page_get_runs (page)->len : 0;
#else
  TbRunHistory *history = tb_window_get_history (w);
  *pending = tb_run_history_get_n_pending (history);
  return g_list_model_get_n_items (G_LIST_MODEL (history));
#endif
}

static long
status_kb (const char *key)
{
  char line[256];
  long v = -1;
  FILE *f = fopen ("/proc/self/status", "r");

  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, key, strlen (key)) == 0)
      v = atol (line + strlen (key) + 1);
  if (f != NULL)
    fclose (f);
  return v;
}

static void
spin_ms (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
}

static void
print_memory (void)
{
  struct mallinfo2 mi = mallinfo2 ();

  printf ("memory: peak %ld MB, now %ld MB; malloc in use %zu MB\n",
          status_kb ("VmHWM:") / 1024, status_kb ("VmRSS:") / 1024, mi.uordblks >> 20);
}

int
main (int    argc,
      char **argv)
{
  guint expect = argc > 1 ? (guint) atoi (argv[1]) : 0;
  guint pending = 1, n = 0;
  gint64 t_full = 0;

  setvbuf (stdout, NULL, _IONBF, 0);
  t0 = g_get_monotonic_time ();
  gtk_init ();
  adw_init ();
  TbApplication *app = tb_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, NULL);
  g_thread_new ("ping", ping_thread, NULL);
  TbWindow *w = tb_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (w), 1280, 860);
  tb_window_show_page (w, "runs");
  gtk_window_present (GTK_WINDOW (w));
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (w)), "after-paint",
                    G_CALLBACK (after_paint_cb), NULL);

  while (t_full == 0 && g_get_monotonic_time () - t0 < 900 * G_USEC_PER_SEC)
    {
      g_main_context_iteration (NULL, TRUE);
      n = n_listed (w, &pending);
      if (pending == 0 && n >= expect)
        t_full = g_get_monotonic_time ();
    }
  /* listed in the model; shown once the main loop answers again */
  gint64 asked = g_get_monotonic_time ();
  for (;;)
    {
      g_main_context_iteration (NULL, TRUE);
      g_mutex_lock (&lock);
      gint64 at = answered ? answered_at : 0;
      g_mutex_unlock (&lock);
      if (at > asked + 20000)
        break;
    }
  t_full = g_get_monotonic_time ();
  /* the ping thread records the stall that just ended */
  spin_ms (50);

  printf ("runs listed            %u\n", n);
  printf ("first frame            %.2f s\n", (t_frame - t0) / 1e6);
  printf ("full list, shown       %.2f s\n", (t_full - t0) / 1e6);
  printf ("longest stall loading  %.3f s (from %.2f s)\n", max_gap / 1e6, (max_gap_at - t0) / 1e6);
  print_memory ();

  /* another page, then the Runs page again */
  tb_window_show_page (w, "explore");
  spin_ms (1000);
  g_mutex_lock (&lock);
  max_gap = 0;
  g_mutex_unlock (&lock);
  tb_window_show_page (w, "runs");
  spin_ms (3000);
  printf ("Runs page shown again: longest stall %.3f s\n", max_gap / 1e6);
  print_memory ();
  return 0;
}
