/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-args.c: the command line of trainbench-cli: options, strict numbers,
 * "did you mean" suggestions and the messages for what is wrong. Every
 * usage error names the option and the text, and points to --help.
 */

#define _POSIX_C_SOURCE 200809L

#include "tb-cli-common.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- messages */

static TbCliExitFunc exit_fn;   /* NULL: exit */
static FILE *messages;          /* NULL: stderr */

void
tb_cli_set_exit (TbCliExitFunc fn, FILE *stream)
{
  exit_fn = fn;
  messages = stream;
}

static TB_CLI_NORETURN void
finish (int status)
{
  if (exit_fn != NULL)
    exit_fn (status);
  exit (status);
}

/* "trainbench-cli: <message>" and a line break, where messages go. */
static FILE *say (const char *format, va_list args) TB_CLI_PRINTF (1, 0);

static FILE *
say (const char *format, va_list args)
{
  FILE *out = messages != NULL ? messages : stderr;

  tb_cli_fflush (stdout);
  tb_cli_vmessage (out, format, args);
  return out;
}

void
tb_cli_error (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  say (format, args);
  va_end (args);
}

void
tb_cli_usage_error (const char *command, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  FILE *out = say (format, args);
  va_end (args);
  if (command != NULL && command[0] != '\0')
    tb_cli_fprint (out, "Try '" TB_CLI_NAME " %s --help' for more information.\n", command);
  else
    tb_cli_fprint (out, "Try '" TB_CLI_NAME " --help' for more information.\n");
  finish (TB_CLI_EXIT_USAGE);
}

/* ---------------------------------------------------------------- suggestions */

/* Levenshtein distance, capped for long words (options are short). */
static int
edit_distance (const char *a, const char *b)
{
  int la = (int) strlen (a);
  int lb = (int) strlen (b);
  int row[65];

  if (la > 64 || lb > 64)
    return INT_MAX;
  for (int j = 0; j <= lb; j++)
    row[j] = j;
  for (int i = 1; i <= la; i++)
    {
      int diag = row[0];
      row[0] = i;
      for (int j = 1; j <= lb; j++)
        {
          int up = row[j];
          int cost = tolower ((unsigned char) a[i - 1]) == tolower ((unsigned char) b[j - 1]) ? 0 : 1;
          int best = diag + cost;
          if (row[j] + 1 < best)
            best = row[j] + 1;
          if (row[j - 1] + 1 < best)
            best = row[j - 1] + 1;
          row[j] = best;
          diag = up;
        }
    }
  return row[lb];
}

const char *
tb_cli_suggest (const char *word, const char *const *candidates)
{
  const char *best = NULL;
  int best_distance = INT_MAX;
  size_t len = strlen (word);

  if (len == 0)
    return NULL;
  /* A unique prefix ("--epoch" for "--epochs") is the likeliest slip. */
  for (int i = 0; candidates[i] != NULL; i++)
    if (strncmp (candidates[i], word, len) == 0)
      {
        if (best != NULL)
          {
            best = NULL;
            break;
          }
        best = candidates[i];
      }
  if (best != NULL)
    return best;

  for (int i = 0; candidates[i] != NULL; i++)
    {
      int d = edit_distance (word, candidates[i]);
      if (d < best_distance)
        {
          best_distance = d;
          best = candidates[i];
        }
    }
  /* One slip in a short word, up to a third of a longer one. */
  int limit = len <= 4 ? 1 : (int) (len / 3 > 2 ? len / 3 : 2);
  return best_distance <= limit ? best : NULL;
}

/* ---------------------------------------------------------------- options */

static int
option_index (const TbCliOption *options, const char *name, size_t len)
{
  for (int i = 0; options[i].name != NULL; i++)
    if (strlen (options[i].name) == len && strncmp (options[i].name, name, len) == 0)
      return i;
  return -1;
}

/* Other names of an option, kept so that command lines written with them
 * still work: each command that takes the option takes its alias too. */
static const struct
{
  const char *alias;
  const char *name;
} aliases[] = {
  { "data", "dataset" }, /* sweep's name for the data set before it took train's */
};

/* The option `name` (len bytes) stands for, by its name or an alias, or
 * -1; *typed gets the name as given. */
static int
option_find (const TbCliOption *options, const char *name, size_t len, const char **typed)
{
  int k = option_index (options, name, len);

  if (k >= 0)
    {
      *typed = options[k].name;
      return k;
    }
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strlen (aliases[i].alias) == len && strncmp (aliases[i].alias, name, len) == 0
        && (k = option_index (options, aliases[i].name, strlen (aliases[i].name))) >= 0)
      {
        *typed = aliases[i].alias;
        return k;
      }
  return -1;
}

