/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-machine-id.c: this machine's identity (nn-machine-id.c): made once
 * in a folder and read back after; one id for processes that make it at
 * the same moment; refused, never made up, where the file holds no id or
 * the folder cannot be written; kept beside the runs folder and recorded
 * in result files; under wine, in the Linux host's folder.
 */

#include "test-util.h"
#include "nn-json-read.h"
#include "nn-os.h"
#include "nn-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#endif

#define RACERS 8

static bool
is_id (const char *s)
{
  size_t n = 0;
  for (; s[n] != '\0'; n++)
    if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
      return false;
  return n == 32;
}

/* A child: the id in the folder `arg`, made there when there is none. */
static int
child_id_in (const char *folder)
{
  char id[NN_MACHINE_ID_SIZE];
  NnError error;

  nn_error_clear (&error);
  if (_nn_machine_id_in (folder, id, NULL, 0, &error) != NN_OK)
    {
      printf ("error: %s\n", error.message);
      return 1;
    }
  printf ("%s\n", id);
  return 0;
}

/* A child: this process's machine id and where it is kept. */
static int
child_id_here (const char *arg)
{
  char id[NN_MACHINE_ID_SIZE], path[4096];
  NnError error;

  (void) arg;
  nn_error_clear (&error);
  if (nn_machine_id (id, path, sizeof path, &error) != NN_OK)
    {
      printf ("error: %s\n", error.message);
      return 1;
    }
  printf ("%s\n%s\n", id, path);
  return 0;
}

static void
test_made_once (void)
{
  const char *folder = test_path ("once/trainbench");
  char id[NN_MACHINE_ID_SIZE], again[NN_MACHINE_ID_SIZE], other[NN_MACHINE_ID_SIZE];
  char path[4096], expect[4096];
  NnError error;

  nn_error_clear (&error);
  tap_ok (_nn_machine_id_in (folder, id, path, sizeof path, &error) == NN_OK && is_id (id),
          "an id is made in a folder that does not exist yet (%s)", id);
  snprintf (expect, sizeof expect, "%s" TEST_SEP "machine-id", folder);
  tap_ok (strcmp (path, expect) == 0 && test_exists (path), "kept in FOLDER/machine-id (%s)",
          path);
  size_t size = 0;
  char *text = test_read_file (path, &size);
  tap_ok (text != NULL && size == 33 && strncmp (text, id, 32) == 0 && text[32] == '\n',
          "the file holds the id and a line end");
  free (text);
  tap_ok (test_count_names (folder, ".tmp-") == 0, "no temporary file is left");
  tap_ok (_nn_machine_id_in (folder, again, NULL, 0, &error) == NN_OK && strcmp (id, again) == 0,
          "asked again, the same id is read, not made anew");
  tap_ok (_nn_machine_id_in (test_path ("another"), other, NULL, 0, &error) == NN_OK
          && is_id (other) && strcmp (id, other) != 0,
          "another folder (another installation) gets another id");
}

/* Eight processes start on a new machine at the same moment: the first
 * file put in place is the id of them all. */
static void
test_race (void)
{
  const char *folder = test_path ("race");
  const char *args[RACERS];
  char *outs[RACERS];
  int statuses[RACERS];
  bool same = true;

  for (int i = 0; i < RACERS; i++)
    {
      args[i] = folder;
      outs[i] = calloc (1, 4096);
    }
  test_children_run (RACERS, "id-in", args, outs, 4096, statuses);
  for (int i = 0; i < RACERS; i++)
    {
      outs[i][strcspn (outs[i], "\r\n")] = '\0';
      same = same && statuses[i] == 0 && is_id (outs[i]) && strcmp (outs[i], outs[0]) == 0;
      if (statuses[i] != 0 || !is_id (outs[i]))
        tap_diag ("process %d: %d, %s", i, statuses[i], outs[i]);
    }
  tap_ok (same, "%d processes making it at once all have one id (%s)", RACERS, outs[0]);
  tap_ok (test_count_names (folder, "machine-id") == 1 && test_count_names (folder, ".tmp-") == 0,
          "one file is left, no temporary one");
  size_t size = 0;
  char path[4096];
  snprintf (path, sizeof path, "%s" TEST_SEP "machine-id", folder);
  char *text = test_read_file (path, &size);
  tap_ok (text != NULL && strncmp (text, outs[0], 32) == 0, "and the file holds that id");
  free (text);
  for (int i = 0; i < RACERS; i++)
    free (outs[i]);
}

