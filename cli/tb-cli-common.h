/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-common.h: what the parts of trainbench-cli share: option parsing,
 * strict number parsing, error messages, progress output and the commands.
 * Plain C11 over engine/trainbench.h only (no GLib), so it builds anywhere
 * the engine does.
 */
#pragma once

#include "trainbench.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__) || defined(__clang__)
#define TB_CLI_PRINTF(f, a) NN_TEXT_PRINTF (f, a)
#define TB_CLI_NORETURN __attribute__ ((noreturn))
#else
#define TB_CLI_PRINTF(f, a)
#define TB_CLI_NORETURN
#endif

#define TB_CLI_NAME "trainbench-cli"

/* Exit statuses: the contract scripts rely on. */
enum
{
  TB_CLI_EXIT_OK = 0,
  TB_CLI_EXIT_FAILED = 1, /* a run (or a command's work) failed or was cancelled */
  TB_CLI_EXIT_USAGE = 2,  /* the command line is wrong */
};

/* ---------------------------------------------------------------- options */

/* One option a command accepts: "--name VALUE" (or "--name=VALUE") when
 * `metavar` is not NULL, a flag otherwise. */
typedef struct
{
  const char *name;    /* without the dashes: "batch-size" */
  const char *metavar; /* "N", or NULL for a flag */
} TbCliOption;

#define TB_CLI_GIVEN_MAX 128 /* options with a value on one command line */

/* A parsed command line: for each option of the table, the value given last
 * (NULL when absent; "" for a flag that was given). */
typedef struct
{
  const char *command;          /* "train" */
  const TbCliOption *options;   /* borrowed, terminated by a NULL name */
  int count;
  const char *values[64];
  const char *typed[64];        /* the name each was given by: its own, or an alias */
  int given_count;              /* every option given with a value, in order, repeats too */
  int given_option[TB_CLI_GIVEN_MAX];
  const char *given_values[TB_CLI_GIVEN_MAX];
} TbCliArgs;

/* The options of each command (tb-cli-options.c); devices, datasets and
 * sysinfo take none. */
extern const TbCliOption tb_cli_train_options[];
extern const TbCliOption tb_cli_evaluate_options[];
extern const TbCliOption tb_cli_reproduce_options[];
extern const TbCliOption tb_cli_summary_options[];
extern const TbCliOption tb_cli_sweep_options[];
extern const TbCliOption tb_cli_report_options[];
extern const TbCliOption tb_cli_no_options[];

/* What a usage error and --help do once they have printed: exit (the
 * default), or `fn` when set, which must not return (the fuzzer jumps back
 * with longjmp); `messages` (NULL: stderr) gets what they print. */
typedef void (*TbCliExitFunc) (int status);
void tb_cli_set_exit (TbCliExitFunc fn, FILE *messages);

/* Parse argv (after the command name) against `options`. On --help prints the
 * command's help and exits 0; on an unknown option, a missing value or a
 * stray argument prints what is wrong and exits 2. */
void tb_cli_args_parse (TbCliArgs *args,
                        const char *command,
                        const TbCliOption *options,
                        int argc,
                        char **argv);

/* The value of an option, or NULL when it was not given. An option may be
 * given by an alias (tb-cli-args.c: --data for --dataset). */
const char *tb_cli_arg (const TbCliArgs *args, const char *name);
/* The name an option was given by, for messages ("data" when --data gave
 * --dataset), or `name` when it was not given. */
const char *tb_cli_arg_name (const TbCliArgs *args, const char *name);
bool tb_cli_flag (const TbCliArgs *args, const char *name);
/* Every value an option was given, in order (an option given more than
 * once, such as sweep's --axis), into `out` (at most `max`); returns how
 * many there are. */
int tb_cli_arg_all (const TbCliArgs *args, const char *name, const char **out, int max);

/* Strict number parsing: the whole text must be a number in [min, max];
 * otherwise a usage error naming the option and the text (exit 2). */
int32_t tb_cli_parse_int (const char *command, const char *option, const char *text,
                          int32_t min, int32_t max);
uint64_t tb_cli_parse_u64 (const char *command, const char *option, const char *text);
double tb_cli_parse_double (const char *command, const char *option, const char *text,
                            double min, double max, bool min_exclusive);
