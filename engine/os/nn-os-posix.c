/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-os-posix.c: the engine's OS layer (nn-os.h) on Linux and other POSIX
 * systems: files through open/rename/fsync, /proc and sysconf for the
 * machine, dlopen, pthreads, the XDG folders.
 */

#define _GNU_SOURCE

#include "nn-os.h"
#include "nn-private.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* ---------------------------------------------------------------- paths and files */

bool
_nn_os_is_separator (char c)
{
  return c == '/';
}

size_t
_nn_os_path_root (const char *path)
{
  return path[0] == '/' ? 1 : 0;
}

NnOsKind
_nn_os_path_kind (const char *path, uint64_t *size)
{
  struct stat st;

  if (size != NULL)
    *size = 0;
  if (stat (path, &st) != 0)
    return NN_OS_MISSING;   /* errno says why: ENOENT, ELOOP, EACCES */
  if (S_ISDIR (st.st_mode))
    return NN_OS_FOLDER;
  if (!S_ISREG (st.st_mode))
    return NN_OS_OTHER;
  if (size != NULL)
    *size = (uint64_t) st.st_size;
  return NN_OS_FILE;
}

bool
_nn_os_is_link (const char *path)
{
  struct stat st;

  return lstat (path, &st) == 0 && S_ISLNK (st.st_mode);
}

FILE *
_nn_os_fopen (const char *path, const char *mode)
{
  return fopen (path, mode);
}

/* What a stat mode is, in words, for something that is not a regular file. */
static const char *
mode_name (mode_t mode)
{
  if (S_ISDIR (mode))
    return NN_MESSAGE ("a folder");
  if (S_ISFIFO (mode))
    return NN_MESSAGE ("a FIFO");
  if (S_ISCHR (mode))
    return NN_MESSAGE ("a character device");
  if (S_ISBLK (mode))
    return NN_MESSAGE ("a block device");
  if (S_ISSOCK (mode))
    return NN_MESSAGE ("a socket");
  return NN_MESSAGE ("not a regular file");
}

FILE *
_nn_os_open_regular (const char *path, uint64_t *size, const char **not_regular)
{
  struct stat st;

  if (not_regular != NULL)
    *not_regular = NULL;
  /* Looked at first, so that a device is never even opened (opening one
   * can have effects of its own), then checked again on what was opened. */
  if (stat (path, &st) != 0)
    return NULL;
  if (!S_ISREG (st.st_mode))
    {
      if (not_regular != NULL)
        *not_regular = mode_name (st.st_mode);
      errno = EINVAL;
      return NULL;
    }
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      int e = errno;
      if (not_regular != NULL && S_ISREG (st.st_mode) == 0)
        *not_regular = mode_name (st.st_mode);
      close (fd);
      errno = not_regular != NULL && *not_regular != NULL ? EINVAL : e;
      return NULL;
    }
  int flags = fcntl (fd, F_GETFL);
  if (flags != -1)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  FILE *f = fdopen (fd, "rb");
  if (f == NULL)
    {
      int e = errno;
      close (fd);
      errno = e;
      return NULL;
    }
  if (size != NULL)
    *size = (uint64_t) st.st_size;
  return f;
}

int
_nn_os_open_write_through (const char *path, FILE **out, const char **what)
{
  struct stat st;

  *out = NULL;
  *what = NULL;
  if (stat (path, &st) != 0 || S_ISREG (st.st_mode) || S_ISDIR (st.st_mode))
    return 0;
  if (!S_ISCHR (st.st_mode) && !S_ISFIFO (st.st_mode))
    {
      /* a disk, a socket: nothing a result or weights are written into */
      *what = mode_name (st.st_mode);
      return S_ISBLK (st.st_mode) ? EPERM : EINVAL;
    }
  /* O_NONBLOCK: a FIFO that nothing reads fails at once (ENXIO) instead of
   * waiting for a reader */
  int fd = open (path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      *what = e == ENXIO && S_ISFIFO (st.st_mode) ? NN_MESSAGE ("a FIFO that nothing reads")
                                                  : mode_name (st.st_mode);
      return e;
    }
  if (fstat (fd, &st) != 0 || (!S_ISCHR (st.st_mode) && !S_ISFIFO (st.st_mode)))
    {
      /* replaced by a file since: write that the usual way */
      close (fd);
      return 0;
    }
  int flags = fcntl (fd, F_GETFL);
  if (flags != -1)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  FILE *f = fdopen (fd, "wb");
  if (f == NULL)
    {
      int e = errno;
      close (fd);
      *what = mode_name (st.st_mode);
      return e;
    }
  *out = f;
  return 0;
}