static void
test_refused (void)
{
  char id[NN_MACHINE_ID_SIZE];
  NnError error;
  static const char *const bad[] = {
    "not an id\n",
    "5E1F0C2A9B7D4E3F8A6C1B0D2E4F6A8B\n",      /* upper case: not what is made */
    "5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8\n",       /* 31 digits */
    "5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8b0\n",     /* 33 */
    "",
  };

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      char folder[64], path[4096];
      snprintf (folder, sizeof folder, "bad-%zu", i);
      test_make_folder (test_path (folder));
      snprintf (path, sizeof path, "%s" TEST_SEP "machine-id", test_path (folder));
      test_write_file (path, bad[i], strlen (bad[i]));
      nn_error_clear (&error);
      NnStatus status = _nn_machine_id_in (test_path (folder), id, NULL, 0, &error);
      size_t size = 0;
      char *text = test_read_file (path, &size);
      tap_ok (status == NN_ERROR_FORMAT && id[0] == '\0' && strstr (error.message, path) != NULL
              && text != NULL && size == strlen (bad[i]),
              "a file that holds no id (%zu bytes) gives none and stays as it is: %s",
              strlen (bad[i]), error.message);
      free (text);
    }

  /* "\r\n" after the id, as an editor on Windows may leave it, is an id */
  const char *crlf = "5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8b\r\n";
  char path[4096];
  test_make_folder (test_path ("crlf"));
  snprintf (path, sizeof path, "%s" TEST_SEP "machine-id", test_path ("crlf"));
  test_write_file (path, crlf, strlen (crlf));
  tap_ok (_nn_machine_id_in (test_path ("crlf"), id, NULL, 0, &error) == NN_OK
          && strcmp (id, "5e1f0c2a9b7d4e3f8a6c1b0d2e4f6a8b") == 0, "an id with \\r\\n reads");

  /* a data folder that cannot be made: a file has its name */
  test_write_file (test_path ("blocked"), "x", 1);
  nn_error_clear (&error);
  NnStatus status = _nn_machine_id_in (test_path ("blocked/trainbench"), id, NULL, 0, &error);
  tap_ok (status != NN_OK && id[0] == '\0' && strstr (error.message, "blocked") != NULL,
          "no id where the folder cannot be made, and why: %s", error.message);
}

/* The process's own id: beside the runs folder, recorded in a result file. */
static void
test_here (void)
{
  char id[NN_MACHINE_ID_SIZE], path[4096], runs[4096], expect[4096];
  NnError error;

  nn_error_clear (&error);
  tap_ok (nn_machine_id (id, path, sizeof path, &error) == NN_OK && is_id (id),
          "this machine has an id (%s)", id);
  nn_runs_dir (runs, sizeof runs);
  size_t n = strlen (runs);
  tap_ok (n > 5 && strcmp (runs + n - 5, TEST_SEP "runs") == 0, "the runs folder: %s", runs);
  snprintf (expect, sizeof expect, "%.*s" TEST_SEP "machine-id", (int) (n - 5), runs);
  tap_ok (strcmp (path, expect) == 0, "its file lies beside the runs folder: %s", path);

  NnRunResult r;
  memset (&r, 0, sizeof r);
  snprintf (r.run_id, sizeof r.run_id, "20261203T080000Z-x");
  snprintf (r.started_at, sizeof r.started_at, "2026-12-03T08:00:00Z");
  const char *file = test_path ("result.json");
  NnJsonDoc *doc = NULL;
  tap_ok (nn_result_write (&r, NULL, file, &error) == NN_OK
          && _nn_json_read_file (file, &doc, &error) == NN_OK, "a result is written");
  const NnJsonNode *system = doc != NULL ? _nn_json_get (doc, _nn_json_root (doc), "system")
                                         : NULL;
  tap_ok (system != NULL && strcmp (_nn_json_get_string (doc, system, "machine_id", ""), id) == 0,
          "it records the id as system.machine_id");
  _nn_json_doc_free (doc);
}

