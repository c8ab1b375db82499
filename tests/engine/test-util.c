/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-util.c: TAP output, temporary files, the environment, child
 * processes and synthetic data for the tests, on POSIX and on Windows.
 */

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#endif

#include "test-util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failed;
static char tmpdir[4096];
static bool is_child;

bool
tap_ok (bool ok, const char *format, ...)
{
  va_list args;
  tap_count++;
  printf ("%s %d - ", ok ? "ok" : "not ok", tap_count);
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  printf ("\n");
  fflush (stdout);
  if (!ok)
    tap_failed++;
  return ok;
}

void
tap_diag (const char *format, ...)
{
  va_list args;
  printf ("# ");
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  printf ("\n");
  fflush (stdout);
}

void
tap_skip (const char *reason, const char *format, ...)
{
  va_list args;
  tap_count++;
  printf ("ok %d - ", tap_count);
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  printf (" # SKIP %s\n", reason);
  fflush (stdout);
}

bool
tap_close (double a, double b, double rtol, double atol, const char *format, ...)
{
  char what[512];
  va_list args;
  bool ok = isfinite (a) && isfinite (b) && fabs (a - b) <= atol + rtol * fabs (b);
  va_start (args, format);
  /* a longer description is cut: the check's line needs only its start */
  if (vsnprintf (what, sizeof what, format, args) >= (int) sizeof what)
    memcpy (what + sizeof what - 4, "...", 4);
  va_end (args);
  if (!ok)
    tap_diag ("%s: got %.9g, expected %.9g", what, a, b);
  return tap_ok (ok, "%s", what);
}

bool
tap_windows_hold_steps (const char *name, const NnRunResult *r)
{
  const NnBreakdown *b = &r->breakdown;
  double trained = 0;
  for (int32_t i = 0; i < r->epoch_count; i++)
    trained += r->epochs[i].seconds;
  double windows = b->step_seconds * (double) b->steps;
  return tap_ok (trained > 0 && windows <= trained * 1.0001 && windows >= 0.5 * trained,
                 "%s: the measured steps are %.0f %% of the epochs' training time (%g of %g s)",
                 name, trained > 0 ? 100 * windows / trained : 0.0, windows, trained);
}

/* ---------------------------------------------------------------- the system */

#ifdef _WIN32

/* UTF-16 of a UTF-8 string (free it); NULL when it is not UTF-8. */
static wchar_t *
wide (const char *utf8)
{
  int n = MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
  wchar_t *w = n > 0 ? malloc ((size_t) n * sizeof *w) : NULL;
  if (w != NULL)
    MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, w, n);
  return w;
}

