/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-os-win32.c: the engine's OS layer (nn-os.h) on Windows: UTF-8 paths
 * and variables through the wide-character API, atomic replace with
 * MoveFileExW, the machine from RtlGetVersion, the registry and
 * GlobalMemoryStatusEx, and wine named when it runs the program.
 *
 * This code links msvcrt.dll, OpenBLAS the UCRT: a FILE * or a block of
 * memory never passes from one runtime to the other.
 */

#define WIN32_LEAN_AND_MEAN
#define _WIN32_WINNT 0x0601 /* Windows 7 */

#include "nn-os.h"
#include "nn-private.h"

#include <windows.h>
#include <bcrypt.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <malloc.h>
#include <process.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

_Static_assert (sizeof (NnOsOnce) == sizeof (INIT_ONCE), "NnOsOnce holds an INIT_ONCE");
_Static_assert (sizeof (NnOsMutex) == sizeof (SRWLOCK), "NnOsMutex holds an SRWLOCK");

/* ---------------------------------------------------------------- UTF-8 and UTF-16 */

/* A UTF-16 copy of `utf8` (free it), NULL with errno set when it is not
 * UTF-8 or memory ran out. */
static wchar_t *
wide (const char *utf8)
{
  int n = MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
  if (n <= 0)
    {
      errno = EINVAL;
      return NULL;
    }
  wchar_t *w = malloc ((size_t) n * sizeof *w);
  if (w == NULL)
    {
      errno = ENOMEM;
      return NULL;
    }
  MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, w, n);
  return w;
}

