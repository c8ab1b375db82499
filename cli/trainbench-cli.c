/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trainbench-cli.c: the command-line runner's entry point: picks the command
 * and hands it the rest of the arguments. The commands live in
 * tb-cli-run.c (train, evaluate, reproduce), tb-cli-sweep.c (sweep),
 * tb-cli-report.c (report) and tb-cli-info.c (the others).
 */

#include "tb-cli-common.h"

#include <stdio.h>
#include <string.h>

typedef int (*TbCliCommand) (int argc, char **argv);

static const struct
{
  const char *name;
  TbCliCommand run;
} commands[] = {
  { "train", tb_cli_cmd_train },
  { "evaluate", tb_cli_cmd_evaluate },
  { "reproduce", tb_cli_cmd_reproduce },
  { "sweep", tb_cli_cmd_sweep },
  { "summary", tb_cli_cmd_summary },
  { "devices", tb_cli_cmd_devices },
  { "datasets", tb_cli_cmd_datasets },
  { "sysinfo", tb_cli_cmd_sysinfo },
  { "report", tb_cli_cmd_report },
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

static TB_CLI_NORETURN void
unknown_command (const char *name)
{
  const char *names[N_COMMANDS + 2];
  size_t n = 0;

  for (; n < N_COMMANDS; n++)
    names[n] = commands[n].name;
  names[n++] = "help";
  names[n] = NULL;
  const char *guess = tb_cli_suggest (name, names);
  if (guess != NULL)
    tb_cli_usage_error (NULL, "unknown command '%s' (did you mean %s?)", name, guess);
  tb_cli_usage_error (NULL, "unknown command '%s'", name);
}

int
main (int argc, char **argv)
{
  tb_cli_os_init (&argc, &argv);
  if (argc < 2)
    tb_cli_usage_error (NULL, "no command given (train, reproduce, sweep, evaluate, summary, "
                              "devices, datasets, sysinfo, report)");

  const char *name = argv[1];
  if (strcmp (name, "--help") == 0 || strcmp (name, "-h") == 0)
    {
      tb_cli_print_help (NULL);
      return TB_CLI_EXIT_OK;
    }
  if (strcmp (name, "--version") == 0 || strcmp (name, "version") == 0)
    {
      tb_cli_print (TB_CLI_NAME " %s (result schema %d)\n", NN_VERSION_STRING, NN_RESULT_SCHEMA);
      return TB_CLI_EXIT_OK;
    }
  if (strcmp (name, "help") == 0)
    {
      if (argc > 3)
        tb_cli_usage_error ("help", "help: one command at most (got '%s' after '%s')", argv[3],
                            argv[2]);
      if (argc == 3 && tb_cli_help_text (argv[2]) == NULL)
        unknown_command (argv[2]);
      tb_cli_print_help (argc == 3 ? argv[2] : NULL);
      return TB_CLI_EXIT_OK;
    }
  if (name[0] == '-')
    tb_cli_usage_error (NULL, "unknown option '%s' before the command (options come after it: "
                              TB_CLI_NAME " COMMAND [OPTIONS])", name);

  for (size_t i = 0; i < N_COMMANDS; i++)
    if (strcmp (commands[i].name, name) == 0)
      {
        int status = commands[i].run (argc - 2, argv + 2);
        tb_cli_fflush (stdout);
        return status;
      }
  unknown_command (name);
}