static bool
narrow (const wchar_t *w, char *out, size_t size)
{
  int n = WideCharToMultiByte (CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  if (n <= 0 || (size_t) n > size)
    return false;
  WideCharToMultiByte (CP_UTF8, 0, w, -1, out, n, NULL, NULL);
  return true;
}

void
test_setenv (const char *name, const char *value)
{
  wchar_t *wname = wide (name), *wvalue = value != NULL ? wide (value) : NULL;
  SetEnvironmentVariableW (wname, wvalue);
  /* and the C runtime's copy, for getenv */
  size_t n = wcslen (wname) + (wvalue != NULL ? wcslen (wvalue) : 0) + 2;
  wchar_t *assignment = malloc (n * sizeof *assignment);
  wcscpy (assignment, wname);
  wcscat (assignment, L"=");
  if (wvalue != NULL)
    wcscat (assignment, wvalue);
  _wputenv (assignment);
  free (assignment);
  free (wname);
  free (wvalue);
}

const char *
test_getenv (const char *name)
{
  static char out[8192];
  wchar_t buf[8192];
  wchar_t *wname = wide (name);
  DWORD n = GetEnvironmentVariableW (wname, buf, sizeof buf / sizeof buf[0]);
  DWORD error = GetLastError ();
  free (wname);
  if (n == 0 && error == ERROR_ENVVAR_NOT_FOUND)
    return NULL;
  if (n >= sizeof buf / sizeof buf[0])
    return NULL;
  buf[n] = L'\0';
  return narrow (buf, out, sizeof out) ? out : NULL;
}

FILE *
test_fopen (const char *path, const char *mode)
{
  wchar_t *wpath = wide (path), *wmode = wide (mode);
  FILE *f = wpath != NULL && wmode != NULL ? _wfopen (wpath, wmode) : NULL;
  free (wpath);
  free (wmode);
  return f;
}

bool
test_make_folder (const char *path)
{
  wchar_t *w = wide (path);
  bool ok = w != NULL && (CreateDirectoryW (w, NULL) || GetLastError () == ERROR_ALREADY_EXISTS);
  free (w);
  return ok;
}

static DWORD
attributes (const char *path)
{
  wchar_t *w = wide (path);
  DWORD a = w != NULL ? GetFileAttributesW (w) : INVALID_FILE_ATTRIBUTES;
  free (w);
  return a;
}

bool
test_exists (const char *path)
{
  return attributes (path) != INVALID_FILE_ATTRIBUTES;
}

bool
test_is_folder (const char *path)
{
  DWORD a = attributes (path);
  return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

/* Call `fn` with each name in `dir` but . and ..; false when it cannot be read. */
static bool
list_folder (const char *dir, void (*fn) (const char *dir, const char *name, void *data),
             void *data)
{
  char pattern[8192];
  snprintf (pattern, sizeof pattern, "%s\\*", dir);
  wchar_t *w = wide (pattern);
  WIN32_FIND_DATAW found;
  HANDLE h = w != NULL ? FindFirstFileW (w, &found) : INVALID_HANDLE_VALUE;
  free (w);
  if (h == INVALID_HANDLE_VALUE)
    return false;
  do
    {
      char name[1024];
      if (narrow (found.cFileName, name, sizeof name) && strcmp (name, ".") != 0
          && strcmp (name, "..") != 0)
        fn (dir, name, data);
    }
  while (FindNextFileW (h, &found));
  FindClose (h);
  return true;
}

static void
remove_tree (const char *path);

static void
remove_child_cb (const char *dir, const char *name, void *data)
{
  char child[8192];
  (void) data;
  snprintf (child, sizeof child, "%s\\%s", dir, name);
  remove_tree (child);
}

static void
remove_tree (const char *path)
{
  wchar_t *w = wide (path);
  if (w == NULL)
    return;
  if (test_is_folder (path))
    {
      list_folder (path, remove_child_cb, NULL);
      RemoveDirectoryW (w);
    }
  else
    DeleteFileW (w);
  free (w);
}

static bool
make_tmpdir (char *out, size_t size)
{
  wchar_t base[MAX_PATH + 1];
  char narrow_base[4096];
  DWORD n = GetTempPathW (MAX_PATH + 1, base);
  if (n == 0 || n > MAX_PATH || !narrow (base, narrow_base, sizeof narrow_base))
    return false;
  size_t len = strlen (narrow_base);
  while (len > 0 && (narrow_base[len - 1] == '\\' || narrow_base[len - 1] == '/'))
    narrow_base[--len] = '\0';
  for (int attempt = 0; attempt < 100; attempt++)
    {
      LARGE_INTEGER t;
      QueryPerformanceCounter (&t);
      snprintf (out, size, "%s\\trainbench-test-%lu-%06x", narrow_base,
                (unsigned long) GetCurrentProcessId (),
                (unsigned) ((uint64_t) t.QuadPart * 2654435761u + (unsigned) attempt) & 0xffffff);
      wchar_t *w = wide (out);
      bool made = w != NULL && CreateDirectoryW (w, NULL);
      free (w);
      if (made)
        return true;
    }
  return false;
}

void
test_sleep (double seconds)
{
  Sleep ((DWORD) (seconds * 1000.0 + 0.5));
}

bool
test_under_wine (void)
{
  HMODULE ntdll = GetModuleHandleW (L"ntdll.dll");
  return ntdll != NULL && GetProcAddress (ntdll, "wine_get_version") != NULL;
}

/* One argument for CommandLineToArgvW: quoted, with its quotes and the
 * backslashes before them escaped. */
static void
append_argument (wchar_t *line, size_t size, const wchar_t *arg)
{
  size_t n = wcslen (line);
  if (n + 3 >= size)
    return;
  line[n++] = L' ';
  line[n++] = L'"';
  for (const wchar_t *p = arg;; p++)
    {
      size_t slashes = 0;
      while (*p == L'\\')
        {
          slashes++;
          p++;
        }
      /* before a quote or the closing quote, each backslash doubles */
      size_t times = *p == L'"' || *p == L'\0' ? 2 * slashes : slashes;
      for (size_t i = 0; i < times && n + 2 < size; i++)
        line[n++] = L'\\';
      if (*p == L'\0')
        break;
      if (*p == L'"' && n + 2 < size)
        line[n++] = L'\\';
      if (n + 2 < size)
        line[n++] = *p;
    }
  line[n++] = L'"';
  line[n] = L'\0';
}

bool
test_copy_program (const char *to)
{
  wchar_t program[32768];
  DWORD n = GetModuleFileNameW (NULL, program, sizeof program / sizeof program[0]);
  wchar_t *w = wide (to);
  bool ok = n > 0 && n < sizeof program / sizeof program[0] && w != NULL
            && CopyFileW (program, w, FALSE);
  free (w);
  return ok;
}

int
test_child_run_program (const char *path, const char *name, const char *arg, char *out,
                        size_t out_size)
{
  static wchar_t program[32768], line[32768];
  SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };
  HANDLE read_end, write_end;
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  size_t used = 0;

  if (out_size > 0)
    out[0] = '\0';
  if (path != NULL)
    {
      wchar_t *w = wide (path);
      if (w == NULL || wcslen (w) >= sizeof program / sizeof program[0])
        {
          free (w);
          return -1;
        }
      wcscpy (program, w);
      free (w);
    }
  else
    {
      DWORD n = GetModuleFileNameW (NULL, program, sizeof program / sizeof program[0]);
      if (n == 0 || n >= sizeof program / sizeof program[0])
        return -1;
    }
  line[0] = L'\0';
  append_argument (line, sizeof line / sizeof line[0], program);
  memmove (line, line + 1, (wcslen (line)) * sizeof line[0]);   /* no leading space */
  wchar_t *wname = wide (name), *warg = wide (arg != NULL ? arg : "");
  append_argument (line, sizeof line / sizeof line[0], L"--child");
  append_argument (line, sizeof line / sizeof line[0], wname);
  append_argument (line, sizeof line / sizeof line[0], warg);
  free (wname);
  free (warg);

  if (!CreatePipe (&read_end, &write_end, &sa, 0))
    return -1;
  SetHandleInformation (read_end, HANDLE_FLAG_INHERIT, 0);
  memset (&si, 0, sizeof si);
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = GetStdHandle (STD_INPUT_HANDLE);
  si.hStdOutput = write_end;
  si.hStdError = GetStdHandle (STD_ERROR_HANDLE);
  fflush (stdout);
  BOOL started = CreateProcessW (program, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi);
  CloseHandle (write_end);
  if (!started)
    {
      CloseHandle (read_end);
      return -1;
    }
  for (;;)
    {
      char chunk[4096];
      DWORD got = 0;
      if (!ReadFile (read_end, chunk, sizeof chunk, &got, NULL) || got == 0)
        break;
      for (DWORD i = 0; i < got && used + 1 < out_size; i++)
        out[used++] = chunk[i];
    }
  if (out_size > 0)
    out[used] = '\0';
  CloseHandle (read_end);
  WaitForSingleObject (pi.hProcess, INFINITE);
  DWORD code = 0;
  GetExitCodeProcess (pi.hProcess, &code);
  CloseHandle (pi.hProcess);
  CloseHandle (pi.hThread);
  return (int) code;
}

int
test_child_run (const char *name, const char *arg, char *out, size_t out_size)
{
  return test_child_run_program (NULL, name, arg, out, out_size);
}

void
test_children_run (int count, const char *name, const char *const *args, char **outs,
                   size_t out_size, int *statuses)
{
  enum { MAX = 16 };
  static wchar_t program[32768], line[32768];
  SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };
  HANDLE reads[MAX], processes[MAX];

  DWORD n = GetModuleFileNameW (NULL, program, sizeof program / sizeof program[0]);
  for (int c = 0; c < count && c < MAX; c++)
    {
      HANDLE write_end;
      STARTUPINFOW si;
      PROCESS_INFORMATION pi;

      reads[c] = processes[c] = NULL;
      statuses[c] = -1;
      if (out_size > 0)
        outs[c][0] = '\0';
      if (n == 0 || n >= sizeof program / sizeof program[0])
        continue;
      line[0] = L'\0';
      append_argument (line, sizeof line / sizeof line[0], program);
      memmove (line, line + 1, (wcslen (line)) * sizeof line[0]);
      wchar_t *wname = wide (name), *warg = wide (args[c] != NULL ? args[c] : "");
      append_argument (line, sizeof line / sizeof line[0], L"--child");
      append_argument (line, sizeof line / sizeof line[0], wname);
      append_argument (line, sizeof line / sizeof line[0], warg);
      free (wname);
      free (warg);
      /* one child at a time holds a write end: each started child's end is
       * closed here before the next starts, so none inherits another's */
      if (!CreatePipe (&reads[c], &write_end, &sa, 65536))
        continue;
      SetHandleInformation (reads[c], HANDLE_FLAG_INHERIT, 0);
      memset (&si, 0, sizeof si);
      si.cb = sizeof si;
      si.dwFlags = STARTF_USESTDHANDLES;
      si.hStdInput = GetStdHandle (STD_INPUT_HANDLE);
      si.hStdOutput = write_end;
      si.hStdError = GetStdHandle (STD_ERROR_HANDLE);
      fflush (stdout);
      if (CreateProcessW (program, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi))
        {
          processes[c] = pi.hProcess;
          CloseHandle (pi.hThread);
        }
      CloseHandle (write_end);
    }
  for (int c = 0; c < count && c < MAX; c++)
    {
      size_t used = 0;
      for (; reads[c] != NULL;)
        {
          char chunk[4096];
          DWORD got = 0;
          if (!ReadFile (reads[c], chunk, sizeof chunk, &got, NULL) || got == 0)
            break;
          for (DWORD i = 0; i < got && used + 1 < out_size; i++)
            outs[c][used++] = chunk[i];
        }
      if (out_size > 0)
        outs[c][used] = '\0';
      if (reads[c] != NULL)
        CloseHandle (reads[c]);
      if (processes[c] != NULL)
        {
          DWORD code = 0;
          WaitForSingleObject (processes[c], INFINITE);
          GetExitCodeProcess (processes[c], &code);
          CloseHandle (processes[c]);
          statuses[c] = (int) code;
        }
    }
}