bool tb_cli_parse_on_off (const char *command, const char *option, const char *text);
/* A number above 0 and at most `max` that a float (the engine's type) holds
 * as more than 0: 1e-50 is refused as too small, not passed on as 0. */
float tb_cli_parse_float (const char *command, const char *option, const char *text, double max);

/* The run's conditions from --conditions default|article (the base) and
 * --data-on, --graph, --loss-every-step, --fusion over it (train,
 * reproduce); usage errors name the option. */
NnConditions tb_cli_parse_conditions (const TbCliArgs *args, const char *command);

/* "article conditions (data pageable, graph off, loss every step, fusion off)"
 * for conditions other than the default, else "default conditions". */
void tb_cli_format_conditions (const NnConditions *conditions, char *out, size_t size);

/* "CxHxW" (or "HxW" for one channel). */
NnInputShape tb_cli_parse_shape (const char *command, const char *option, const char *text);

/* The closest of `candidates` (NULL-terminated) to `word`, or NULL when none
 * is close enough to suggest. */
const char *tb_cli_suggest (const char *word, const char *const *candidates);

/* ---------------------------------------------------------------- output (tb-cli-print.c) */

/* printf to stdout (tb_cli_fprint: to `stream`) where the text of every %s
 * and %c argument is made safe for a terminal (nn_text_for_terminal: a
 * control character from a file, a file name, an engine message or the
 * environment is shown escaped); the format, the CLI's own text, is
 * written as it is. Everything the CLI prints goes through these. A stream
 * that could not be written (a closed pipe) is given up: nothing more is
 * written to it (stdout's loss is said once on stderr), and the command
 * goes on. */
void tb_cli_print (const char *format, ...) TB_CLI_PRINTF (1, 2);
void tb_cli_fprint (FILE *stream, const char *format, ...) TB_CLI_PRINTF (2, 3);
void tb_cli_vfprint (FILE *stream, const char *format, va_list args) TB_CLI_PRINTF (2, 0);

/* "trainbench-cli: <message>" and a line break to `stream` in one write,
 * the arguments made safe as tb_cli_print makes them. */
void tb_cli_vmessage (FILE *stream, const char *format, va_list args) TB_CLI_PRINTF (2, 0);

/* A text of lines from the engine (a summary, a plan) to stdout, each line
 * made safe, its line breaks kept. */
void tb_cli_print_lines (const char *text);

/* fflush, unless the stream was given up; a failure gives it up. */
void tb_cli_fflush (FILE *stream);

/* ---------------------------------------------------------------- messages */

/* "trainbench-cli: <message>" on stderr. */
void tb_cli_error (const char *format, ...) TB_CLI_PRINTF (1, 2);

/* A usage error: the message, then where help is; exits 2. `command` may be
 * NULL for the top level. */
TB_CLI_NORETURN void tb_cli_usage_error (const char *command, const char *format, ...)
  TB_CLI_PRINTF (2, 3);

/* The help text of a command ("" or NULL for the overview); NULL if unknown. */
const char *tb_cli_help_text (const char *command);

/* Print the help of a command to stdout. */
void tb_cli_print_help (const char *command);

/* Human-readable sizes and durations. */
void tb_cli_format_bytes (uint64_t bytes, char *out, size_t size);   /* "23.4 GiB" */
void tb_cli_format_duration (double seconds, char *out, size_t size); /* "1:05", "2:03:04" */

/* ---------------------------------------------------------------- progress */

/* How a run shows its progress: a redrawn bar on a terminal, plain lines
 * otherwise, nothing at all when quiet. */
typedef struct
{
  bool tty;
  bool ansi;              /* the terminal clears a line with ESC [ K */
  bool quiet;
  int columns;            /* terminal width */
  double last_draw;       /* monotonic seconds of the last bar redraw */
  bool bar_shown;         /* a bar is on the current line */
  const char *prefix;     /* borrowed; put before every line ("[2/6] "), or NULL */
  FILE *out;              /* borrowed: stdout */
} TbCliProgress;

void tb_cli_progress_init (TbCliProgress *progress, bool quiet);

