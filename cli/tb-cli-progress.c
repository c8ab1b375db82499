/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-progress.c: how a training run shows its progress in a terminal: a
 * single line redrawn with \r on a TTY, plain lines when the output goes to
 * a file or a pipe (so logs stay readable), and one line per epoch in both.
 */

#include "tb-cli-common.h"

#include <string.h>

/* A TTY bar is redrawn at most this often: faster only costs CPU. */
#define REDRAW_SECONDS 0.1

void
tb_cli_progress_init (TbCliProgress *progress, bool quiet)
{
  memset (progress, 0, sizeof *progress);
  progress->out = stdout;
  progress->quiet = quiet;
  progress->tty = tb_cli_os_stdout_is_terminal (&progress->ansi);
  progress->columns = progress->tty ? tb_cli_os_terminal_columns () : 80;
  progress->last_draw = -1.0;
}

void
tb_cli_progress_finish (TbCliProgress *progress)
{
  if (progress->bar_shown)
    {
      if (progress->ansi)
        tb_cli_fprint (progress->out, "\r\033[K");
      else
        tb_cli_fprint (progress->out, "\r%*s\r", progress->columns - 1, "");
      tb_cli_fflush (progress->out);
      progress->bar_shown = false;
    }
}

static void
format_rate (double samples_per_second, char *out, size_t size)
{
  if (samples_per_second >= 100.0 || samples_per_second <= 0.0)
    snprintf (out, size, "%.0f", samples_per_second);
  else
    snprintf (out, size, "%.1f", samples_per_second);
}

static void
print_epoch_line (TbCliProgress *progress, const NnProgress *r)
{
  char rate[32];

  format_rate (r->samples_per_second, rate, sizeof rate);
  tb_cli_fprint (progress->out,
                 "%sepoch %d/%d  %.1f s  loss %.4f  acc %.4f  test_loss %.4f  test_acc %.4f  %s "
                 "samples/s\n",
                 progress->prefix ? progress->prefix : "", r->epoch, r->epochs, r->epoch_seconds,
                 r->train_loss, r->train_accuracy, r->test_loss, r->test_accuracy, rate);
}

/* epoch 1/10 [#######.............] 650/1875 loss 0.5123 acc 0.8120 5012 samples/s ETA 0:42 */
static void
draw_bar (TbCliProgress *progress, const NnProgress *r)
{
  char head[64], tail[160], eta[32], rate[32], bar[128], line[512];
  double fraction = 0.0;
  int bar_width;

  /* The window may have been resized since the last redraw. */
  progress->columns = tb_cli_os_terminal_columns ();
  format_rate (r->samples_per_second, rate, sizeof rate);
  tb_cli_format_duration (r->eta_seconds, eta, sizeof eta);
  snprintf (head, sizeof head, "%sepoch %d/%d ", progress->prefix ? progress->prefix : "",
            r->epoch, r->epochs);
  snprintf (tail, sizeof tail, " %d/%lld loss %.4f acc %.4f %s samples/s ETA %s", r->step_in_epoch,
            (long long) r->steps_per_epoch, r->loss, r->accuracy, rate,
            r->eta_seconds < 0 ? "?" : eta);

  if (r->steps_per_epoch > 0)
    fraction = (double) r->step_in_epoch / (double) r->steps_per_epoch;
  if (fraction > 1.0)
    fraction = 1.0;

  /* The bar takes what the text leaves of the line, within 10..40 cells. */
  bar_width = progress->columns - 1 - (int) strlen (head) - (int) strlen (tail) - 2;
  if (bar_width > 40)
    bar_width = 40;
  if (bar_width >= 10)
    {
      int filled = (int) (fraction * bar_width + 0.5);
      bar[0] = '[';
      for (int i = 0; i < bar_width; i++)
        bar[1 + i] = i < filled ? '#' : '.';
      bar[1 + bar_width] = ']';
      bar[2 + bar_width] = '\0';
    }
  else
    bar[0] = '\0';

  snprintf (line, sizeof line, "%s%s%s", head, bar, tail);
  /* Never wrap: a wrapped line cannot be redrawn with \r. */
  if ((int) strlen (line) > progress->columns - 1)
    line[progress->columns - 1] = '\0';
  if (progress->ansi)
    tb_cli_fprint (progress->out, "\r%s\033[K", line);
  else
    /* no escape sequences: spaces clear what a longer line left */
    tb_cli_fprint (progress->out, "\r%-*s", progress->columns - 1, line);
  tb_cli_fflush (progress->out);
  progress->bar_shown = true;
}

static void
print_step_line (TbCliProgress *progress, const NnProgress *r)
{
  char rate[32], eta[32];

  format_rate (r->samples_per_second, rate, sizeof rate);
  tb_cli_format_duration (r->eta_seconds, eta, sizeof eta);
  tb_cli_fprint (progress->out,
                 "%sepoch %d/%d  step %d/%lld  loss %.4f  acc %.4f  %s samples/s  ETA %s\n",
                 progress->prefix ? progress->prefix : "", r->epoch, r->epochs, r->step_in_epoch,
                 (long long) r->steps_per_epoch, r->loss, r->accuracy, rate,
                 r->eta_seconds < 0 ? "?" : eta);
  tb_cli_fflush (progress->out);
}

bool
tb_cli_progress_cb (const NnProgress *report, void *user_data)
{
  TbCliProgress *progress = user_data;

  if (progress->quiet)
    return true;
  if (report->kind == NN_PROGRESS_EPOCH_END)
    {
      tb_cli_progress_finish (progress);
      print_epoch_line (progress, report);
      tb_cli_fflush (progress->out);
      progress->last_draw = -1.0;
      return true;
    }
  if (!progress->tty)
    {
      print_step_line (progress, report);
      return true;
    }
  double now = tb_cli_now ();
  if (progress->last_draw >= 0.0 && now - progress->last_draw < REDRAW_SECONDS
      && report->step_in_epoch < report->steps_per_epoch)
    return true;
  progress->last_draw = now;
  draw_bar (progress, report);
  return true;
}
