/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-machine-id.c: this machine's identity, which every result and sweep
 * file records and the report knows this machine's runs by: 128 random
 * bits made once and kept in Trainbench's data folder, beside the runs
 * folder.
 *
 * A CPU model names thousands of laptops; an id drawn at random names one
 * installation. It is made with the file system's create-if-new, so two
 * processes that start together on a new machine end with one id: the one
 * whose file is put in place first, which the other then reads.
 */

#include "nn-os.h"
#include "nn-private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ID_FILE "machine-id"
#define ID_DIGITS (NN_MACHINE_ID_SIZE - 1)

static bool
is_hex_digit (char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The id kept in `path`. *missing (and an error) when nothing is there;
 * any other failure is why there is no id. */
static NnStatus
read_id (const char *path, char id[NN_MACHINE_ID_SIZE], bool *missing, NnError *error)
{
  const char *not_regular = NULL;
  char text[ID_DIGITS + 3];   /* the digits and a line end, "\n" or "\r\n" */

  *missing = false;
  FILE *f = _nn_os_open_regular (path, NULL, &not_regular);
  if (f == NULL)
    {
      *missing = errno == ENOENT;
      return _nn_error_set (error, NN_ERROR_IO, "%s: cannot read this machine's id: %s", path,
                            not_regular != NULL ? not_regular : strerror (errno));
    }
  size_t n = fread (text, 1, sizeof text, f);
  bool more = n == sizeof text;
  fclose (f);

  bool valid = n >= ID_DIGITS && !more;
  for (size_t i = 0; valid && i < ID_DIGITS; i++)
    valid = is_hex_digit (text[i]);
  const char *end = text + ID_DIGITS;
  size_t rest = valid ? n - ID_DIGITS : 0;
  valid = valid && (rest == 0 || (rest == 1 && end[0] == '\n')
                    || (rest == 2 && end[0] == '\r' && end[1] == '\n'));
  if (!valid)
    return _nn_error_set (error, NN_ERROR_FORMAT,
                          "%s: not a machine id (32 lowercase hexadecimal digits expected); "
                          "remove the file to have a new one made", path);
  memcpy (id, text, ID_DIGITS);
  id[ID_DIGITS] = '\0';
  return NN_OK;
}

/* A new id, put at `path` only if nothing is there: *taken when another
 * process put one there first. */
static NnStatus
create_id (const char *path, char id[NN_MACHINE_ID_SIZE], bool *taken, NnError *error)
{
  static const char digits[] = "0123456789abcdef";
  unsigned char bytes[ID_DIGITS / 2];
  char text[ID_DIGITS + 1];
  NnAtomicFile af;

  *taken = false;
  if (!_nn_os_random (bytes, sizeof bytes))
    return _nn_error_set (error, NN_ERROR_IO,
                          "%s: the OS gave no random bytes to make this machine's id from", path);
  for (size_t i = 0; i < sizeof bytes; i++)
    {
      text[2 * i] = digits[bytes[i] >> 4];
      text[2 * i + 1] = digits[bytes[i] & 15];
    }
  text[ID_DIGITS] = '\n';

  NnStatus status = _nn_atomic_file_open_new (&af, path, true, error);
  if (status != NN_OK)
    return status;
  _nn_atomic_file_write (&af, text, sizeof text);
  status = _nn_atomic_file_commit_new (&af, taken, error);
  if (status != NN_OK)
    return status;
  memcpy (id, text, ID_DIGITS);
  id[ID_DIGITS] = '\0';
  return NN_OK;
}

NnStatus
_nn_machine_id_in (const char *folder, char id[NN_MACHINE_ID_SIZE], char *path,
                   size_t path_size, NnError *error)
{
  char file[4096];
  bool missing = false, taken = false;

  id[0] = '\0';
  if (path != NULL && path_size > 0)
    path[0] = '\0';
  if (!nn_path_join (file, sizeof file, folder, ID_FILE))
    return _nn_error_set (error, NN_ERROR_IO,
                          "%s: the folder's name is too long to keep this machine's id in", folder);
  if (path != NULL)
    snprintf (path, path_size, "%s", file);

  NnStatus status = read_id (file, id, &missing, error);
  if (status == NN_OK || !missing)
    return status;
  status = create_id (file, id, &taken, error);
  if (status == NN_OK || !taken)
    return status;
  /* another process made it at the same moment: its id is this machine's */
  return read_id (file, id, &missing, error);
}

/* ---------------------------------------------------------------- once per process */

static struct
{
  NnStatus status;
  NnError error;
  char id[NN_MACHINE_ID_SIZE];
  char path[4096];
} machine;
static NnOsOnce machine_once = NN_OS_ONCE_INIT;

static void
read_machine (void)
{
  char folder[4096];

  /* Under wine the Linux host's own folder first: the Windows build under
   * wine and the Linux build are two OSes of one machine, which the
   * report's Windows-against-Linux claim compares. Where wine cannot reach
   * it, the Windows build's own. */
  nn_error_clear (&machine.error);
  if (_nn_os_host_data_home (folder, sizeof folder))
    {
      machine.status = _nn_machine_id_in (folder, machine.id, machine.path, sizeof machine.path,
                                          &machine.error);
      if (machine.status == NN_OK)
        return;
      nn_error_clear (&machine.error);
    }
  _nn_os_data_home (folder, sizeof folder);
  machine.status = _nn_machine_id_in (folder, machine.id, machine.path, sizeof machine.path,
                                      &machine.error);
}

NnStatus
nn_machine_id (char id[NN_MACHINE_ID_SIZE], char *path, size_t path_size, NnError *error)
{
  _nn_os_once (&machine_once, read_machine);
  snprintf (id, NN_MACHINE_ID_SIZE, "%s", machine.id);
  if (path != NULL && path_size > 0)
    snprintf (path, path_size, "%s", machine.path);
  if (machine.status != NN_OK && error != NULL)
    *error = machine.error;
  return machine.status;
}
