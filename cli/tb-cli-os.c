/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-os.c: what trainbench-cli needs from the system that the engine
 * does not give: UTF-8 arguments and console output, the terminal, Ctrl-C
 * and a clock. POSIX and Windows side by side here, so the rest of the CLI
 * has no OS conditionals.
 */

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#define _WIN32_WINNT 0x0601 /* Windows 7 */
#include <windows.h>
#include <shellapi.h>
#else
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#endif

#include "tb-cli-common.h"

#include <stdlib.h>
#include <string.h>

static TbCliInterruptFunc interrupt_cb;

#ifdef _WIN32

/* ---------------------------------------------------------------- Windows */

static UINT saved_output_cp;

static void
restore_output_cp (void)
{
  SetConsoleOutputCP (saved_output_cp);
}

void
tb_cli_os_init (int *argc, char ***argv)
{
  /* main's argv is in the ANSI code page, which cannot hold every name
   * (张伟 on an English system): the wide command line, as UTF-8. */
  int n = 0;
  wchar_t **wargv = CommandLineToArgvW (GetCommandLineW (), &n);
  if (wargv != NULL && n > 0)
    {
      char **utf8 = calloc ((size_t) n + 1, sizeof *utf8); /* kept for the process's life */
      bool ok = utf8 != NULL;
      for (int i = 0; ok && i < n; i++)
        {
          int size = WideCharToMultiByte (CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL, NULL);
          utf8[i] = size > 0 ? malloc ((size_t) size) : NULL;
          ok = utf8[i] != NULL
               && WideCharToMultiByte (CP_UTF8, 0, wargv[i], -1, utf8[i], size, NULL, NULL) > 0;
        }
      if (ok)
        {
          *argc = n;
          *argv = utf8;
        }
    }
  if (wargv != NULL)
    LocalFree (wargv);

  /* Everything the CLI prints is UTF-8 (paths, the CPU's name). */
  saved_output_cp = GetConsoleOutputCP ();
  if (saved_output_cp != 0 && saved_output_cp != CP_UTF8 && SetConsoleOutputCP (CP_UTF8))
    atexit (restore_output_cp);
}