static TB_CLI_NORETURN void
unknown_option (const char *command, const TbCliOption *options, const char *arg, size_t len)
{
  const char *names[65];
  char word[128];
  int n = 0;

  for (int i = 0; options[i].name != NULL && n < 64; i++)
    names[n++] = options[i].name;
  names[n++] = "help";
  names[n] = NULL;
  snprintf (word, sizeof word, "%.*s", (int) (len < 120 ? len : 120), arg);
  const char *guess = tb_cli_suggest (word, names);
  if (guess != NULL)
    tb_cli_usage_error (command, "unknown option '--%s' (did you mean --%s?)", word, guess);
  tb_cli_usage_error (command, "unknown option '--%s'", word);
}

void
tb_cli_args_parse (TbCliArgs *args,
                   const char *command,
                   const TbCliOption *options,
                   int argc,
                   char **argv)
{
  memset (args, 0, sizeof *args);
  args->command = command;
  args->options = options;
  while (options[args->count].name != NULL)
    args->count++;

  for (int i = 0; i < argc; i++)
    {
      const char *arg = argv[i];

      if (strcmp (arg, "--help") == 0 || strcmp (arg, "-h") == 0)
        {
          tb_cli_print_help (command);
          finish (TB_CLI_EXIT_OK);
        }
      if (strncmp (arg, "--", 2) != 0 || arg[2] == '\0')
        {
          if (arg[0] == '-' && arg[1] != '\0')
            tb_cli_usage_error (command, "unknown option '%s' (options start with --)", arg);
          tb_cli_usage_error (command, "%s: unexpected argument '%s' (values follow their option)",
                            command, arg);
        }

      const char *name = arg + 2;
      const char *eq = strchr (name, '=');
      size_t len = eq ? (size_t) (eq - name) : strlen (name);
      const char *typed = NULL;
      int k = option_find (options, name, len, &typed);
      if (k < 0)
        unknown_option (command, options, name, len);
      args->typed[k] = typed;

      if (options[k].metavar == NULL)
        {
          if (eq != NULL)
            tb_cli_usage_error (command, "--%s takes no value (got '%s')", typed, eq + 1);
          args->values[k] = "";
          continue;
        }
      if (eq != NULL)
        args->values[k] = eq + 1;
      else if (i + 1 < argc)
        args->values[k] = argv[++i];
      else
        tb_cli_usage_error (command, "--%s needs a value (%s)", typed, options[k].metavar);
      if (args->values[k][0] == '\0')
        tb_cli_usage_error (command, "--%s: the value is empty (expected %s)", typed,
                            options[k].metavar);
      if (args->given_count == TB_CLI_GIVEN_MAX)
        tb_cli_usage_error (command, "more than %d options given (--%s)", TB_CLI_GIVEN_MAX, typed);
      args->given_option[args->given_count] = k;
      args->given_values[args->given_count++] = args->values[k];
    }
}

const char *
tb_cli_arg (const TbCliArgs *args, const char *name)
{
  int k = option_index (args->options, name, strlen (name));
  return k < 0 ? NULL : args->values[k];
}

const char *
tb_cli_arg_name (const TbCliArgs *args, const char *name)
{
  int k = option_index (args->options, name, strlen (name));
  return k >= 0 && args->typed[k] != NULL ? args->typed[k] : name;
}

bool
tb_cli_flag (const TbCliArgs *args, const char *name)
{
  return tb_cli_arg (args, name) != NULL;
}

int
tb_cli_arg_all (const TbCliArgs *args, const char *name, const char **out, int max)
{
  int k = option_index (args->options, name, strlen (name));
  int n = 0;

  for (int i = 0; k >= 0 && i < args->given_count; i++)
    if (args->given_option[i] == k)
      {
        if (n < max)
          out[n] = args->given_values[i];
        n++;
      }
  return n;
}

/* ---------------------------------------------------------------- numbers */

int32_t
tb_cli_parse_int (const char *command, const char *option, const char *text,
                  int32_t min, int32_t max)
{
  char *end = NULL;
  long long v;

  errno = 0;
  /* strtoll takes leading blanks; a value with them was quoted by mistake. */
  if (isspace ((unsigned char) text[0]))
    tb_cli_usage_error (command, "--%s: '%s' is not a whole number", option, text);
  v = strtoll (text, &end, 10);
  if (end == text || *end != '\0')
    tb_cli_usage_error (command, "--%s: '%s' is not a whole number", option, text);
  if (errno == ERANGE || v < min || v > max)
    {
      if (max == INT32_MAX)
        tb_cli_usage_error (command, "--%s: %s is out of range (at least %d)", option, text, min);
      tb_cli_usage_error (command, "--%s: %s is out of range (%d to %d)", option, text, min, max);
    }
  return (int32_t) v;
}