/* `w` as UTF-8 into out; false (out = "") when it does not fit. */
static bool
narrow (const wchar_t *w, char *out, size_t size)
{
  if (size == 0)
    return false;
  int n = WideCharToMultiByte (CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  if (n <= 0 || (size_t) n > size)
    {
      out[0] = '\0';
      return false;
    }
  WideCharToMultiByte (CP_UTF8, 0, w, -1, out, n, NULL, NULL);
  return true;
}

/* The errno value closest to a Win32 error, for messages made with strerror. */
static int
errno_from (DWORD error)
{
  switch (error)
    {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_PATHNAME:
      return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_WRITE_PROTECT:
    case ERROR_CURRENT_DIRECTORY:
      return EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
      return EEXIST;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
      return ENOSPC;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
      return ENOMEM;
    case ERROR_DIR_NOT_EMPTY:
      return ENOTEMPTY;
    case ERROR_DIRECTORY:
      return ENOTDIR;
    case ERROR_FILENAME_EXCED_RANGE:
      return ENAMETOOLONG;
    case ERROR_INVALID_PARAMETER:
      return EINVAL;
    default:
      return EIO;
    }
}

/* FormatMessageW's text for a Win32 error, as UTF-8 without the final
 * period and line break. */
static void
error_text (DWORD error, char *out, size_t size)
{
  wchar_t buf[512];
  DWORD n = FormatMessageW (FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                            error, 0, buf, sizeof buf / sizeof buf[0], NULL);
  while (n > 0 && (buf[n - 1] == L'\r' || buf[n - 1] == L'\n' || buf[n - 1] == L' '
                   || buf[n - 1] == L'.'))
    n--;
  buf[n] = L'\0';
  if (n == 0 || !narrow (buf, out, size))
    snprintf (out, size, "Windows error %lu", (unsigned long) error);
}

/* ---------------------------------------------------------------- paths and files */

bool
_nn_os_is_separator (char c)
{
  return c == '/' || c == '\\';
}

size_t
_nn_os_path_root (const char *path)
{
  /* "\\server\share\": the share is a root too */
  if (_nn_os_is_separator (path[0]) && _nn_os_is_separator (path[1]))
    {
      size_t i = 2;
      for (int part = 0; part < 2; part++)
        {
          while (path[i] != '\0' && !_nn_os_is_separator (path[i]))
            i++;
          if (path[i] != '\0')
            i++;
        }
      return i;
    }
  if (((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z'))
      && path[1] == ':')
    return _nn_os_is_separator (path[2]) ? 3 : 2;
  return _nn_os_is_separator (path[0]) ? 1 : 0;
}

NnOsKind
_nn_os_path_kind (const char *path, uint64_t *size)
{
  WIN32_FILE_ATTRIBUTE_DATA data;
  wchar_t *w = wide (path);
  NnOsKind kind = NN_OS_MISSING;

  if (size != NULL)
    *size = 0;
  if (w == NULL)
    return NN_OS_MISSING;
  if (!GetFileAttributesExW (w, GetFileExInfoStandard, &data))
    errno = errno_from (GetLastError ());
  else
    {
      DWORD attributes = data.dwFileAttributes;
      uint64_t bytes = ((uint64_t) data.nFileSizeHigh << 32) | data.nFileSizeLow;
      if (attributes & FILE_ATTRIBUTE_REPARSE_POINT)
        {
          /* a link: what it points to */
          BY_HANDLE_FILE_INFORMATION info;
          HANDLE h = CreateFileW (w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                  NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
          bool ok = h != INVALID_HANDLE_VALUE && GetFileInformationByHandle (h, &info);
          DWORD why = GetLastError ();
          if (h != INVALID_HANDLE_VALUE)
            CloseHandle (h);
          if (!ok)
            {
              free (w);
              errno = errno_from (why);
              return NN_OS_MISSING;
            }
          attributes = info.dwFileAttributes;
          bytes = ((uint64_t) info.nFileSizeHigh << 32) | info.nFileSizeLow;
        }
      if (attributes & FILE_ATTRIBUTE_DIRECTORY)
        kind = NN_OS_FOLDER;
      else if (attributes & FILE_ATTRIBUTE_DEVICE)
        kind = NN_OS_OTHER;
      else
        {
          kind = NN_OS_FILE;
          if (size != NULL)
            *size = bytes;
        }
    }
  free (w);
  return kind;
}

/* A FILE * over a handle from CreateFileW; NULL with errno set. */
static FILE *
file_from_handle (HANDLE h, int flags, const char *mode)
{
  int fd = _open_osfhandle ((intptr_t) h, flags | _O_BINARY);
  if (fd < 0)
    {
      CloseHandle (h);
      errno = EMFILE;
      return NULL;
    }
  FILE *f = _fdopen (fd, mode);
  if (f == NULL)
    {
      int e = errno;
      _close (fd);
      errno = e;
    }
  return f;
}

FILE *
_nn_os_fopen (const char *path, const char *mode)
{
  bool plus = strchr (mode, '+') != NULL;
  DWORD access, disposition;
  int flags;
  char how[4];

  switch (mode[0])
    {
    case 'r':
      access = GENERIC_READ | (plus ? GENERIC_WRITE : 0);
      disposition = OPEN_EXISTING;
      flags = plus ? _O_RDWR : _O_RDONLY;
      break;
    case 'w':
      access = GENERIC_WRITE | (plus ? GENERIC_READ : 0);
      disposition = CREATE_ALWAYS;
      flags = plus ? _O_RDWR : _O_WRONLY;
      break;
    case 'a':
      access = FILE_APPEND_DATA | (plus ? GENERIC_READ : 0);
      disposition = OPEN_ALWAYS;
      flags = (plus ? _O_RDWR : _O_WRONLY) | _O_APPEND;
      break;
    default:
      errno = EINVAL;
      return NULL;
    }
  snprintf (how, sizeof how, "%c%sb", mode[0], plus ? "+" : "");

  wchar_t *w = wide (path);
  if (w == NULL)
    return NULL;
  /* FILE_SHARE_DELETE: an open reader never stops a writer replacing the file */
  HANDLE h = CreateFileW (w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                          NULL, disposition, FILE_ATTRIBUTE_NORMAL, NULL);
  DWORD error = GetLastError ();
  free (w);
  if (h == INVALID_HANDLE_VALUE)
    {
      errno = errno_from (error);
      return NULL;
    }
  return file_from_handle (h, flags, how);
}

/* What a handle that is no disk file is, in words (GetFileType). */
static const char *
handle_kind_name (DWORD type)
{
  switch (type)
    {
    case FILE_TYPE_CHAR:
      return NN_MESSAGE ("a device (NUL, CON, a serial port)");
    case FILE_TYPE_PIPE:
      return NN_MESSAGE ("a pipe");
    default:
      return NN_MESSAGE ("not a regular file");
    }
}

FILE *
_nn_os_open_regular (const char *path, uint64_t *size, const char **not_regular)
{
  BY_HANDLE_FILE_INFORMATION info;
  const char *kind = NULL;

  if (not_regular != NULL)
    *not_regular = NULL;
  wchar_t *w = wide (path);
  if (w == NULL)
    return NULL;
  /* no FILE_FLAG_BACKUP_SEMANTICS: a folder does not open; a pipe with no
   * free instance fails at once rather than waiting (ERROR_PIPE_BUSY) */
  HANDLE h = CreateFileW (w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                          NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  DWORD error = GetLastError ();
  if (h == INVALID_HANDLE_VALUE)
    {
      DWORD attributes = GetFileAttributesW (w);
      free (w);
      if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY))
        {
          if (not_regular != NULL)
            *not_regular = "a folder";
          errno = EINVAL;
          return NULL;
        }
      errno = errno_from (error);
      return NULL;
    }
  free (w);
  DWORD type = GetFileType (h);
  if (type != FILE_TYPE_DISK)
    kind = handle_kind_name (type);
  else if (!GetFileInformationByHandle (h, &info))
    {
      error = GetLastError ();
      CloseHandle (h);
      errno = errno_from (error);
      return NULL;
    }
  else if (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE))
    kind = info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? NN_MESSAGE ("a folder")
                                                             : NN_MESSAGE ("a device");
  if (kind != NULL)
    {
      CloseHandle (h);
      if (not_regular != NULL)
        *not_regular = kind;
      errno = EINVAL;
      return NULL;
    }
  if (size != NULL)
    *size = ((uint64_t) info.nFileSizeHigh << 32) | info.nFileSizeLow;
  return file_from_handle (h, _O_RDONLY, "rb");
}

int
_nn_os_open_write_through (const char *path, FILE **out, const char **what)
{
  *out = NULL;
  *what = NULL;
  wchar_t *w = wide (path);
  if (w == NULL)
    return 0;
  /* Opened with no access first, only to see what it is: NUL, CON, COM1
   * (also as "nul.json" in any folder, which older Windows takes for the
   * device) are character devices; a disk file is left alone. */
  HANDLE h = CreateFileW (w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                          OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  if (h == INVALID_HANDLE_VALUE)
    {
      free (w);
      return 0;
    }
  DWORD type = GetFileType (h);
  CloseHandle (h);
  if (type == FILE_TYPE_DISK || type == FILE_TYPE_UNKNOWN)
    {
      free (w);
      return 0;
    }
  h = CreateFileW (w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                   FILE_ATTRIBUTE_NORMAL, NULL);
  DWORD error = GetLastError ();
  free (w);
  if (h == INVALID_HANDLE_VALUE)
    {
      *what = handle_kind_name (type);
      return errno_from (error);
    }
  FILE *f = file_from_handle (h, _O_WRONLY, "wb");
  if (f == NULL)
    {
      *what = handle_kind_name (type);
      return errno;
    }
  *out = f;
  return 0;
}

bool
_nn_os_is_link (const char *path)
{
  WIN32_FIND_DATAW data;
  wchar_t *w = wide (path);

  if (w == NULL)
    return false;
  HANDLE h = FindFirstFileW (w, &data);
  free (w);
  if (h == INVALID_HANDLE_VALUE)
    return false;
  FindClose (h);
  /* A symbolic link or a junction; wine shows a Unix symbolic link as a
   * reparse point without a tag (0, which Windows never gives one). Other
   * reparse points (OneDrive's files on demand, deduplicated files) are
   * the files themselves. */
  return (data.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0
         && (data.dwReserved0 == IO_REPARSE_TAG_SYMLINK
             || data.dwReserved0 == IO_REPARSE_TAG_MOUNT_POINT || data.dwReserved0 == 0);
}

int
_nn_os_resolve_links (const char *path, char *out, size_t size)
{
  size_t n = strlen (path);
  if (n >= size)
    return ENAMETOOLONG;
  memcpy (out, path, n + 1);

  wchar_t *w = wide (path);
  if (w == NULL)
    return 0;
  DWORD attributes = GetFileAttributesW (w);
  if (attributes == INVALID_FILE_ATTRIBUTES || !(attributes & FILE_ATTRIBUTE_REPARSE_POINT))
    {
      free (w);
      return 0;
    }
  /* a link: the final path of what it names (a dangling one stays itself) */
  HANDLE h = CreateFileW (w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                          OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  DWORD error = GetLastError ();
  free (w);
  if (h == INVALID_HANDLE_VALUE)
    return error == ERROR_CANT_RESOLVE_FILENAME ? ELOOP : 0;
  enum { LONGEST = 32768 };
  wchar_t *final = malloc (LONGEST * sizeof *final);
  DWORD len = final != NULL ? GetFinalPathNameByHandleW (h, final, LONGEST, FILE_NAME_NORMALIZED)
                            : 0;
  CloseHandle (h);
  int e = 0;
  if (len > 0 && len < LONGEST)
    {
      /* "\\?\C:\x" -> "C:\x", "\\?\UNC\server\share" -> "\\server\share" */
      const wchar_t *p = final;
      char *dest = out;
      size_t room = size;
      if (wcsncmp (p, L"\\\\?\\UNC\\", 8) == 0)
        {
          p += 8;
          if (room < 3)
            e = ENAMETOOLONG;
          else
            {
              dest[0] = '\\';
              dest[1] = '\\';
              dest += 2;
              room -= 2;
            }
        }
      else if (wcsncmp (p, L"\\\\?\\", 4) == 0)
        p += 4;
      if (e == 0 && !narrow (p, dest, room))
        e = ENAMETOOLONG;
    }
  free (final);
  if (e != 0)
    memcpy (out, path, n + 1);
  return e;
}

FILE *
_nn_os_create_new (const char *path)
{
  wchar_t *w = wide (path);
  if (w == NULL)
    return NULL;
  /* not inheritable: no security attributes asking for it */
  HANDLE h = CreateFileW (w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL,
                          CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
  DWORD error = GetLastError ();
  free (w);
  if (h == INVALID_HANDLE_VALUE)
    {
      errno = errno_from (error);
      return NULL;
    }
  FILE *f = file_from_handle (h, _O_WRONLY, "wb");
  if (f == NULL)
    _nn_os_remove (path);
  return f;
}

int
_nn_os_make_folder (const char *path)
{
  wchar_t *w = wide (path);
  if (w == NULL)
    return errno;
  BOOL ok = CreateDirectoryW (w, NULL);
  DWORD error = GetLastError ();
  free (w);
  return ok ? 0 : errno_from (error);
}

int
_nn_os_folder_list (const char *path, char ***names, size_t *count)
{
  size_t cap = 0;
  size_t len = strlen (path);
  char *pattern = malloc (len + 3);
  WIN32_FIND_DATAW data;
  char name[4 * MAX_PATH];
  int failed = 0;

  *names = NULL;
  *count = 0;
  if (pattern == NULL)
    return ENOMEM;
  memcpy (pattern, path, len);
  if (len > 0 && !_nn_os_is_separator (path[len - 1]))
    pattern[len++] = '\\';
  pattern[len++] = '*';
  pattern[len] = '\0';
  wchar_t *w = wide (pattern);
  free (pattern);
  if (w == NULL)
    return errno;
  HANDLE h = FindFirstFileW (w, &data);
  DWORD error = GetLastError ();
  free (w);
  if (h == INVALID_HANDLE_VALUE)
    /* an empty folder still lists "." */
    return errno_from (error);
  do
    {
      if (wcscmp (data.cFileName, L".") == 0 || wcscmp (data.cFileName, L"..") == 0)
        continue;
      if (!narrow (data.cFileName, name, sizeof name))
        continue;
      if (*count == cap)
        {
          size_t cap2 = cap > 0 ? cap * 2 : 16;
          char **grown = realloc (*names, cap2 * sizeof *grown);
          if (grown == NULL)
            {
              failed = ENOMEM;
              break;
            }
          *names = grown;
          cap = cap2;
        }
      char *copy = _strdup (name);
      if (copy == NULL)
        {
          failed = ENOMEM;
          break;
        }
      (*names)[(*count)++] = copy;
    }
  while (FindNextFileW (h, &data));
  FindClose (h);
  if (failed != 0)
    {
      for (size_t i = 0; i < *count; i++)
        free ((*names)[i]);
      free (*names);
      *names = NULL;
      *count = 0;
    }
  return failed;
}

int
_nn_os_remove (const char *path)
{
  wchar_t *w = wide (path);
  if (w == NULL)
    return errno;
  BOOL ok = DeleteFileW (w);
  DWORD error = GetLastError ();
  free (w);
  return ok ? 0 : errno_from (error);
}

int
_nn_os_sync_file (FILE *f)
{
  if (fflush (f) != 0)
    return errno;
  HANDLE h = (HANDLE) _get_osfhandle (_fileno (f));
  if (h == INVALID_HANDLE_VALUE || !FlushFileBuffers (h))
    return errno_from (GetLastError ());
  return 0;
}

int
_nn_os_free_space (const char *path, uint64_t *bytes)
{
  ULARGE_INTEGER available;
  wchar_t *w = wide (path);
  if (w == NULL)
    return errno;
  BOOL ok = GetDiskFreeSpaceExW (w, &available, NULL, NULL);
  DWORD error = GetLastError ();
  free (w);
  if (!ok)
    return errno_from (error);
  *bytes = available.QuadPart;
  return 0;
}

/* How long a replace keeps trying while the target is held: by another
 * writer's replace, or by a reader that opened it without delete sharing
 * (any fopen of the C runtime). 4 threads writing one result file 20 times
 * each under wine 8 on the 2-core development machine: without retrying
 * 16, 16 and 23 of the 80 writes failed (access denied); with it none, the
 * slowest write taking 34-64 ms, and up to 416 ms while the machine was
 * busy compiling. */
#define REPLACE_PATIENCE_MS 10000

int
_nn_os_replace (const char *from, const char *to)
{
  wchar_t *wfrom = wide (from);
  wchar_t *wto = wfrom != NULL ? wide (to) : NULL;
  DWORD error = ERROR_SUCCESS;
  ULONGLONG start = GetTickCount64 ();
  DWORD pause = 1;

  if (wto == NULL)
    {
      int e = errno;
      free (wfrom);
      return e;
    }
  for (;;)
    {
      if (MoveFileExW (wfrom, wto, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        {
          error = ERROR_SUCCESS;
          break;
        }
      error = GetLastError ();
      /* Access denied is also what a folder in the way gives: no waiting
       * for that one. */
      bool busy = error == ERROR_SHARING_VIOLATION || error == ERROR_LOCK_VIOLATION
                  || error == ERROR_ACCESS_DENIED;
      DWORD target = busy ? GetFileAttributesW (wto) : INVALID_FILE_ATTRIBUTES;
      bool folder = target != INVALID_FILE_ATTRIBUTES && (target & FILE_ATTRIBUTE_DIRECTORY);
      if (!busy || folder || GetTickCount64 () - start > REPLACE_PATIENCE_MS)
        break;
      Sleep (pause);
      if (pause < 32)
        pause *= 2;
    }
  free (wfrom);
  free (wto);
  return error == ERROR_SUCCESS ? 0 : errno_from (error);
}

int
_nn_os_place_new (const char *from, const char *to)
{
  wchar_t *wfrom = wide (from);
  wchar_t *wto = wfrom != NULL ? wide (to) : NULL;
  if (wto == NULL)
    {
      int e = errno;
      free (wfrom);
      return e;
    }
  /* without MOVEFILE_REPLACE_EXISTING it fails when `to` exists */
  BOOL ok = MoveFileExW (wfrom, wto, MOVEFILE_WRITE_THROUGH);
  DWORD error = GetLastError ();
  free (wfrom);
  free (wto);
  return ok ? 0 : errno_from (error);
}

void *
_nn_os_lock_try (const char *path, int *error)
{
  wchar_t *w = wide (path);
  if (w == NULL)
    {
      *error = errno;
      return NULL;
    }
  /* opened unshared: a second opener fails with a sharing violation; the
   * file goes when the handle closes, also when the process dies */
  HANDLE h = CreateFileW (w, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_ALWAYS,
                          FILE_ATTRIBUTE_NORMAL | FILE_FLAG_DELETE_ON_CLOSE, NULL);
  DWORD e = GetLastError ();
  free (w);
  if (h == INVALID_HANDLE_VALUE)
    {
      *error = e == ERROR_SHARING_VIOLATION || e == ERROR_ACCESS_DENIED ? EBUSY : errno_from (e);
      return NULL;
    }
  return (void *) h;
}

void
_nn_os_lock_release (void *lock)
{
  if (lock != NULL)
    CloseHandle ((HANDLE) lock);
}

static bool
handle_id (HANDLE h, uint64_t id[2])
{
  BY_HANDLE_FILE_INFORMATION info;
  if (h == INVALID_HANDLE_VALUE || !GetFileInformationByHandle (h, &info))
    return false;
  id[0] = info.dwVolumeSerialNumber;
  id[1] = ((uint64_t) info.nFileIndexHigh << 32) | info.nFileIndexLow;
  return true;
}

bool
_nn_os_file_id (FILE *f, uint64_t id[2])
{
  return handle_id ((HANDLE) _get_osfhandle (_fileno (f)), id);
}

bool
_nn_os_path_id (const char *path, uint64_t id[2])
{
  wchar_t *w = wide (path);
  if (w == NULL)
    return false;
  HANDLE h = CreateFileW (w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                          OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  free (w);
  bool ok = handle_id (h, id);
  if (h != INVALID_HANDLE_VALUE)
    CloseHandle (h);
  return ok;
}

void
_nn_os_sync_folder (const char *folder)
{
  /* MOVEFILE_WRITE_THROUGH made the replace durable already */
  (void) folder;
}

bool
_nn_os_program_path (char *out, size_t size)
{
  enum { LONGEST = 32768 };   /* the longest path Windows has, in UTF-16 units */
  wchar_t *buf = malloc (LONGEST * sizeof *buf);
  DWORD n = buf != NULL ? GetModuleFileNameW (NULL, buf, LONGEST) : 0;
  bool ok = n > 0 && n < LONGEST && narrow (buf, out, size);
  free (buf);
  if (!ok && size > 0)
    out[0] = '\0';
  return ok;
}

/* ---------------------------------------------------------------- environment */

bool
_nn_os_getenv (const char *name, char *out, size_t size)
{
  if (size > 0)
    out[0] = '\0';
  wchar_t *wname = wide (name);
  if (wname == NULL)
    return false;
  SetLastError (ERROR_SUCCESS);
  DWORD n = GetEnvironmentVariableW (wname, NULL, 0);
  if (n == 0)
    {
      DWORD error = GetLastError ();
      free (wname);
      return error != ERROR_ENVVAR_NOT_FOUND && size > 0;   /* set to "" */
    }
  wchar_t *value = malloc ((size_t) n * sizeof *value);
  bool ok = value != NULL && GetEnvironmentVariableW (wname, value, n) < n
            && narrow (value, out, size);
  free (value);
  free (wname);
  return ok;
}

typedef int (__cdecl *WputenvFunc) (const wchar_t *assignment);

bool
_nn_os_setenv (const char *name, const char *value)
{
  wchar_t *wname = wide (name);
  wchar_t *wvalue = value != NULL ? wide (value) : NULL;
  if (wname == NULL || (value != NULL && wvalue == NULL))
    {
      free (wname);
      free (wvalue);
      return false;
    }

  /* "NAME=value", or "NAME=" to remove it, for the C runtimes' copies */
  size_t length = wcslen (wname) + 1 + (wvalue != NULL ? wcslen (wvalue) : 0) + 1;
  wchar_t *assignment = malloc (length * sizeof *assignment);
  if (assignment != NULL)
    {
      wcscpy (assignment, wname);
      wcscat (assignment, L"=");
      if (wvalue != NULL)
        wcscat (assignment, wvalue);
      _wputenv (assignment);
      /* The UCRT keeps its own copy, read from the process once it starts:
       * a UCRT already in the process (a GTK DLL's) gets the value by a
       * call to its own _wputenv. */
      HMODULE ucrt = GetModuleHandleW (L"ucrtbase.dll");
      WputenvFunc ucrt_wputenv
          = ucrt != NULL ? (WputenvFunc) (void (*) (void)) GetProcAddress (ucrt, "_wputenv")
                         : NULL;
      if (ucrt_wputenv != NULL)
        ucrt_wputenv (assignment);
    }
  BOOL ok = SetEnvironmentVariableW (wname, wvalue);
  free (assignment);
  free (wname);
  free (wvalue);
  return ok != 0;
}

/* ---------------------------------------------------------------- folders of the user */

/* An absolute path: a drive and its root, or a UNC share. */
static bool
is_absolute (const char *path)
{
  size_t root = _nn_os_path_root (path);
  return root >= 3 || (root == 2 && _nn_os_is_separator (path[0]));
}

void
_nn_os_home (char *out, size_t size)
{
  char drive[16], rest[4096];

  if (_nn_os_getenv ("USERPROFILE", out, size) && out[0] != '\0')
    return;
  if (_nn_os_getenv ("HOMEDRIVE", drive, sizeof drive) && _nn_os_getenv ("HOMEPATH", rest, sizeof rest)
      && drive[0] != '\0')
    {
      snprintf (out, size, "%s%s", drive, rest);
      return;
    }
  if (size > 0)
    out[0] = '\0';
}

void
_nn_os_data_home (char *out, size_t size)
{
  char base[4096];

  if (_nn_os_getenv ("XDG_DATA_HOME", base, sizeof base) && is_absolute (base))
    {
      snprintf (out, size, "%s\\trainbench", base);
      return;
    }
  if (_nn_os_getenv ("LOCALAPPDATA", base, sizeof base) && is_absolute (base))
    {
      snprintf (out, size, "%s\\Trainbench", base);
      return;
    }
  _nn_os_home (base, sizeof base);
  snprintf (out, size, "%s\\AppData\\Local\\Trainbench", base[0] != '\0' ? base : ".");
}

typedef const char *(CDECL *WineGetVersionFunc) (void);
typedef WCHAR *(CDECL *WineGetDosFileNameFunc) (const char *unix_path);

bool
_nn_os_host_data_home (char *out, size_t size)
{
  HMODULE ntdll = GetModuleHandleW (L"ntdll.dll");
  HMODULE kernel32 = GetModuleHandleW (L"kernel32.dll");
  char base[4096];

  if (size > 0)
    out[0] = '\0';
  /* wine's ntdll has wine_get_version; Windows' has not */
  if (ntdll == NULL || GetProcAddress (ntdll, "wine_get_version") == NULL)
    return false;

  /* XDG_DATA_HOME reaches a program under wine as the Unix path it is; the
   * Linux build takes it when it is absolute, and so does this. Set to a
   * Windows path, it names this build's data folder itself
   * (_nn_os_data_home), the folder meant. */
  bool set = _nn_os_getenv ("XDG_DATA_HOME", base, sizeof base);
  if (set && is_absolute (base))
    return false;
  if (set && base[0] == '/')
    {
      WineGetDosFileNameFunc dos_name
          = kernel32 != NULL ? (WineGetDosFileNameFunc) (void (*) (void))
                                 GetProcAddress (kernel32, "wine_get_dos_file_name")
                             : NULL;
      WCHAR *w = dos_name != NULL ? dos_name (base) : NULL;
      if (w == NULL)
        return false;
      bool ok = narrow (w, base, sizeof base);
      HeapFree (GetProcessHeap (), 0, w);
      int n = ok ? snprintf (out, size, "%s\\trainbench", base) : -1;
      if (n > 0 && (size_t) n < size)
        return true;
      if (size > 0)
        out[0] = '\0';
      return false;
    }

  /* HOME does not reach it (wine keeps it for itself): WINEHOMEDIR holds the
   * Unix home as an NT path, \??\Z:\home\NAME, or \??\unix\home\NAME where
   * no drive maps it */
  if (!_nn_os_getenv ("WINEHOMEDIR", base, sizeof base) || strncmp (base, "\\??\\", 4) != 0
      || base[4] == '\0')
    return false;
  const char *home = base + 4;
  bool drive = _nn_os_path_root (home) == 3;
  int n = snprintf (out, size, "%s%s\\.local\\share\\trainbench", drive ? "" : "\\\\?\\", home);
  if (n <= 0 || (size_t) n >= size)
    {
      if (size > 0)
        out[0] = '\0';
      return false;
    }
  return true;
}

const char *
_nn_os_system_datasets (void)
{
  return NULL;
}

/* ---------------------------------------------------------------- time and randomness */

double
_nn_now (void)
{
  static int64_t frequency; /* counts per second, constant while the system runs */
  int64_t f = __atomic_load_n (&frequency, __ATOMIC_RELAXED);
  LARGE_INTEGER now;

  if (f == 0)
    {
      LARGE_INTEGER q;
      QueryPerformanceFrequency (&q);
      f = q.QuadPart > 0 ? q.QuadPart : 1;
      __atomic_store_n (&frequency, f, __ATOMIC_RELAXED);
    }
  QueryPerformanceCounter (&now);
  /* whole seconds and the rest apart, so the double keeps its precision */
  return (double) (now.QuadPart / f) + (double) (now.QuadPart % f) / (double) f;
}

void
_nn_os_gmtime (time_t t, struct tm *out)
{
  if (gmtime_s (out, &t) != 0)
    memset (out, 0, sizeof *out);
}

bool
_nn_os_random (void *buffer, size_t size)
{
  uint8_t *p = buffer;
  while (size > 0)
    {
      ULONG n = size > 0x10000000 ? 0x10000000 : (ULONG) size;
      if (!BCRYPT_SUCCESS (BCryptGenRandom (NULL, p, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
        return false;
      p += n;
      size -= n;
    }
  return true;
}

/* ---------------------------------------------------------------- dynamic libraries */

/* Once, before the engine loads its first library: from then on a library
 * this process loads by name, and every library those load by name (their
 * imports; cuDNN's parts, which it loads itself), is looked for only in
 * the program's folder, System32 and the folders added with
 * AddDllDirectory (the CUDA module adds those of the NVIDIA libraries it
 * loads); never in the current folder or on PATH, where anyone may have
 * put a file of that name. Looked up at run time: Windows 7 without
 * KB2533623 has no SetDefaultDllDirectories (nor the LOAD_LIBRARY_SEARCH_*
 * flags, so the engine loads no library there, and says why). */
static void
restrict_dll_search (void)
{
  typedef BOOL (WINAPI *SetDefaultDllDirectoriesFunc) (DWORD flags);
  HMODULE kernel32 = GetModuleHandleW (L"kernel32.dll");
  SetDefaultDllDirectoriesFunc set_default
      = kernel32 != NULL ? (SetDefaultDllDirectoriesFunc) (void (*) (void))
                             GetProcAddress (kernel32, "SetDefaultDllDirectories")
                         : NULL;
  if (set_default != NULL)
    set_default (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
}

static NnOsOnce dll_search_once = NN_OS_ONCE_INIT;

void *
_nn_os_lib_open (const char *name, char *why, size_t why_size)
{
  bool is_path = strchr (name, '/') != NULL || strchr (name, '\\') != NULL;
  wchar_t *w = wide (name);
  wchar_t *full = NULL;
  HMODULE lib = NULL;
  DWORD error = ERROR_INVALID_NAME;
  DWORD old_mode = 0;

  _nn_os_once (&dll_search_once, restrict_dll_search);
  if (w == NULL)
    {
      if (why != NULL && why_size > 0)
        snprintf (why, why_size, "%s: not a UTF-8 name", name);
      return NULL;
    }
  /* No dialog box for a damaged or missing file: the caller says why. */
  SetThreadErrorMode (SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old_mode);
  if (is_path)
    {
      /* The library's own folder serves its dependencies (it must be
       * named by a full path for that); a relative name is made full from
       * the current folder here, once, as the caller meant it. */
      DWORD n = GetFullPathNameW (w, 0, NULL, NULL);
      full = n > 0 ? malloc ((size_t) n * sizeof *full) : NULL;
      if (full != NULL && GetFullPathNameW (w, n, full, NULL) < n)
        {
          lib = LoadLibraryExW (full, NULL,
                                LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
          error = GetLastError ();
        }
    }
  else
    {
      /* the program's folder and the system's; never the current folder
       * or PATH */
      lib = LoadLibraryExW (w, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
      error = GetLastError ();
    }
  SetThreadErrorMode (old_mode, NULL);
  free (full);
  free (w);
  if (lib == NULL && why != NULL && why_size > 0)
    {
      char text[512];
      error_text (error, text, sizeof text);
      snprintf (why, why_size, "%s: %s (error %lu)", name, text, (unsigned long) error);
    }
  return (void *) lib;
}

void *
_nn_os_lib_symbol (void *lib, const char *symbol)
{
  return (void *) GetProcAddress ((HMODULE) lib, symbol);
}

void
_nn_os_lib_close (void *lib)
{
  FreeLibrary ((HMODULE) lib);
}

/* ---------------------------------------------------------------- threads */

static BOOL CALLBACK
once_cb (PINIT_ONCE once, PVOID param, PVOID *context)
{
  (void) once;
  (void) context;
  void (**fn) (void) = param;
  (*fn) ();
  return TRUE;
}

void
_nn_os_once (NnOsOnce *once, void (*fn) (void))
{
  InitOnceExecuteOnce ((PINIT_ONCE) once, once_cb, (PVOID) &fn, NULL);
}

void
_nn_os_mutex_lock (NnOsMutex *mutex)
{
  AcquireSRWLockExclusive ((PSRWLOCK) mutex);
}

void
_nn_os_mutex_unlock (NnOsMutex *mutex)
{
  ReleaseSRWLockExclusive ((PSRWLOCK) mutex);
}

bool
_nn_os_mutex_trylock (NnOsMutex *mutex)
{
  return TryAcquireSRWLockExclusive ((PSRWLOCK) mutex) != 0;
}

typedef struct
{
  void (*fn) (void *);
  void *arg;
} ThreadStart;

static unsigned __stdcall
thread_main (void *data)
{
  ThreadStart start = *(ThreadStart *) data;
  free (data);
  start.fn (start.arg);
  return 0;
}

bool
_nn_os_thread_start (void (*fn) (void *), void *arg)
{
  ThreadStart *start = malloc (sizeof *start);
  if (start == NULL)
    return false;
  start->fn = fn;
  start->arg = arg;
  /* _beginthreadex, not CreateThread: the C runtime's per-thread state is
   * set up for the thread (errno, locale). */
  uintptr_t thread = _beginthreadex (NULL, 0, thread_main, start, 0, NULL);
  if (thread == 0)
    {
      free (start);
      return false;
    }
  CloseHandle ((HANDLE) thread);
  return true;
}

/* WaitOnAddress where there is one (Windows 8 and later, and wine, which
 * builds it on futexes): no kernel object per word, and no call into the
 * kernel when the word has already changed. Windows 7 has none, so it is
 * looked up in kernelbase.dll at run time; without it one lock and
 * condition variable serve every word (a sleeper tests its word under the
 * lock). */
typedef BOOL (WINAPI *WaitOnAddressFunc) (volatile VOID *, PVOID, SIZE_T, DWORD);
typedef VOID (WINAPI *WakeByAddressFunc) (PVOID);

static struct
{
  INIT_ONCE once;
  WaitOnAddressFunc wait;
  WakeByAddressFunc wake_one;
  WakeByAddressFunc wake_all;
  SRWLOCK lock;
  CONDITION_VARIABLE cond;
} waits = { INIT_ONCE_STATIC_INIT, NULL, NULL, NULL, SRWLOCK_INIT, CONDITION_VARIABLE_INIT };

static BOOL CALLBACK
waits_init (PINIT_ONCE once, PVOID param, PVOID *context)
{
  (void) once;
  (void) param;
  (void) context;
  HMODULE kernelbase = GetModuleHandleW (L"kernelbase.dll");
  if (kernelbase == NULL)
    return TRUE;
  WaitOnAddressFunc wait = (WaitOnAddressFunc) (void (*) (void)) GetProcAddress (kernelbase, "WaitOnAddress");
  WakeByAddressFunc one = (WakeByAddressFunc) (void (*) (void)) GetProcAddress (kernelbase, "WakeByAddressSingle");
  WakeByAddressFunc all = (WakeByAddressFunc) (void (*) (void)) GetProcAddress (kernelbase, "WakeByAddressAll");
  if (wait != NULL && one != NULL && all != NULL)
    {
      waits.wait = wait;
      waits.wake_one = one;
      waits.wake_all = all;
    }
  return TRUE;
}

void
_nn_os_wait (const uint32_t *word, uint32_t expected)
{
  InitOnceExecuteOnce (&waits.once, waits_init, NULL, NULL);
  if (waits.wait != NULL)
    {
      waits.wait ((volatile VOID *) word, &expected, sizeof expected, INFINITE);
      return;
    }
  AcquireSRWLockExclusive (&waits.lock);
  if (__atomic_load_n (word, __ATOMIC_SEQ_CST) == expected)
    SleepConditionVariableSRW (&waits.cond, &waits.lock, INFINITE, 0);
  ReleaseSRWLockExclusive (&waits.lock);
}

void
_nn_os_wake (const uint32_t *word, int32_t count)
{
  InitOnceExecuteOnce (&waits.once, waits_init, NULL, NULL);
  if (waits.wait == NULL)
    {
      AcquireSRWLockExclusive (&waits.lock);
      ReleaseSRWLockExclusive (&waits.lock);
      WakeAllConditionVariable (&waits.cond);
      return;
    }
  if (count == INT32_MAX)
    {
      waits.wake_all ((PVOID) word);
      return;
    }
  for (int32_t i = 0; i < count; i++)
    waits.wake_one ((PVOID) word);
}

void
_nn_os_yield (void)
{
  SwitchToThread ();
}

int
_nn_os_available_processors (void)
{
  DWORD_PTR process = 0, system = 0;
  if (GetProcessAffinityMask (GetCurrentProcess (), &process, &system) && process != 0)
    {
      int n = 0;
      for (; process != 0; process &= process - 1)
        n++;
      return n;
    }
  SYSTEM_INFO si;
  GetSystemInfo (&si);
  return si.dwNumberOfProcessors > 0 ? (int) si.dwNumberOfProcessors : 1;
}

/* ---------------------------------------------------------------- memory */

/* Blocks this large start on a page. */
#define LARGE_BLOCK ((size_t) 4 << 20)
#define PAGE ((size_t) 4096)

void *
_nn_os_alloc_aligned (size_t *bytes)
{
  size_t size = *bytes;
  if (size >= LARGE_BLOCK && size <= SIZE_MAX - PAGE)
    {
      size = (size + PAGE - 1) & ~(PAGE - 1);
      void *p = _aligned_malloc (size, PAGE);
      if (p != NULL)
        *bytes = size;
      return p;
    }
  return _aligned_malloc (size, 64);
}

void
_nn_os_free_aligned (void *block)
{
  _aligned_free (block);
}

/* ---------------------------------------------------------------- the machine */

typedef LONG (WINAPI *RtlGetVersionFunc) (OSVERSIONINFOEXW *);

/* The marketing name of a Windows version, "" for one this file does not
 * know (then the caller writes major.minor). */
static const char *
windows_name (const OSVERSIONINFOEXW *v, bool *server)
{
  DWORD major = v->dwMajorVersion, minor = v->dwMinorVersion, build = v->dwBuildNumber;

  *server = v->wProductType != VER_NT_WORKSTATION && v->wProductType != 0;
  if (*server)
    {
      if (major == 10 && minor == 0)
        return build >= 26100 ? "2025" : build >= 20348 ? "2022" : build >= 17763 ? "2019" : "2016";
      if (major == 6)
        return minor == 3 ? "2012 R2" : minor == 2 ? "2012" : minor == 1 ? "2008 R2" : "2008";
      return "";
    }
  if (major == 10 && minor == 0)
    return build >= 22000 ? "11" : "10";   /* Windows 11 still says 10.0 */
  if (major == 6)
    return minor == 3 ? "8.1" : minor == 2 ? "8" : minor == 1 ? "7" : minor == 0 ? "Vista" : "";
  if (major == 5 && minor >= 1)
    return "XP";
  return "";
}

static void
read_os (NnSystemInfo *info)
{
  OSVERSIONINFOEXW v;
  HMODULE ntdll = GetModuleHandleW (L"ntdll.dll");
  bool server = false;

  snprintf (info->os_name, sizeof info->os_name, "Windows");

  /* GetVersionEx lies to programs without a manifest; RtlGetVersion does not. */
  memset (&v, 0, sizeof v);
  v.dwOSVersionInfoSize = sizeof v;
  RtlGetVersionFunc rtl_get_version
      = ntdll != NULL ? (RtlGetVersionFunc) (void (*) (void)) GetProcAddress (ntdll, "RtlGetVersion")
                      : NULL;
  if (rtl_get_version != NULL && rtl_get_version (&v) == 0)
    {
      const char *name = windows_name (&v, &server);
      if (server)
        snprintf (info->os_name, sizeof info->os_name, "Windows Server");
      if (name[0] != '\0')
        snprintf (info->os_version, sizeof info->os_version, "%s", name);
      else
        snprintf (info->os_version, sizeof info->os_version, "%lu.%lu",
                  (unsigned long) v.dwMajorVersion, (unsigned long) v.dwMinorVersion);
      snprintf (info->kernel, sizeof info->kernel, "%lu.%lu.%lu",
                (unsigned long) v.dwMajorVersion, (unsigned long) v.dwMinorVersion,
                (unsigned long) v.dwBuildNumber);
    }

  /* wine's ntdll says which wine it is; Windows' has no such export. */
  WineGetVersionFunc wine_get_version
      = ntdll != NULL
            ? (WineGetVersionFunc) (void (*) (void)) GetProcAddress (ntdll, "wine_get_version")
            : NULL;
  const char *wine = wine_get_version != NULL ? wine_get_version () : NULL;
  if (wine != NULL)
    snprintf (info->os_emulated_by, sizeof info->os_emulated_by, "wine %s", wine);
  else if (wine_get_version != NULL)
    snprintf (info->os_emulated_by, sizeof info->os_emulated_by, "wine");
}

static void
read_cpu (NnSystemInfo *info)
{
  HKEY key;
  if (RegOpenKeyExW (HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", 0,
                     KEY_READ, &key)
      == ERROR_SUCCESS)
    {
      wchar_t name[256];
      DWORD size = sizeof name - sizeof name[0];
      DWORD type = 0;
      if (RegQueryValueExW (key, L"ProcessorNameString", NULL, &type, (BYTE *) name, &size)
              == ERROR_SUCCESS
          && type == REG_SZ)
        {
          name[size / sizeof name[0]] = L'\0';
          char text[512];
          if (narrow (name, text, sizeof text))
            {
              /* the registry pads it with spaces on some machines */
              char *s = text;
              while (*s == ' ')
                s++;
              size_t n = strlen (s);
              while (n > 0 && s[n - 1] == ' ')
                s[--n] = '\0';
              snprintf (info->cpu_model, sizeof info->cpu_model, "%s", s);
            }
        }
      RegCloseKey (key);
    }

  SYSTEM_INFO si;
  GetSystemInfo (&si);
  info->cpu_threads = si.dwNumberOfProcessors > 0 ? (int32_t) si.dwNumberOfProcessors : 1;

  /* Physical cores: one RelationProcessorCore record per core. */
  DWORD length = 0;
  info->cpu_cores = info->cpu_threads;
  GetLogicalProcessorInformation (NULL, &length);
  if (length > 0)
    {
      SYSTEM_LOGICAL_PROCESSOR_INFORMATION *records = malloc (length);
      if (records != NULL && GetLogicalProcessorInformation (records, &length))
        {
          int cores = 0;
          for (DWORD i = 0; i < length / sizeof *records; i++)
            if (records[i].Relationship == RelationProcessorCore)
              cores++;
          if (cores > 0 && cores <= info->cpu_threads)
            info->cpu_cores = cores;
        }
      free (records);
    }
}

void
_nn_os_system_info (NnSystemInfo *info)
{
  MEMORYSTATUSEX m;

  read_os (info);
  read_cpu (info);
  m.dwLength = sizeof m;
  if (GlobalMemoryStatusEx (&m))
    info->ram_bytes = m.ullTotalPhys;
}

uint64_t
_nn_os_memory_available (const char **bound)
{
  MEMORYSTATUSEX m;
  m.dwLength = sizeof m;
  if (bound != NULL)
    *bound = NN_MESSAGE ("the memory available");
  return GlobalMemoryStatusEx (&m) ? m.ullAvailPhys : 0;
}