#else /* POSIX */

void
test_setenv (const char *name, const char *value)
{
  if (value != NULL)
    setenv (name, value, 1);
  else
    unsetenv (name);
}

const char *
test_getenv (const char *name)
{
  return getenv (name);
}

FILE *
test_fopen (const char *path, const char *mode)
{
  return fopen (path, mode);
}

bool
test_make_folder (const char *path)
{
  return mkdir (path, 0755) == 0 || errno == EEXIST;
}

bool
test_exists (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0;
}

bool
test_is_folder (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

static bool
list_folder (const char *dir, void (*fn) (const char *dir, const char *name, void *data),
             void *data)
{
  DIR *d = opendir (dir);
  struct dirent *entry;
  if (d == NULL)
    return false;
  while ((entry = readdir (d)) != NULL)
    if (strcmp (entry->d_name, ".") != 0 && strcmp (entry->d_name, "..") != 0)
      fn (dir, entry->d_name, data);
  closedir (d);
  return true;
}

static void
remove_tree (const char *path);

static void
remove_child_cb (const char *dir, const char *name, void *data)
{
  char child[8192];
  (void) data;
  snprintf (child, sizeof child, "%s/%s", dir, name);
  remove_tree (child);
}

static void
remove_tree (const char *path)
{
  struct stat st;
  if (lstat (path, &st) == 0 && S_ISDIR (st.st_mode))
    {
      chmod (path, 0700);   /* a test may have left it read-only */
      list_folder (path, remove_child_cb, NULL);
      rmdir (path);
    }
  else
    unlink (path);
}

static bool
make_tmpdir (char *out, size_t size)
{
  const char *base = getenv ("TMPDIR");
  snprintf (out, size, "%s/trainbench-test-XXXXXX", base != NULL && base[0] != '\0' ? base : "/tmp");
  return mkdtemp (out) != NULL;
}

void
test_sleep (double seconds)
{
  struct timespec ts = { (time_t) seconds, (long) ((seconds - (double) (time_t) seconds) * 1e9) };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

bool
test_under_wine (void)
{
  return false;
}

bool
test_copy_program (const char *to)
{
  char program[4096];
  ssize_t len = readlink ("/proc/self/exe", program, sizeof program - 1);
  if (len <= 0)
    return false;
  program[len] = '\0';
  size_t size = 0;
  char *data = test_read_file (program, &size);
  bool ok = data != NULL && test_write_file (to, data, size) && chmod (to, 0755) == 0;
  free (data);
  return ok;
}

int
test_child_run_program (const char *path, const char *name, const char *arg, char *out,
                        size_t out_size)
{
  char program[4096];
  int fd[2];
  size_t used = 0;

  if (out_size > 0)
    out[0] = '\0';
  if (path != NULL)
    snprintf (program, sizeof program, "%s", path);
  else
    {
      ssize_t len = readlink ("/proc/self/exe", program, sizeof program - 1);
      if (len <= 0)
        return -1;
      program[len] = '\0';
    }
  if (pipe (fd) != 0)
    return -1;
  fflush (stdout);
  pid_t pid = fork ();
  if (pid == 0)
    {
      close (fd[0]);
      dup2 (fd[1], STDOUT_FILENO);
      close (fd[1]);
      execl (program, program, "--child", name, arg != NULL ? arg : "", (char *) NULL);
      _exit (127);
    }
  close (fd[1]);
  if (pid < 0)
    {
      close (fd[0]);
      return -1;
    }
  for (;;)
    {
      char chunk[4096];
      ssize_t got = read (fd[0], chunk, sizeof chunk);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      for (ssize_t i = 0; i < got && used + 1 < out_size; i++)
        out[used++] = chunk[i];
    }
  if (out_size > 0)
    out[used] = '\0';
  close (fd[0]);
  int status = 0;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

int
test_child_run (const char *name, const char *arg, char *out, size_t out_size)
{
  return test_child_run_program (NULL, name, arg, out, out_size);
}

void
test_children_run (int count, const char *name, const char *const *args, char **outs,
                   size_t out_size, int *statuses)
{
  enum { MAX = 16 };
  char program[4096];
  int reads[MAX];
  pid_t pids[MAX];

  ssize_t len = readlink ("/proc/self/exe", program, sizeof program - 1);
  if (len > 0)
    program[len] = '\0';
  for (int c = 0; c < count && c < MAX; c++)
    {
      int fd[2];
      reads[c] = -1;
      pids[c] = -1;
      statuses[c] = -1;
      if (out_size > 0)
        outs[c][0] = '\0';
      /* close-on-exec: no child inherits another's pipe */
      if (len <= 0 || pipe2 (fd, O_CLOEXEC) != 0)
        continue;
      fflush (stdout);
      pid_t pid = fork ();
      if (pid == 0)
        {
          dup2 (fd[1], STDOUT_FILENO);
          execl (program, program, "--child", name, args[c] != NULL ? args[c] : "",
                 (char *) NULL);
          _exit (127);
        }
      close (fd[1]);
      if (pid < 0)
        {
          close (fd[0]);
          continue;
        }
      reads[c] = fd[0];
      pids[c] = pid;
    }
  /* each child's output is small (a pipe holds 64 KiB): read in turn */
  for (int c = 0; c < count && c < MAX; c++)
    {
      size_t used = 0;
      while (reads[c] >= 0)
        {
          char chunk[4096];
          ssize_t got = read (reads[c], chunk, sizeof chunk);
          if (got < 0 && errno == EINTR)
            continue;
          if (got <= 0)
            break;
          for (ssize_t i = 0; i < got && used + 1 < out_size; i++)
            outs[c][used++] = chunk[i];
        }
      if (out_size > 0)
        outs[c][used] = '\0';
      if (reads[c] >= 0)
        close (reads[c]);
      if (pids[c] > 0)
        {
          int status = 0;
          while (waitpid (pids[c], &status, 0) < 0 && errno == EINTR)
            ;
          statuses[c] = WIFEXITED (status) ? WEXITSTATUS (status) : -1;
        }
    }
}

#endif

void
test_child_main (int argc, char **argv, const TestChildCase *cases)
{
  if (argc < 3 || strcmp (argv[1], "--child") != 0)
    return;
  is_child = true;
  for (const TestChildCase *c = cases; c != NULL && c->name != NULL; c++)
    if (strcmp (c->name, argv[2]) == 0)
      {
        int status = c->run (argc > 3 ? argv[3] : "");
        fflush (stdout);
        exit (status);
      }
  printf ("no child case %s\n", argv[2]);
  exit (126);
}

static void
count_cb (const char *dir, const char *name, void *data)
{
  void **args = data;
  (void) dir;
  if (strstr (name, args[0]) != NULL)
    (*(int *) args[1])++;
}

int
test_count_names (const char *dir, const char *part)
{
  int n = 0;
  void *args[2] = { (void *) part, &n };
  return list_folder (dir, count_cb, args) ? n : -1;
}

int
tap_done (void)
{
  printf ("1..%d\n", tap_count);
  if (tmpdir[0] != '\0' && !is_child && test_getenv ("KEEP_TEST_FILES") == NULL)
    remove_tree (tmpdir);
  return tap_failed == 0 && tap_count > 0 ? 0 : 1;
}

const char *
test_tmpdir (void)
{
  if (tmpdir[0] == '\0')
    {
      if (!make_tmpdir (tmpdir, sizeof tmpdir))
        {
          printf ("Bail out! cannot make a temporary folder\n");
          exit (1);
        }
    }
  return tmpdir;
}

const char *
test_path (const char *name)
{
  static char buffers[8][8192];
  static int next;
  char *out = buffers[next++ % 8];
  snprintf (out, sizeof buffers[0], "%s" TEST_SEP "%s", test_tmpdir (), name);
  for (char *p = out + strlen (test_tmpdir ()); *p != '\0'; p++)
    if (*p == '/')
      *p = TEST_SEP[0];
  return out;
}

void
test_isolate_home (void)
{
  char path[8192];
  snprintf (path, sizeof path, "%s", test_path ("home"));
  test_make_folder (path);
  test_setenv ("HOME", path);
  test_setenv ("USERPROFILE", path);
  test_setenv ("XDG_DATA_HOME", test_path ("home/xdg"));
  test_setenv ("LOCALAPPDATA", test_path ("home/local"));
}

bool
test_write_file (const char *path, const void *data, size_t size)
{
  FILE *f = test_fopen (path, "wb");
  bool ok;
  if (f == NULL)
    return false;
  ok = fwrite (data, 1, size, f) == size;
  return fclose (f) == 0 && ok;
}

char *
test_read_file (const char *path, size_t *size)
{
  FILE *f = test_fopen (path, "rb");
  char *data = NULL;
  size_t used = 0, cap = 0, got;
  if (f == NULL)
    return NULL;
  do
    {
      if (used + 4096 + 1 > cap)
        {
          cap = cap ? cap * 2 : 65536;
          data = realloc (data, cap);
        }
      got = fread (data + used, 1, cap - used - 1, f);
      used += got;
    }
  while (got > 0);
  fclose (f);
  data[used] = '\0';
  if (size)
    *size = used;
  return data;
}

static uint64_t
splitmix (uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float
test_randf (uint64_t *state, float lo, float hi)
{
  return lo + (hi - lo) * (float) (splitmix (state) >> 40) * (1.0f / 16777216.0f);
}

static void
fill_split (NnSplit *split, int32_t count, int32_t classes, int32_t c, int32_t h, int32_t w,
            uint64_t *state)
{
  size_t sample = (size_t) c * h * w;
  split->count = count;
  split->channels = c;
  split->height = h;
  split->width = w;
  split->images = malloc (sample * (size_t) count);
  split->labels = malloc ((size_t) count);
  for (int32_t i = 0; i < count; i++)
    {
      int label = (int) (splitmix (state) % (uint64_t) classes);
      uint8_t *img = split->images + sample * (size_t) i;
      /* each class lights a different horizontal band of rows */
      int band = h / classes > 0 ? h / classes : 1;
      split->labels[i] = (uint8_t) label;
      for (int32_t ch = 0; ch < c; ch++)
        for (int32_t y = 0; y < h; y++)
          for (int32_t x = 0; x < w; x++)
            {
              float v = test_randf (state, 0.0f, 60.0f);
              if (y / band == label)
                v += 160.0f;
              img[((size_t) ch * h + y) * w + x] = (uint8_t) v;
            }
    }
}

NnDataset *
test_make_dataset (int32_t train, int32_t test, int32_t classes, int32_t c, int32_t h, int32_t w,
                   uint64_t seed)
{
  NnDataset *ds = calloc (1, sizeof *ds);
  uint64_t state = seed;
  snprintf (ds->name, sizeof ds->name, "synthetic");
  snprintf (ds->path, sizeof ds->path, "(made by the test)");
  ds->classes = classes;
  fill_split (&ds->train, train, classes, c, h, w, &state);
  fill_split (&ds->test, test, classes, c, h, w, &state);
  return ds;
}