int
_nn_os_resolve_links (const char *path, char *out, size_t size)
{
  char cur[4096], target[4096];
  size_t n = strlen (path);

  if (n >= sizeof cur || n >= size)
    return ENAMETOOLONG;
  memcpy (cur, path, n + 1);
  /* the kernel's own limit on links followed in one lookup */
  for (int hops = 0; hops < 40; hops++)
    {
      struct stat st;
      if (lstat (cur, &st) != 0 || !S_ISLNK (st.st_mode))
        {
          if (strlen (cur) >= size)
            return ENAMETOOLONG;
          memcpy (out, cur, strlen (cur) + 1);
          return 0;
        }
      ssize_t len = readlink (cur, target, sizeof target - 1);
      if (len < 0)
        return errno;
      if ((size_t) len >= sizeof target - 1)
        return ENAMETOOLONG;
      target[len] = '\0';
      if (target[0] == '/')
        memcpy (cur, target, (size_t) len + 1);
      else
        {
          /* relative to the link's own folder */
          char *slash = strrchr (cur, '/');
          size_t keep = slash != NULL ? (size_t) (slash - cur) + 1 : 0;
          if (keep + (size_t) len + 1 > sizeof cur)
            return ENAMETOOLONG;
          memmove (cur + keep, target, (size_t) len + 1);
        }
    }
  return ELOOP;
}

FILE *
_nn_os_create_new (const char *path)
{
  /* 0666 so the umask decides, as for any file */
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    return NULL;
  FILE *f = fdopen (fd, "wb");
  if (f == NULL)
    {
      int e = errno;
      close (fd);
      remove (path);
      errno = e;
    }
  return f;
}

int
_nn_os_make_folder (const char *path)
{
  return mkdir (path, 0777) == 0 ? 0 : errno;
}

/* Add a copy of `name` to a growing list; false when memory ran out. */
static bool
names_add (char ***names, size_t *count, size_t *cap, const char *name)
{
  if (*count == *cap)
    {
      size_t cap2 = *cap > 0 ? *cap * 2 : 16;
      char **grown = realloc (*names, cap2 * sizeof *grown);
      if (grown == NULL)
        return false;
      *names = grown;
      *cap = cap2;
    }
  char *copy = strdup (name);
  if (copy == NULL)
    return false;
  (*names)[(*count)++] = copy;
  return true;
}

static void
names_free (char **names, size_t count)
{
  for (size_t i = 0; i < count; i++)
    free (names[i]);
  free (names);
}

int
_nn_os_folder_list (const char *path, char ***names, size_t *count)
{
  size_t cap = 0;
  struct dirent *entry;
  DIR *dir;

  *names = NULL;
  *count = 0;
  dir = opendir (path);
  if (dir == NULL)
    return errno;
  for (;;)
    {
      errno = 0;
      entry = readdir (dir);
      if (entry == NULL)
        break;
      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      if (!names_add (names, count, &cap, entry->d_name))
        {
          errno = ENOMEM;
          break;
        }
    }
  int failed = errno;
  closedir (dir);
  if (failed != 0)
    {
      names_free (*names, *count);
      *names = NULL;
      *count = 0;
    }
  return failed;
}

int
_nn_os_remove (const char *path)
{
  return remove (path) == 0 ? 0 : errno;
}

int
_nn_os_sync_file (FILE *f)
{
  if (fflush (f) != 0)
    return errno;
  return fsync (fileno (f)) == 0 ? 0 : errno;
}

int
_nn_os_free_space (const char *path, uint64_t *bytes)
{
  struct statvfs st;

  if (statvfs (path, &st) != 0)
    return errno;
  *bytes = (uint64_t) st.f_bavail * (uint64_t) st.f_frsize;
  return 0;
}

int
_nn_os_replace (const char *from, const char *to)
{
  return rename (from, to) == 0 ? 0 : errno;
}

