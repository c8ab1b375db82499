/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-cli-args.c: libFuzzer target for trainbench-cli's command line
 * (cli/tb-cli-args.c, with the commands' own option tables). The first
 * byte picks a command, the rest is its argv, split at NUL bytes. The
 * parser must end in a usage error or --help (each caught here in place of
 * exit) or give values that are the arguments it was handed; each value
 * then goes through the strict parser its option uses. Its messages, which
 * quote the arguments, must hold nothing a terminal acts on: no control
 * character but the line break, no bidirectional override, no byte that is
 * not UTF-8. An option given by an alias (--data for --dataset) is that
 * option, and says so.
 */

#define _GNU_SOURCE /* fmemopen */

#include "tb-cli-common.h"
#include "nn-private.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static jmp_buf back;
static int exit_status;
static char said[1 << 16];   /* the messages of one input */
static FILE *messages;

static void
exit_cb (int status)
{
  exit_status = status;
  longjmp (back, 1);
}

static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-cli-args: %s: %s\n", what, detail);
  abort ();
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  /* help goes nowhere, messages into `said`: libFuzzer keeps stderr for
   * itself */
  messages = fmemopen (said, sizeof said, "w");
  if (messages == NULL || freopen ("/dev/null", "w", stdout) == NULL)
    return 0;
  setvbuf (messages, NULL, _IONBF, 0);
  tb_cli_set_exit (exit_cb, messages);
  return 0;
}

/* The messages written, as a terminal would take them. */
static void
check_messages (void)
{
  long n = ftell (messages);
  const unsigned char *s = (const unsigned char *) said;

  for (long i = 0; i < n && (size_t) i < sizeof said;)
    {
      uint32_t cp = 0;
      size_t seq = _nn_utf8_decode (s + i, (size_t) (n - i), &cp);
      if (seq == 0)
        fail ("a message holds a byte that is not UTF-8", said);
      if ((cp < 0x20 && cp != '\n') || (cp >= 0x7f && cp <= 0x9f)
          || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
        fail ("a message holds a character a terminal acts on", said);
      i += (long) seq;
    }
}

/* Run the value of each given option through the parser the commands use
 * for it; every value of sweep's repeated --axis as well. */
static void
parse_values (const TbCliArgs *args, const char *command)
{
  if (args->given_count < 0 || args->given_count > TB_CLI_GIVEN_MAX)
    fail ("the count of values given is out of range", "");
  for (int i = 0; i < args->given_count; i++)
    {
      NnSweepAxis axis;
      NnError error;
      int k = args->given_option[i];
      if (k < 0 || k >= args->count || args->options[k].metavar == NULL)
        fail ("a value given to no option that takes one", args->given_values[i]);
      if (strcmp (args->options[k].name, "axis") == 0
          && nn_sweep_axis_parse (args->given_values[i], &axis, &error) == NN_OK
          && (axis.count < 1 || axis.count > NN_SWEEP_VALUES_MAX))
        fail ("an axis of too many values was taken", args->given_values[i]);
    }
  for (int i = 0; i < args->count; i++)
    {
      const char *value = args->values[i];
      const TbCliOption *o = &args->options[i];
      /* an option given, by its name or an alias, says which it was given
       * by; one not given, its own name */
      const char *typed = tb_cli_arg_name (args, o->name);
      if (typed == NULL || typed[0] == '\0' || (value == NULL && strcmp (typed, o->name) != 0))
        fail ("an option's name as given is none of its names", o->name);
      if (value == NULL || o->metavar == NULL)
        continue;
      if (strcmp (o->name, "seed") == 0)
        tb_cli_parse_u64 (command, o->name, value);
      else if (strcmp (o->metavar, "N") == 0)
        tb_cli_parse_int (command, o->name, value, 0, INT32_MAX);
      else if (strcmp (o->metavar, "X") == 0)
        tb_cli_parse_float (command, o->name, value, 1e6);
      else if (strcmp (o->metavar, "on|off") == 0)
        tb_cli_parse_on_off (command, o->name, value);
      else if (strcmp (o->metavar, "CxHxW") == 0)
        tb_cli_parse_shape (command, o->name, value);
      else if (strncmp (o->metavar, "cpu|", 4) == 0)
        {
          NnDeviceKind kind;
          int32_t index;
          NnError error;
          if (nn_device_parse (value, &kind, &index, &error) == NN_OK
              && (index < 0 || index >= NN_CUDA_DEVICES_MAX))
            fail ("a device index out of range was taken", value);
        }
      else
        {
          static const char *const words[] = { "mlp-small", "mlp-wide", "cnn", "adam", "sgd",
                                               NULL };
          tb_cli_suggest (value, words);
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const struct
  {
    const char *name;
    const TbCliOption *options;
  } commands[] = {
    { "train", tb_cli_train_options },       { "evaluate", tb_cli_evaluate_options },
    { "reproduce", tb_cli_reproduce_options }, { "summary", tb_cli_summary_options },
    { "devices", tb_cli_no_options },        { "sweep", tb_cli_sweep_options },
  };
  enum { MAX_ARGS = 64 };

  if (size < 1)
    return 0;
  const char *command = commands[data[0] % (sizeof commands / sizeof commands[0])].name;
  const TbCliOption *options = commands[data[0] % (sizeof commands / sizeof commands[0])].options;

  /* argv: the rest, split at NUL bytes, each argument its own block so
   * that reading past one is seen */
  char *argv[MAX_ARGS + 1];
  int argc = 0;
  size_t start = 1;
  for (size_t i = 1; i <= size && argc < MAX_ARGS; i++)
    if (i == size || data[i] == '\0')
      {
        size_t len = i - start;
        argv[argc] = malloc (len + 1);
        if (argv[argc] == NULL)
          break;
        memcpy (argv[argc], data + start, len);
        argv[argc][len] = '\0';
        argc++;
        start = i + 1;
      }
  argv[argc] = NULL;

  if (messages != NULL)
    rewind (messages);
  /* volatile: read after a longjmp back here */
  TbCliArgs *volatile args = calloc (1, sizeof *args);
  if (args != NULL && setjmp (back) == 0)
    {
      tb_cli_args_parse (args, command, options, argc, argv);
      /* every value given is an argument's text, or the text after '=' */
      for (int k = 0; k < args->count; k++)
        {
          const char *v = args->values[k];
          bool inside = v == NULL || (options[k].metavar == NULL && strcmp (v, "") == 0);
          for (int a = 0; a < argc && !inside; a++)
            inside = v >= argv[a] && v <= argv[a] + strlen (argv[a]);
          if (!inside)
            fail ("a value that is no argument's", options[k].name);
          if (v != NULL && options[k].metavar != NULL && v[0] == '\0')
            fail ("an empty value was taken", options[k].name);
        }
      parse_values (args, command);
    }
  else if (exit_status != TB_CLI_EXIT_USAGE && exit_status != TB_CLI_EXIT_OK)
    fail ("a parse ended with an unexpected status", command);
  if (messages != NULL)
    check_messages ();
  free (args);
  for (int a = 0; a < argc; a++)
    free (argv[a]);
  return 0;
}