uint64_t
tb_cli_parse_u64 (const char *command, const char *option, const char *text)
{
  char *end = NULL;
  unsigned long long v;

  /* strtoull accepts "-1" as a huge number: refuse any sign or blank. */
  if (!isdigit ((unsigned char) text[0]))
    tb_cli_usage_error (command, "--%s: '%s' is not a whole number of at least 0", option, text);
  errno = 0;
  v = strtoull (text, &end, 10);
  if (*end != '\0')
    tb_cli_usage_error (command, "--%s: '%s' is not a whole number of at least 0", option, text);
  if (errno == ERANGE)
    tb_cli_usage_error (command, "--%s: %s is too large (at most %llu)", option, text,
                        (unsigned long long) UINT64_MAX);
  return (uint64_t) v;
}

double
tb_cli_parse_double (const char *command, const char *option, const char *text,
                     double min, double max, bool min_exclusive)
{
  char *end = NULL;
  double v;

  if (isspace ((unsigned char) text[0]))
    tb_cli_usage_error (command, "--%s: '%s' is not a number", option, text);
  errno = 0;
  v = strtod (text, &end);
  if (end == text || *end != '\0' || !isfinite (v))
    tb_cli_usage_error (command, "--%s: '%s' is not a number", option, text);
  if (errno == ERANGE || v > max || v < min || (min_exclusive && v == min))
    {
      if (min_exclusive)
        tb_cli_usage_error (command, "--%s: %s is out of range (more than %g, at most %g)", option,
                            text, min, max);
      tb_cli_usage_error (command, "--%s: %s is out of range (%g to %g)", option, text, min, max);
    }
  return v;
}

float
tb_cli_parse_float (const char *command, const char *option, const char *text, double max)
{
  double v = tb_cli_parse_double (command, option, text, 0.0, max, true);
  float f = (float) v;

  /* FLT_MIN: below it a float loses precision, and from about 1e-45 on it
   * is 0 */
  if (!(f >= FLT_MIN))
    tb_cli_usage_error (command, "--%s: %s is too small (the smallest is about %.3g)", option,
                        text, (double) FLT_MIN);
  return f;
}

bool
tb_cli_parse_on_off (const char *command, const char *option, const char *text)
{
  if (strcmp (text, "on") == 0 || strcmp (text, "yes") == 0 || strcmp (text, "true") == 0
      || strcmp (text, "1") == 0)
    return true;
  if (strcmp (text, "off") == 0 || strcmp (text, "no") == 0 || strcmp (text, "false") == 0
      || strcmp (text, "0") == 0)
    return false;
  tb_cli_usage_error (command, "--%s: '%s' is not on or off", option, text);
}

NnInputShape
tb_cli_parse_shape (const char *command, const char *option, const char *text)
{
  long dims[3];
  int n = 0;
  const char *p = text;
  NnInputShape shape;

  while (n < 3)
    {
      char *end = NULL;
      if (!isdigit ((unsigned char) *p))
        break;
      errno = 0;
      dims[n] = strtol (p, &end, 10);
      if (errno == ERANGE || dims[n] < 1 || dims[n] > 65536)
        tb_cli_usage_error (command, "--%s: '%s': each size must be 1 to 65536", option, text);
      n++;
      p = end;
      if (*p != 'x' && *p != 'X')
        break;
      p++;
    }
  if (*p != '\0' || n < 2)
    tb_cli_usage_error (command, "--%s: '%s' is not a shape like 1x28x28 (CxHxW) or 28x28", option,
                        text);
  if (n == 2)
    {
      shape.channels = 1;
      shape.height = (int32_t) dims[0];
      shape.width = (int32_t) dims[1];
    }
  else
    {
      shape.channels = (int32_t) dims[0];
      shape.height = (int32_t) dims[1];
      shape.width = (int32_t) dims[2];
    }
  return shape;
}

/* ---------------------------------------------------------------- formatting */

void
tb_cli_format_bytes (uint64_t bytes, char *out, size_t size)
{
  static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  double v = (double) bytes;
  int u = 0;

  while (v >= 1024.0 && u < 4)
    {
      v /= 1024.0;
      u++;
    }
  if (u == 0)
    snprintf (out, size, "%llu B", (unsigned long long) bytes);
  else
    snprintf (out, size, "%.1f %s", v, units[u]);
}

void
tb_cli_format_duration (double seconds, char *out, size_t size)
{
  if (!(seconds >= 0) || seconds > 1e7)
    {
      snprintf (out, size, "--:--");
      return;
    }
  long s = (long) (seconds + 0.5);
  if (s >= 3600)
    snprintf (out, size, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    snprintf (out, size, "%ld:%02ld", s / 60, s % 60);
}