int
_nn_os_place_new (const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
  if (renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return 0;
  /* EINVAL: a file system without it (NFS, some FUSE ones); ENOSYS: an
   * old kernel */
  if (errno != EINVAL && errno != ENOSYS)
    return errno;
#endif
  /* a second name for the file, made only if `to` is free, then the first
   * name goes */
  if (link (from, to) != 0)
    return errno;
  unlink (from);
  return 0;
}

typedef struct
{
  int fd;
  char path[4096];
} PosixLock;

void *
_nn_os_lock_try (const char *path, int *error)
{
  PosixLock *lock = calloc (1, sizeof *lock);
  if (lock == NULL || strlen (path) >= sizeof lock->path)
    {
      free (lock);
      *error = lock == NULL ? ENOMEM : ENAMETOOLONG;
      return NULL;
    }
  snprintf (lock->path, sizeof lock->path, "%s", path);
  /* The holder removes the file when it lets go; one who opened it just
   * before that holds a lock on a file no longer there, so the name is
   * checked to still be the file locked, else taken again. */
  for (int attempt = 0; attempt < 100; attempt++)
    {
      struct stat held, named;
      int fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
      if (fd < 0)
        {
          *error = errno;
          free (lock);
          return NULL;
        }
      if (flock (fd, LOCK_EX | LOCK_NB) != 0)
        {
          int e = errno;
          close (fd);
          *error = e == EWOULDBLOCK ? EBUSY : e;
          free (lock);
          return NULL;
        }
      if (fstat (fd, &held) == 0 && stat (path, &named) == 0 && held.st_dev == named.st_dev
          && held.st_ino == named.st_ino)
        {
          lock->fd = fd;
          return lock;
        }
      close (fd);
    }
  *error = EBUSY;
  free (lock);
  return NULL;
}

void
_nn_os_lock_release (void *handle)
{
  PosixLock *lock = handle;
  if (lock == NULL)
    return;
  /* removed while still held, so nobody locks the old file after this */
  unlink (lock->path);
  close (lock->fd);
  free (lock);
}

bool
_nn_os_file_id (FILE *f, uint64_t id[2])
{
  struct stat st;
  if (fstat (fileno (f), &st) != 0)
    return false;
  id[0] = (uint64_t) st.st_dev;
  id[1] = (uint64_t) st.st_ino;
  return true;
}

bool
_nn_os_path_id (const char *path, uint64_t id[2])
{
  struct stat st;
  if (stat (path, &st) != 0)
    return false;
  id[0] = (uint64_t) st.st_dev;
  id[1] = (uint64_t) st.st_ino;
  return true;
}

void
_nn_os_sync_folder (const char *folder)
{
  int fd = open (folder[0] != '\0' ? folder : ".", O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

bool
_nn_os_program_path (char *out, size_t size)
{
  if (size == 0)
    return false;
  ssize_t n = readlink ("/proc/self/exe", out, size - 1);
  if (n <= 0 || (size_t) n >= size - 1)
    {
      out[0] = '\0';
      return false;
    }
  out[n] = '\0';
  return true;
}

/* ---------------------------------------------------------------- environment */

bool
_nn_os_getenv (const char *name, char *out, size_t size)
{
  const char *value = getenv (name);
  if (size > 0)
    out[0] = '\0';
  if (value == NULL || strlen (value) >= size)
    return false;
  memcpy (out, value, strlen (value) + 1);
  return true;
}

bool
_nn_os_setenv (const char *name, const char *value)
{
  return (value != NULL ? setenv (name, value, 1) : unsetenv (name)) == 0;
}

/* ---------------------------------------------------------------- folders of the user */

void
_nn_os_home (char *out, size_t size)
{
  const char *home = getenv ("HOME");
  if (home == NULL || home[0] == '\0')
    {
      struct passwd *pw = getpwuid (getuid ());
      home = pw != NULL && pw->pw_dir != NULL ? pw->pw_dir : "";
    }
  snprintf (out, size, "%s", home);
}

void
_nn_os_data_home (char *out, size_t size)
{
  char home[4096];

  /* The XDG spec says a relative XDG_DATA_HOME is invalid and to be ignored. */
  const char *xdg = getenv ("XDG_DATA_HOME");
  if (xdg != NULL && xdg[0] == '/')
    {
      snprintf (out, size, "%s/trainbench", xdg);
      return;
    }
  _nn_os_home (home, sizeof home);
  snprintf (out, size, "%s/.local/share/trainbench", home[0] != '\0' ? home : ".");
}

bool
_nn_os_host_data_home (char *out, size_t size)
{
  /* this build is the host's own */
  if (size > 0)
    out[0] = '\0';
  return false;
}

const char *
_nn_os_system_datasets (void)
{
  return "/usr/share/datasets";
}

/* ---------------------------------------------------------------- time and randomness */

double
_nn_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

void
_nn_os_gmtime (time_t t, struct tm *out)
{
  if (gmtime_r (&t, out) == NULL)
    memset (out, 0, sizeof *out);
}

bool
_nn_os_random (void *buffer, size_t size)
{
  uint8_t *p = buffer;
  while (size > 0)
    {
      ssize_t got = getrandom (p, size, GRND_NONBLOCK);
      if (got <= 0)
        return false;
      p += got;
      size -= (size_t) got;
    }
  return true;
}

/* ---------------------------------------------------------------- dynamic libraries */

void *
_nn_os_lib_open (const char *name, char *why, size_t why_size)
{
  void *lib = dlopen (name, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL && why != NULL && why_size > 0)
    {
      const char *e = dlerror ();
      snprintf (why, why_size, "%s", e != NULL ? e : "dlopen failed");
    }
  return lib;
}

void *
_nn_os_lib_symbol (void *lib, const char *symbol)
{
  return dlsym (lib, symbol);
}

void
_nn_os_lib_close (void *lib)
{
  dlclose (lib);
}

/* ---------------------------------------------------------------- threads */

void
_nn_os_once (NnOsOnce *once, void (*fn) (void))
{
  pthread_once (once, fn);
}

void
_nn_os_mutex_lock (NnOsMutex *mutex)
{
  pthread_mutex_lock (mutex);
}

void
_nn_os_mutex_unlock (NnOsMutex *mutex)
{
  pthread_mutex_unlock (mutex);
}

bool
_nn_os_mutex_trylock (NnOsMutex *mutex)
{
  return pthread_mutex_trylock (mutex) == 0;
}

int
_nn_os_available_processors (void)
{
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return CPU_COUNT (&set);
#endif
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int) n : 1;
}

typedef struct
{
  void (*fn) (void *);
  void *arg;
} ThreadStart;

static void *
thread_main (void *data)
{
  ThreadStart start = *(ThreadStart *) data;
  free (data);
  start.fn (start.arg);
  return NULL;
}

bool
_nn_os_thread_start (void (*fn) (void *), void *arg)
{
  ThreadStart *start = malloc (sizeof *start);
  pthread_attr_t attr;
  pthread_t thread;
  if (start == NULL)
    return false;
  start->fn = fn;
  start->arg = arg;
  bool ok = pthread_attr_init (&attr) == 0;
  if (ok)
    {
      pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
      ok = pthread_create (&thread, &attr, thread_main, start) == 0;
      pthread_attr_destroy (&attr);
    }
  if (!ok)
    free (start);
  return ok;
}

#ifdef __linux__
/* The futex itself: no lock, no system call on the way in when the word has
 * already changed. */
void
_nn_os_wait (const uint32_t *word, uint32_t expected)
{
  syscall (SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void
_nn_os_wake (const uint32_t *word, int32_t count)
{
  syscall (SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}
#else
/* Elsewhere one lock and condition for every word: waking is rare next to
 * the work between wakes, and a sleeper tests its word under the lock. */
static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cond = PTHREAD_COND_INITIALIZER;

void
_nn_os_wait (const uint32_t *word, uint32_t expected)
{
  pthread_mutex_lock (&wait_lock);
  if (__atomic_load_n (word, __ATOMIC_SEQ_CST) == expected)
    pthread_cond_wait (&wait_cond, &wait_lock);
  pthread_mutex_unlock (&wait_lock);
}

void
_nn_os_wake (const uint32_t *word, int32_t count)
{
  (void) word;
  (void) count;
  pthread_mutex_lock (&wait_lock);
  pthread_cond_broadcast (&wait_cond);
  pthread_mutex_unlock (&wait_lock);
}
#endif

void
_nn_os_yield (void)
{
  sched_yield ();
}

/* ---------------------------------------------------------------- memory */

/* Blocks of at least HUGE_MIN bytes (the data set, cnn's activations,
 * mlp-wide's parameters) start on a 2 MiB boundary and ask the kernel for
 * transparent huge pages, which Debian and Ubuntu give only on request
 * (madvise mode): with 4 KiB pages a batch gathered from 47 MB of images
 * and every pass over cnn's 37 MB activations miss the TLB page after
 * page. The batch gather is the clearest case: 12.4 -> 8.8 us for
 * mlp-small, 130 -> 59 us for cnn (2-core development machine, with the
 * day's other changes; bench/results/local2core-cpu-ops-2026-11-30.md). */
#define HUGE_PAGE ((size_t) 2 << 20)
#define HUGE_MIN ((size_t) 4 << 20)

void *
_nn_os_alloc_aligned (size_t *bytes)
{
  void *p = NULL;
  size_t size = *bytes;

#if defined(MADV_HUGEPAGE)
  if (size >= HUGE_MIN && size <= SIZE_MAX - HUGE_PAGE)
    {
      size = (size + HUGE_PAGE - 1) & ~(size_t) (HUGE_PAGE - 1);
      if (posix_memalign (&p, HUGE_PAGE, size) != 0)
        return NULL;
      madvise (p, size, MADV_HUGEPAGE);
      *bytes = size;
      return p;
    }
#endif
  if (posix_memalign (&p, 64, size) != 0)
    return NULL;
  return p;
}

void
_nn_os_free_aligned (void *block)
{
  free (block);
}

/* ---------------------------------------------------------------- the machine */

/* Strip leading and trailing white space in place; returns the start. */
static char *
strip (char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  size_t n = strlen (s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
  return s;
}

/* A value of os-release, unquoted; false when the key is absent. */
static bool
os_release_value (const char *text, const char *key, char *out, size_t size)
{
  size_t klen = strlen (key);
  const char *line = text;
  while (line != NULL && *line != '\0')
    {
      if (strncmp (line, key, klen) == 0 && line[klen] == '=')
        {
          const char *v = line + klen + 1;
          const char *end = strchr (v, '\n');
          size_t n = end != NULL ? (size_t) (end - v) : strlen (v);
          if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
            {
              v++;
              n -= 2;
            }
          if (n >= size)
            n = size - 1;
          memcpy (out, v, n);
          out[n] = '\0';
          return true;
        }
      line = strchr (line, '\n');
      if (line != NULL)
        line++;
    }
  return false;
}

static void
read_os (NnSystemInfo *info)
{
  char text[4096];
  FILE *f = fopen ("/etc/os-release", "r");
  if (f == NULL)
    f = fopen ("/usr/lib/os-release", "r");
  if (f != NULL)
    {
      size_t n = fread (text, 1, sizeof text - 1, f);
      text[n] = '\0';
      fclose (f);
      if (!os_release_value (text, "NAME", info->os_name, sizeof info->os_name))
        snprintf (info->os_name, sizeof info->os_name, "Linux");
      if (!os_release_value (text, "VERSION", info->os_version, sizeof info->os_version))
        os_release_value (text, "VERSION_ID", info->os_version, sizeof info->os_version);
    }

  struct utsname u;
  if (uname (&u) == 0)
    {
      snprintf (info->kernel, sizeof info->kernel, "%s", u.release);
      if (info->os_name[0] == '\0')
        snprintf (info->os_name, sizeof info->os_name, "%s", u.sysname);
    }
}

static void
read_cpu (NnSystemInfo *info)
{
  /* Physical cores: distinct (physical id, core id) pairs; (4096) pairs. */
  enum { MAX_PAIRS = 4096 };
  static long pairs[MAX_PAIRS][2];
  int npairs = 0;
  long physical = 0, core = -1;
  char line[1024];

  FILE *f = fopen ("/proc/cpuinfo", "r");
  if (f != NULL)
    {
      while (fgets (line, sizeof line, f) != NULL)
        {
          char *colon = strchr (line, ':');
          if (colon == NULL)
            {
              /* A blank line ends one processor's block. */
              if (core >= 0 && npairs < MAX_PAIRS)
                {
                  bool seen = false;
                  for (int i = 0; i < npairs && !seen; i++)
                    seen = pairs[i][0] == physical && pairs[i][1] == core;
                  if (!seen)
                    {
                      pairs[npairs][0] = physical;
                      pairs[npairs][1] = core;
                      npairs++;
                    }
                }
              physical = 0;
              core = -1;
              continue;
            }
          *colon = '\0';
          char *key = strip (line);
          char *value = strip (colon + 1);
          if (info->cpu_model[0] == '\0'
              && (strcmp (key, "model name") == 0 || strcmp (key, "Model") == 0
                  || strcmp (key, "cpu model") == 0 || strcmp (key, "Processor") == 0))
            snprintf (info->cpu_model, sizeof info->cpu_model, "%s", value);
          else if (strcmp (key, "physical id") == 0)
            physical = strtol (value, NULL, 10);
          else if (strcmp (key, "core id") == 0)
            core = strtol (value, NULL, 10);
        }
      fclose (f);
      if (core >= 0 && npairs < MAX_PAIRS)
        {
          bool seen = false;
          for (int i = 0; i < npairs && !seen; i++)
            seen = pairs[i][0] == physical && pairs[i][1] == core;
          if (!seen)
            npairs++;
        }
    }

  long logical = sysconf (_SC_NPROCESSORS_ONLN);
  info->cpu_threads = logical > 0 ? (int32_t) logical : 1;
  info->cpu_cores = npairs > 0 && npairs <= info->cpu_threads ? npairs : info->cpu_threads;
}

/* A "Key: N kB" line of /proc/meminfo in bytes, 0 when absent. */
static uint64_t
meminfo_bytes (const char *key)
{
  FILE *f = fopen ("/proc/meminfo", "r");
  char line[256];
  size_t klen = strlen (key);
  uint64_t bytes = 0;

  if (f == NULL)
    return 0;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, key, klen) == 0 && line[klen] == ':')
      {
        unsigned long long kib;
        if (sscanf (line + klen + 1, " %llu kB", &kib) == 1)
          bytes = (uint64_t) kib * 1024;
        break;
      }
  fclose (f);
  return bytes;
}

static void
read_ram (NnSystemInfo *info)
{
  long pages = sysconf (_SC_PHYS_PAGES);
  long page = sysconf (_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    info->ram_bytes = (uint64_t) pages * (uint64_t) page;
  else
    info->ram_bytes = meminfo_bytes ("MemTotal");
}

void
_nn_os_system_info (NnSystemInfo *info)
{
  read_os (info);
  read_cpu (info);
  read_ram (info);
  info->os_emulated_by[0] = '\0';
}

/* The first number in a file, false when there is none ("max" is none). */
static bool
read_number (const char *path, uint64_t *out)
{
  char text[64];
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return false;
  size_t n = fread (text, 1, sizeof text - 1, f);
  fclose (f);
  text[n] = '\0';
  char *end;
  errno = 0;
  unsigned long long v = strtoull (text, &end, 10);
  if (end == text || errno != 0)
    return false;
  *out = (uint64_t) v;
  return true;
}

/* A "key N" line of a memory.stat file, 0 when absent. */
static uint64_t
stat_value (const char *path, const char *key)
{
  char line[256];
  size_t klen = strlen (key);
  uint64_t v = 0;
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return 0;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, key, klen) == 0 && line[klen] == ' ')
      {
        v = strtoull (line + klen + 1, NULL, 10);
        break;
      }
  fclose (f);
  return v;
}

/* What the group at `dir` and those above it, up to `top`, still allow:
 * the smallest limit - usage + inactive file cache. */
static bool
group_available (char *dir, size_t top, const char *limit_name, const char *usage_name,
                 const char *cache_key, uint64_t *out)
{
  bool found = false;
  char path[4200];

  for (;;)
    {
      uint64_t limit = 0, usage = 0;
      snprintf (path, sizeof path, "%s/%s", dir, limit_name);
      /* v1 says "no limit" with a huge number near 2^63 */
      if (read_number (path, &limit) && limit < ((uint64_t) 1 << 62))
        {
          snprintf (path, sizeof path, "%s/%s", dir, usage_name);
          if (!read_number (path, &usage))
            usage = 0;
          snprintf (path, sizeof path, "%s/memory.stat", dir);
          uint64_t cache = stat_value (path, cache_key);
          uint64_t used = usage > cache ? usage - cache : 0;
          uint64_t left = limit > used ? limit - used : 0;
          if (!found || left < *out)
            *out = left;
          found = true;
        }
      char *slash = strrchr (dir, '/');
      if (slash == NULL || (size_t) (slash - dir) < top)
        break;
      *slash = '\0';
    }
  return found;
}

bool
_nn_os_cgroup_available (const char *proc_cgroup, const char *root, uint64_t *out)
{
  bool found = false;
  uint64_t best = 0;

  for (const char *line = proc_cgroup; line != NULL && *line != '\0';)
    {
      /* "ID:CONTROLLERS:PATH": v2 is "0::/path", v1 names "memory" */
      const char *end = strchr (line, '\n');
      size_t len = end != NULL ? (size_t) (end - line) : strlen (line);
      char entry[4096];
      snprintf (entry, sizeof entry, "%.*s", (int) (len < sizeof entry ? len : sizeof entry - 1),
                line);
      line = end != NULL ? end + 1 : NULL;

      char *c1 = strchr (entry, ':');
      char *c2 = c1 != NULL ? strchr (c1 + 1, ':') : NULL;
      if (c2 == NULL)
        continue;
      *c1 = '\0';
      *c2 = '\0';
      const char *controllers = c1 + 1, *group = c2 + 1;
      bool v2 = strcmp (entry, "0") == 0 && controllers[0] == '\0';
      bool v1 = false;
      for (const char *p = controllers; *p != '\0';)
        {
          size_t n = strcspn (p, ",");
          v1 = v1 || (n == 6 && strncmp (p, "memory", 6) == 0);
          p += n + (p[n] == ',');
        }
      if (!v1 && !v2)
        continue;

      /* The group's folder; inside a container whose namespace hides the
       * path, the mount's root is the group itself. */
      char base[4096], dir[8400];
      snprintf (base, sizeof base, "%s%s", root, v1 ? "/memory" : "");
      if (v2 && _nn_os_path_kind (base, NULL) == NN_OS_FOLDER)
        {
          char probe[4200];
          snprintf (probe, sizeof probe, "%s/cgroup.controllers", base);
          if (_nn_os_path_kind (probe, NULL) != NN_OS_FILE)
            {
              /* a hybrid system: v2 mounted at unified/ */
              snprintf (base, sizeof base, "%s/unified", root);
            }
        }
      snprintf (dir, sizeof dir, "%s%s", base, strcmp (group, "/") == 0 ? "" : group);
      if (_nn_os_path_kind (dir, NULL) != NN_OS_FOLDER)
        snprintf (dir, sizeof dir, "%s", base);
      while (strlen (dir) > strlen (base) && dir[strlen (dir) - 1] == '/')
        dir[strlen (dir) - 1] = '\0';
      uint64_t left = 0;
      bool limited = v2 ? group_available (dir, strlen (base), "memory.max", "memory.current",
                                           "inactive_file", &left)
                        : group_available (dir, strlen (base), "memory.limit_in_bytes",
                                           "memory.usage_in_bytes", "total_inactive_file", &left);
      if (limited && (!found || left < best))
        {
          best = left;
          found = true;
        }
    }
  if (found)
    *out = best;
  return found;
}

uint64_t
_nn_os_memory_available (const char **bound)
{
  /* MemAvailable counts the page cache the kernel can drop; free pages
   * alone (before Linux 3.14) understate it. */
  uint64_t bytes = meminfo_bytes ("MemAvailable");
#ifdef _SC_AVPHYS_PAGES
  if (bytes == 0)
    {
      long pages = sysconf (_SC_AVPHYS_PAGES);
      long page = sysconf (_SC_PAGESIZE);
      if (pages > 0 && page > 0)
        bytes = (uint64_t) pages * (uint64_t) page;
    }
#endif
  if (bound != NULL)
    *bound = NN_MESSAGE ("the memory available");

  /* a container's limit, often far below what the machine has free */
  char text[8192];
  FILE *f = fopen ("/proc/self/cgroup", "r");
  if (f != NULL)
    {
      size_t n = fread (text, 1, sizeof text - 1, f);
      fclose (f);
      text[n] = '\0';
      uint64_t left = 0;
      if (_nn_os_cgroup_available (text, "/sys/fs/cgroup", &left) && (bytes == 0 || left < bytes))
        {
          bytes = left;
          if (bound != NULL)
            *bound = NN_MESSAGE ("the memory its cgroup (container) allows");
        }
    }
  return bytes;
}
