/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-print.c: everything trainbench-cli prints goes through here.
 *
 * Every %s and %c argument is text that may come from a file, a file name,
 * an engine message or the environment: it is printed through the engine's
 * nn_text_vformat_for_terminal, so a result field or a file name holding
 * ESC sequences, a \r or OSC 52 reaches the terminal escaped, never acted
 * on. The formats are the CLI's own text and are written as they are (the
 * line breaks, the progress bar's \r and ESC [ K).
 *
 * A stream that can no longer be written (its reader closed the pipe:
 * `| head`, `| grep -m1`, a dead tee or ssh) is given up: nothing more is
 * written to it, and the run goes on to save its result. SIGPIPE is
 * ignored for that (tb-cli-os.c), so a write fails instead of ending the
 * process.
 */

#include "tb-cli-common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Whether stdout and stderr were given up. */
static bool stdout_lost;
static bool stderr_lost;

static bool *
lost_flag (FILE *stream)
{
  return stream == stdout ? &stdout_lost : stream == stderr ? &stderr_lost : NULL;
}

static bool
output_lost (FILE *stream)
{
  bool *lost = lost_flag (stream);
  return lost != NULL && *lost;
}

/* `stream` failed (errno `e`, 0 when unknown): give it up, and say so once
 * on stderr while that still works, so a user whose tee died learns that
 * the run goes on. */
static void
give_up (FILE *stream, int e)
{
  bool *lost = lost_flag (stream);

  if (lost == NULL || *lost)
    return;
  *lost = true;
  if (stream == stdout && !stderr_lost)
    {
      fprintf (stderr, TB_CLI_NAME ": standard output could not be written%s%s%s: nothing more "
               "is printed there, and the command goes on (a run still saves its result)\n",
               e != 0 ? " (" : "", e != 0 ? strerror (e) : "", e != 0 ? ")" : "");
      if (fflush (stderr) != 0 || ferror (stderr))
        stderr_lost = true;
    }
}

/* Whether `stream` may still be written; a write error stdio kept from an
 * earlier write gives it up now. */
static bool
writable (FILE *stream)
{
  if (output_lost (stream))
    return false;
  if (ferror (stream))
    {
      give_up (stream, 0);
      return lost_flag (stream) == NULL;
    }
  return true;
}

static void
put (FILE *stream, const char *text, size_t n)
{
  errno = 0;
  if (n > 0 && fwrite (text, 1, n, stream) != n)
    give_up (stream, errno);
}

/* `format` with its arguments made safe, after `prefix` and before
 * `suffix` (the CLI's own text), written to `stream` in one write. */
static void write_formatted (FILE *stream, const char *prefix, const char *format, va_list args,
                             const char *suffix) TB_CLI_PRINTF (3, 0);

static void
write_formatted (FILE *stream, const char *prefix, const char *format, va_list args,
                 const char *suffix)
{
  char small[4096];
  size_t before = strlen (prefix), after = strlen (suffix);
  char *text = small;
  va_list copy;

  if (!writable (stream) || before + after >= sizeof small)
    return;
  va_copy (copy, args);
  int need = nn_text_vformat_for_terminal (small + before, sizeof small - before - after, format,
                                           copy);
  va_end (copy);
  if (need < 0)
    return;
  size_t total = before + (size_t) need + after;
  if (total >= sizeof small && (text = malloc (total + 1)) != NULL)
    {
      va_copy (copy, args);
      nn_text_vformat_for_terminal (text + before, (size_t) need + 1, format, copy);
      va_end (copy);
    }
  else if (text == NULL)
    text = small;   /* out of memory: what fitted */
  memcpy (text, prefix, before);
  size_t len = before + strlen (text + before);
  memcpy (text + len, suffix, after + 1);
  put (stream, text, len + after);
  if (text != small)
    free (text);
}

void
tb_cli_vfprint (FILE *stream, const char *format, va_list args)
{
  write_formatted (stream, "", format, args, "");
}

void
tb_cli_vmessage (FILE *stream, const char *format, va_list args)
{
  write_formatted (stream, TB_CLI_NAME ": ", format, args, "\n");
}

void
tb_cli_fprint (FILE *stream, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  tb_cli_vfprint (stream, format, args);
  va_end (args);
}

void
tb_cli_print (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  tb_cli_vfprint (stdout, format, args);
  va_end (args);
}

void
tb_cli_print_lines (const char *text)
{
  for (const char *line = text; *line != '\0';)
    {
      const char *end = strchr (line, '\n');
      size_t n = end != NULL ? (size_t) (end - line) : strlen (line);

      tb_cli_print ("%.*s\n", (int) n, line);
      line += n + (end != NULL);
    }
}

void
tb_cli_fflush (FILE *stream)
{
  if (!writable (stream))
    return;
  errno = 0;
  if (fflush (stream) != 0)
    give_up (stream, errno);
}