#ifdef _WIN32
typedef char *(CDECL *UnixNameFunc) (const WCHAR *dos_path);
#endif

/* The folder of the Linux host's id: none natively (the Linux build is the
 * host); under wine $XDG_DATA_HOME/trainbench when the Unix variable is
 * set, else below the Unix home wine names in WINEHOMEDIR. */
static void
test_host_folder (void)
{
  char folder[4096];

  if (!test_under_wine ())
    {
      tap_ok (!_nn_os_host_data_home (folder, sizeof folder) && folder[0] == '\0',
              "natively this build is the host: no host folder");
      return;
    }
#ifdef _WIN32
  char out[8192], expect[4096], saved[4096];
  const char *dir = test_path ("host-xdg");
  test_make_folder (dir);
  /* the Unix path of the test's folder, as the Linux build would be given it */
  UnixNameFunc unix_name = (UnixNameFunc) (void (*) (void))
      GetProcAddress (GetModuleHandleW (L"kernel32.dll"), "wine_get_unix_file_name");
  wchar_t wide[4096];
  MultiByteToWideChar (CP_UTF8, 0, dir, -1, wide, 4096);
  char *unix_dir = unix_name != NULL ? unix_name (wide) : NULL;
  if (!tap_ok (unix_dir != NULL, "the folder's Unix path (%s)", unix_dir))
    return;
  test_setenv ("XDG_DATA_HOME", unix_dir);
  HeapFree (GetProcessHeap (), 0, unix_dir);
  /* in a process of its own: the id is read once a process */
  int status = test_child_run ("id-here", "", out, sizeof out);
  out[strcspn (out, "\r\n")] = '\0';
  snprintf (expect, sizeof expect, "%s\\trainbench\\machine-id", dir);
  size_t size = 0;
  char *text = test_read_file (expect, &size);
  tap_ok (status == 0 && text != NULL && is_id (out) && strncmp (out, text, 32) == 0,
          "XDG_DATA_HOME a Unix path: the Windows build keeps the host's id, in %s (%s)",
          expect, out);
  free (text);

  /* no XDG_DATA_HOME: below the home wine names (a child's WINEHOMEDIR is
   * wine's own, so the folder is asked for here, without making a file) */
  snprintf (saved, sizeof saved, "%s", test_getenv ("WINEHOMEDIR") != NULL
                                         ? test_getenv ("WINEHOMEDIR") : "");
  test_setenv ("XDG_DATA_HOME", NULL);
  test_setenv ("WINEHOMEDIR", "\\??\\Z:\\home\\someone");
  tap_ok (_nn_os_host_data_home (folder, sizeof folder)
          && strcmp (folder, "Z:\\home\\someone\\.local\\share\\trainbench") == 0,
          "no XDG_DATA_HOME: the Unix home's .local/share/trainbench (%s)", folder);
  test_setenv ("WINEHOMEDIR", "\\??\\unix\\home\\someone");
  tap_ok (_nn_os_host_data_home (folder, sizeof folder)
          && strcmp (folder, "\\\\?\\unix\\home\\someone\\.local\\share\\trainbench") == 0,
          "a home no drive maps: through wine's \\\\?\\unix (%s)", folder);
  /* XDG_DATA_HOME a Windows path: this build's own data folder is meant */
  test_setenv ("XDG_DATA_HOME", "C:\\data");
  tap_ok (!_nn_os_host_data_home (folder, sizeof folder),
          "XDG_DATA_HOME a Windows path: this build's own folder");
  test_setenv ("WINEHOMEDIR", saved[0] != '\0' ? saved : NULL);
  test_setenv ("XDG_DATA_HOME", test_path ("home/xdg"));
#endif
}

int
main (int argc, char **argv)
{
  static const TestChildCase children[] = {
    { "id-in", child_id_in },
    { "id-here", child_id_here },
    { NULL, NULL },
  };

  test_child_main (argc, argv, children);
  test_isolate_home ();
  test_made_once ();
  test_race ();
  test_refused ();
  test_here ();
  test_host_folder ();
  return tap_done ();
}