bool
tb_cli_os_stdout_is_terminal (bool *ansi)
{
  HANDLE out = GetStdHandle (STD_OUTPUT_HANDLE);
  DWORD mode = 0;

  *ansi = false;
  /* a console, not just any character device (NUL is one too) */
  if (out == NULL || out == INVALID_HANDLE_VALUE || !GetConsoleMode (out, &mode))
    return false;
  /* Windows 10's console understands escape sequences when asked to;
   * older ones get the bar cleared with spaces. */
  *ansi = (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0
          || SetConsoleMode (out, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
  return true;
}

int
tb_cli_os_terminal_columns (void)
{
  CONSOLE_SCREEN_BUFFER_INFO info;
  if (GetConsoleScreenBufferInfo (GetStdHandle (STD_OUTPUT_HANDLE), &info))
    {
      int columns = info.srWindow.Right - info.srWindow.Left + 1;
      if (columns >= 20)
        return columns;
    }
  return 80;
}

void
tb_cli_os_write_error (const char *text)
{
  DWORD written;
  WriteFile (GetStdHandle (STD_ERROR_HANDLE), text, (DWORD) strlen (text), &written, NULL);
}

void
tb_cli_os_temp_folder (char *out, size_t size)
{
  wchar_t wide[MAX_PATH + 1];
  DWORD n = GetTempPathW (MAX_PATH + 1, wide);

  out[0] = '\0';
  if (n == 0 || n > MAX_PATH)
    return;
  /* without the separator it ends in, as nn_path_join wants a folder */
  if (n > 3 && (wide[n - 1] == L'\\' || wide[n - 1] == L'/'))
    wide[n - 1] = L'\0';
  if (WideCharToMultiByte (CP_UTF8, 0, wide, -1, out, (int) size, NULL, NULL) == 0)
    out[0] = '\0';
}

/* Set once the run has stopped and its result is written, so a console
 * that is closing waits for that before Windows ends the process. */
static HANDLE stopped_event;

static BOOL WINAPI
console_ctrl_handler (DWORD event)
{
  TbCliInterruptFunc cb = interrupt_cb;
  switch (event)
    {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
      /* FALSE: the default handler ends the process, as a second SIGINT does */
      return cb != NULL && cb (TB_CLI_STOP_INTERRUPT) ? TRUE : FALSE;
    case CTRL_CLOSE_EVENT:
    case CTRL_LOGOFF_EVENT:
    case CTRL_SHUTDOWN_EVENT:
      /* Windows ends the process once this returns (or after 5 s): stop the
       * run and give it that long to write its cancelled result, also after
       * an earlier Ctrl-C (whose run may still be writing it). */
      if (cb == NULL)
        return FALSE;
      cb (TB_CLI_STOP_CLOSE);
      if (stopped_event != NULL)
        WaitForSingleObject (stopped_event, 4500);
      return TRUE;
    default:
      return FALSE;
    }
}

void
tb_cli_os_interrupt_install (TbCliInterruptFunc cb)
{
  interrupt_cb = cb;
  if (stopped_event == NULL)
    stopped_event = CreateEventW (NULL, TRUE, FALSE, NULL);
  else
    ResetEvent (stopped_event);
  SetConsoleCtrlHandler (console_ctrl_handler, TRUE);
}

void
tb_cli_os_interrupt_remove (void)
{
  SetConsoleCtrlHandler (console_ctrl_handler, FALSE);
  interrupt_cb = NULL;
  if (stopped_event != NULL)
    SetEvent (stopped_event);
}

double
tb_cli_now (void)
{
  LARGE_INTEGER frequency, now;
  QueryPerformanceFrequency (&frequency);
  QueryPerformanceCounter (&now);
  return (double) now.QuadPart / (double) frequency.QuadPart;
}

#else

/* ---------------------------------------------------------------- POSIX */

void
tb_cli_os_init (int *argc, char ***argv)
{
  /* arguments and output are bytes, UTF-8 in any current locale */
  (void) argc;
  (void) argv;
  /* A reader that closes the pipe early (| head, | grep -m1, a dead tee or
   * ssh) must not end a run before its result is saved: the write fails
   * instead (EPIPE), and tb-cli-print.c gives that stream up. */
  signal (SIGPIPE, SIG_IGN);
}

bool
tb_cli_os_stdout_is_terminal (bool *ansi)
{
  *ansi = isatty (STDOUT_FILENO) != 0;
  return *ansi;
}

int
tb_cli_os_terminal_columns (void)
{
#ifdef TIOCGWINSZ
  struct winsize ws;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
    return ws.ws_col;
#endif
  return 80;
}

void
tb_cli_os_write_error (const char *text)
{
  ssize_t ignored = write (STDERR_FILENO, text, strlen (text));
  (void) ignored;
}

void
tb_cli_os_temp_folder (char *out, size_t size)
{
  /* TMPDIR as the shell and mktemp take it: an absolute path, else /tmp */
  const char *tmp = getenv ("TMPDIR");
  snprintf (out, size, "%s", tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
}

/* The signals that stop a run (and are recorded as a cancelled one):
 * Ctrl-C; SIGTERM, which timeout, kill, systemd and CI runners send; SIGHUP
 * when the terminal goes away. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void
stop_handler (int signum)
{
  TbCliInterruptFunc cb = interrupt_cb;
  TbCliStop why = signum == SIGTERM  ? TB_CLI_STOP_TERMINATE
                  : signum == SIGHUP ? TB_CLI_STOP_HANGUP
                                     : TB_CLI_STOP_INTERRUPT;
  if (cb != NULL && cb (why))
    return;
  signal (signum, SIG_DFL);
  raise (signum);
}

void
tb_cli_os_interrupt_install (TbCliInterruptFunc cb)
{
  struct sigaction sa;

  interrupt_cb = cb;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = stop_handler;
  sigemptyset (&sa.sa_mask);
  /* one stop at a time: a second signal waits until the handler returns */
  for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
    sigaddset (&sa.sa_mask, stop_signals[i]);
  sa.sa_flags = SA_RESTART;
  for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
    {
      /* a signal ignored by whoever started us (nohup's SIGHUP) stays ignored */
      struct sigaction old;
      if (sigaction (stop_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN
          && stop_signals[i] != SIGINT)
        continue;
      sigaction (stop_signals[i], &sa, NULL);
    }
}

void
tb_cli_os_interrupt_remove (void)
{
  for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
    {
      struct sigaction old;
      if (sigaction (stop_signals[i], NULL, &old) == 0 && old.sa_handler == stop_handler)
        signal (stop_signals[i], SIG_DFL);
    }
  interrupt_cb = NULL;
}

double
tb_cli_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

#endif