/* The engine's progress callback; user_data is a TbCliProgress. */
bool tb_cli_progress_cb (const NnProgress *report, void *user_data);

/* Leave the line of a bar (before other output). */
void tb_cli_progress_finish (TbCliProgress *progress);

/* ---------------------------------------------------------------- the system (tb-cli-os.c) */

/* First thing in main: on Windows argv becomes the command line in UTF-8
 * (main's own is in the ANSI code page) and the console prints UTF-8. */
void tb_cli_os_init (int *argc, char ***argv);

/* Whether stdout is a terminal; `ansi` says whether it takes escape
 * sequences. */
bool tb_cli_os_stdout_is_terminal (bool *ansi);

/* The terminal's width in columns (80 when unknown). */
int tb_cli_os_terminal_columns (void);

/* Write to stderr from an interrupt handler. */
void tb_cli_os_write_error (const char *text);

/* The system's folder for temporary files (TMPDIR or /tmp; Windows' TEMP),
 * without a trailing separator; "" when there is none. */
void tb_cli_os_temp_folder (char *out, size_t size);

/* Why a run is asked to stop. */
typedef enum
{
  TB_CLI_STOP_INTERRUPT, /* Ctrl-C (SIGINT; on Windows Ctrl-C or Ctrl-Break) */
  TB_CLI_STOP_TERMINATE, /* SIGTERM: timeout, kill, systemctl stop, CI cancelling a job */
  TB_CLI_STOP_HANGUP,    /* SIGHUP: the terminal went away (logout, a closed ssh session) */
  TB_CLI_STOP_CLOSE,     /* Windows: the console closes, the user logs off, the system shuts
                          * down (CTRL_CLOSE/LOGOFF/SHUTDOWN_EVENT) */
} TbCliStop;

/* Called when the process is asked to stop, from a signal handler or a
 * thread of its own. Returns false to let the default happen: the process
 * ends at once. */
typedef bool (*TbCliInterruptFunc) (TbCliStop why);

/* From here on Ctrl-C, SIGTERM and SIGHUP (on Windows Ctrl-C, Ctrl-Break
 * and the console's close, logoff and shutdown events) call `cb`; until
 * tb_cli_os_interrupt_remove, which the run calls once its result is
 * written. A closing Windows console waits for that (Windows allows about
 * 5 s), whatever `cb` answers. */
void tb_cli_os_interrupt_install (TbCliInterruptFunc cb);
void tb_cli_os_interrupt_remove (void);

/* Monotonic seconds. */
double tb_cli_now (void);

/* ---------------------------------------------------------------- commands */

int tb_cli_cmd_train (int argc, char **argv);
int tb_cli_cmd_evaluate (int argc, char **argv);
int tb_cli_cmd_reproduce (int argc, char **argv);
int tb_cli_cmd_summary (int argc, char **argv);
int tb_cli_cmd_devices (int argc, char **argv);
int tb_cli_cmd_datasets (int argc, char **argv);
int tb_cli_cmd_sysinfo (int argc, char **argv);
int tb_cli_cmd_sweep (int argc, char **argv);
int tb_cli_cmd_report (int argc, char **argv);

/* ---------------------------------------------------------------- shared helpers */

/* The data set used when none is given: mnist when it is found, else
 * fashion-mnist. */
const char *tb_cli_default_dataset (void);

/* Resolve a preset name given to --`option` ("preset", "presets"), or exit
 * 2 naming that option and the known presets. */
const NnPreset *tb_cli_find_preset (const char *command, const char *option, const char *name);

/* A TRAINBENCH_MEMORY_LIMIT that is not a size is a usage error (exit 2)
 * naming the variable, before anything runs. */
void tb_cli_check_memory_limit (const char *command);

/* The device info of a device, from nn_device_list, or a minimal entry
 * ("cuda:7") when it is not listed. The CPU's never loads the CUDA module. */
void tb_cli_device_lookup (NnDeviceKind kind, int32_t index, NnDeviceInfo *out);

/* "cpu" or "cuda:0". */
void tb_cli_device_label (NnDeviceKind kind, int32_t index, char *out, size_t size);
