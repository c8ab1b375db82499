/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-os.h: everything the engine asks of the operating system, in one place.
 *
 * Two implementations, os/nn-os-posix.c and os/nn-os-win32.c; meson builds
 * the one for the host. Paths and environment values are UTF-8 on every
 * system: on Windows the implementation converts them for the wide-character
 * API, so a user named 张伟 or a data folder with such a name works. The rest
 * of the engine has no OS conditionals; nn-file.c builds folders, path joins
 * and atomic files on top of these.
 */
#pragma once

#include "trainbench.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#ifdef _WIN32
#define NN_OS_NAME "Windows"                 /* for messages */
#define NN_OS_SEP "\\"                       /* the separator paths are built with */
#define NN_OS_CUDA_MODULE "trainbench-cuda.dll"
/* OpenBLAS builds by the names they ship under, the first looked for first
 * (nn-blas.c goes on to the next when one lacks the CPU's best kernels):
 * openblas.dll, OpenBLAS's own Windows builds and the installer's first
 * (ngsolve-openblas: no AVX-512 kernels, the faster on AVX2 CPUs); MSYS2's
 * libopenblas.dll; libscipy_openblas.dll, PyPI's scipy-openblas32 (its
 * names scipy_-prefixed), which the installer ships for AVX-512 CPUs. */
#define NN_OS_BLAS_LIBRARIES "openblas.dll", "libopenblas.dll", "libscipy_openblas.dll"
/* whether each is tried by its full path in the program's folder first */
#define NN_OS_BLAS_NEXT_TO_PROGRAM 1
#else
#include <pthread.h>
#define NN_OS_NAME "this system"
#define NN_OS_SEP "/"
#define NN_OS_CUDA_MODULE "libtrainbench-cuda.so"
#define NN_OS_BLAS_LIBRARIES "libopenblas.so.0", "libopenblasp.so.0", "libopenblas.so", \
                             "libblas.so.3"
#define NN_OS_BLAS_NEXT_TO_PROGRAM 0
#endif

/* ---------------------------------------------------------------- paths and files */

/* Whether `c` separates folders in a path: '/', and on Windows '\\' too. */
bool _nn_os_is_separator (char c);

/* How many leading bytes of `path` name a root that is never made or
 * removed: 1 for "/x", 3 for "C:\x", 2 for "C:x", the "\\server\share\" of
 * a UNC path; 0 for a relative path. */
size_t _nn_os_path_root (const char *path);

typedef enum
{
  NN_OS_MISSING, /* nothing there, or it cannot be looked at */
  NN_OS_FILE,    /* a regular file */
  NN_OS_FOLDER,
  NN_OS_OTHER,   /* a device, a pipe, a socket */
} NnOsKind;

/* What `path` is (links followed); its size in bytes into `size` (may be
 * NULL) for a file. NN_OS_MISSING sets errno: ENOENT for nothing there,
 * ELOOP for a loop of links, EACCES, ... */
NnOsKind _nn_os_path_kind (const char *path, uint64_t *size);

/* fopen by UTF-8 path; binary on Windows whatever the mode says. NULL with
 * errno set when it fails. Files opened for reading never stop another
 * process from replacing them (_nn_os_replace). */
FILE *_nn_os_fopen (const char *path, const char *mode);

/* Open an existing regular file for reading, never waiting: a FIFO, a
 * device or a socket behind the name (or behind a link to it, /dev/zero
 * named data.npz) is refused without being read, a FIFO without being
 * waited on (O_NONBLOCK, then fstat; on Windows GetFileType). Its size in
 * bytes goes to `size` (may be NULL). NULL when it fails, with errno set;
 * for something that is not a regular file errno is EINVAL and
 * *not_regular (may be NULL) says what it is ("a FIFO", "a character
 * device", "a folder"), else *not_regular is NULL. Binary, and never
 * stops another process from replacing the file. */
FILE *_nn_os_open_regular (const char *path, uint64_t *size, const char **not_regular);

/* Whether writing `path` means writing through to something that is not a
 * file: a character device (/dev/null, a terminal; on Windows NUL, CON and
 * the other device names) or a FIFO that something reads is opened for
 * writing into *out, to be written through and never replaced. Returns 0
 * with *out = NULL for a regular file, a folder or nothing there (the
 * caller replaces or creates the file); an errno value with *what saying
 * what it is for a target that is refused: a block device (a disk), a
 * socket, a FIFO that nothing reads (ENXIO). */
int _nn_os_open_write_through (const char *path, FILE **out, const char **what);

/* Whether `path` itself is a link, not followed: a symbolic link; on
 * Windows also a junction, and what wine shows of a Unix link. */
bool _nn_os_is_link (const char *path);

/* `path` with the links of its last component followed to what they name
 * (a link to a link to a file: the file's path; a dangling link: the path
 * it names), into out. 0, or an errno value: ELOOP for a loop, ENAMETOOLONG.
 * A path that is no link comes back as it is. */
int _nn_os_resolve_links (const char *path, char *out, size_t size);

/* A new file for writing, created only if nothing has that name (errno
 * EEXIST otherwise), not inherited by child processes. */
FILE *_nn_os_create_new (const char *path);

/* Make one folder; 0, or an errno value (EEXIST when something is there). */
int _nn_os_make_folder (const char *path);

/* The names in a folder (not "." and ".."), in no set order: *names (an
 * array of *count strings, each and the array freed with free ()). 0, or
 * an errno value (ENOTDIR, ENOENT, EACCES, ENOMEM) with *names NULL. */
int _nn_os_folder_list (const char *path, char ***names, size_t *count);

/* Remove a file; 0, or an errno value. */
int _nn_os_remove (const char *path);

/* Flush `f` and its data to the disk; 0, or an errno value. */
int _nn_os_sync_file (FILE *f);

/* Bytes free for this user on the file system that holds `path` (a
 * folder), into *bytes; 0, or an errno value. POSIX: statvfs's f_bavail
 * (without the blocks kept for root); Windows: GetDiskFreeSpaceExW's
 * bytes available to the caller (its quota included). */
int _nn_os_free_space (const char *path, uint64_t *bytes);

/* Put `from` in the place of `to` in one step, so a reader sees the old
 * file or the new one and never a part: rename on POSIX; on Windows
 * MoveFileExW with write-through, retried for a while when another process
 * holds `to` open or is replacing it at the same moment. 0, or an errno
 * value. */
int _nn_os_replace (const char *from, const char *to);

/* Put `from` at `to` in one step only if nothing has that name: 0, EEXIST
 * when something does (`from` stays), or another errno value. POSIX:
 * renameat2 with RENAME_NOREPLACE, or a hard link and an unlink where the
 * file system has no such rename; Windows: MoveFileExW without
 * MOVEFILE_REPLACE_EXISTING. */
int _nn_os_place_new (const char *from, const char *to);

/* An exclusive lock named by `path` (a lock file, made when missing), taken
 * without waiting: a handle, or NULL with *error = EBUSY when another
 * process or thread holds it (or another errno value when the file cannot
 * be made). The OS drops it when the holder dies, so a crash never leaves
 * it held. POSIX: flock on the file; Windows: the file opened unshared,
 * deleted on close. */
void *_nn_os_lock_try (const char *path, int *error);
/* Release a lock; its file goes. */
void _nn_os_lock_release (void *lock);

/* The identity of an open file (dev and inode; volume and file index on
 * Windows) into id; false when it cannot be read. */
bool _nn_os_file_id (FILE *f, uint64_t id[2]);
/* The identity of the file `path` names now (links followed). */
bool _nn_os_path_id (const char *path, uint64_t id[2]);

/* Make a replace in `folder` ("" for the current one) durable where the OS
 * needs a separate step for that (fsync of the folder on POSIX). Failures
 * are ignored: the data is already written. */
void _nn_os_sync_folder (const char *folder);

/* The full path of the running program; false (out = "") when unknown. */
bool _nn_os_program_path (char *out, size_t size);

/* ---------------------------------------------------------------- environment */

/* A variable's value as UTF-8. False when it is unset or does not fit
 * (out = "" then); true with "" for a variable set to nothing. */
bool _nn_os_getenv (const char *name, char *out, size_t size);

/* Set a variable (NULL removes it) for this process, for the C runtimes
 * loaded into it, and for programs it starts. On Windows the value also
 * reaches the UCRT's copy (which OpenBLAS reads) when the UCRT is already
 * loaded; nothing crosses between the runtimes but the call. */
bool _nn_os_setenv (const char *name, const char *value);

/* ---------------------------------------------------------------- folders of the user */

/* The user's home folder: $HOME or the password database; on Windows
 * %USERPROFILE%. "" when unknown. */
void _nn_os_home (char *out, size_t size);

/* Trainbench's own data folder: $XDG_DATA_HOME/trainbench (an absolute
 * XDG_DATA_HOME; ~/.local/share/trainbench without one). On Windows
 * %LOCALAPPDATA%\Trainbench, or an absolute %XDG_DATA_HOME%\trainbench as
 * GLib does there, so the app and the engine agree. */
void _nn_os_data_home (char *out, size_t size);

/* Under wine, the data folder of the Linux host's own Trainbench (what
 * _nn_os_data_home gives the Linux build there: $XDG_DATA_HOME/trainbench
 * or ~/.local/share/trainbench) as a path this Windows build can open,
 * through wine's mapping of the Unix file system. False natively, on any
 * OS, and where wine does not say where the host's home is. */
bool _nn_os_host_data_home (char *out, size_t size);

/* The system's folder of data sets (Debian's /usr/share/datasets), or NULL
 * when the system has none. */
const char *_nn_os_system_datasets (void);

/* ---------------------------------------------------------------- time and randomness */

/* Monotonic seconds from an arbitrary origin (clock_gettime,
 * QueryPerformanceCounter). Declared in nn-private.h as _nn_now. */

/* UTC broken-down time of `t`. */
void _nn_os_gmtime (time_t t, struct tm *out);

/* `size` random bytes from the OS; false when it has none to give. */
bool _nn_os_random (void *buffer, size_t size);

/* ---------------------------------------------------------------- dynamic libraries */

/* Load a library by name or path, NULL and a readable reason in `why` when
 * it cannot be loaded (dlerror; on Windows FormatMessageW's text with the
 * name). On Windows a bare name is searched only in the program's folder
 * and the system's, a full path also gives the library's own folder to its
 * dependencies, and the first call restricts the whole process's search
 * for libraries loaded by name the same way (SetDefaultDllDirectories:
 * never the current folder or PATH). */
void *_nn_os_lib_open (const char *name, char *why, size_t why_size);
void *_nn_os_lib_symbol (void *lib, const char *symbol);
void _nn_os_lib_close (void *lib);

/* ---------------------------------------------------------------- threads */

#ifdef _WIN32
typedef struct
{
  void *opaque; /* an INIT_ONCE */
} NnOsOnce;
typedef struct
{
  void *opaque; /* an SRWLOCK */
} NnOsMutex;
#define NN_OS_ONCE_INIT { 0 }
#define NN_OS_MUTEX_INIT { 0 }
#else
typedef pthread_once_t NnOsOnce;
typedef pthread_mutex_t NnOsMutex;
#define NN_OS_ONCE_INIT PTHREAD_ONCE_INIT
#define NN_OS_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#endif

/* Run `fn` once per `once`, however many threads ask at the same time; all
 * of them return after it has run. */
void _nn_os_once (NnOsOnce *once, void (*fn) (void));
void _nn_os_mutex_lock (NnOsMutex *mutex);
void _nn_os_mutex_unlock (NnOsMutex *mutex);
/* Take the lock if it is free, false at once otherwise. */
bool _nn_os_mutex_trylock (NnOsMutex *mutex);

/* Processors this process may run on (its affinity mask where the OS has
 * one), at least 1. */
int _nn_os_available_processors (void);

/* Start a thread running fn (arg) for the rest of the process: it is never
 * joined. False when the OS refuses one. */
bool _nn_os_thread_start (void (*fn) (void *), void *arg);

/* Sleep while *word holds `expected`, until _nn_os_wake; it may also return
 * early, so callers test the word again (a futex on Linux, WaitOnAddress on
 * Windows). */
void _nn_os_wait (const uint32_t *word, uint32_t expected);

/* Wake up to `count` threads sleeping on `word` (INT32_MAX: all). */
void _nn_os_wake (const uint32_t *word, int32_t count);

/* Give this processor to another runnable thread, if there is one. */
void _nn_os_yield (void);

/* ---------------------------------------------------------------- memory */

/* A block of at least *bytes on a 64-byte boundary; a large one starts on a
 * page (a 2 MiB huge page where the OS gives them on request) and *bytes
 * grows to what was taken. Not zeroed. NULL when out of memory. Free with
 * _nn_os_free_aligned. */
void *_nn_os_alloc_aligned (size_t *bytes);
void _nn_os_free_aligned (void *block);

/* ---------------------------------------------------------------- the machine */

/* The parts of `info` that come from the OS: os_name, os_version, kernel,
 * os_emulated_by, cpu_model, cpu_cores, cpu_threads and ram_bytes. What
 * cannot be read stays "" or 0. */
void _nn_os_system_info (NnSystemInfo *info);

/* Memory available for new allocations now without swapping, 0 when
 * unknown: MemAvailable, or on Linux less where the process's cgroup (v2
 * memory.max, v1 memory.limit_in_bytes, of its own group or a parent)
 * leaves less (a container's limit is often far below the machine's
 * memory); ullAvailPhys on Windows. `bound` (may be NULL) gets what set
 * the figure, in words. */
uint64_t _nn_os_memory_available (const char **bound);

#ifndef _WIN32
/* The memory a cgroup still lets this process have: the smallest of
 * limit - usage (the file cache it may drop counted as free) over its
 * group and the groups above it. `proc_cgroup` is the text of
 * /proc/self/cgroup, `root` the folder cgroups are mounted in
 * (/sys/fs/cgroup). False when no limit applies. Apart for tests. */
bool _nn_os_cgroup_available (const char *proc_cgroup, const char *root, uint64_t *out);
#endif
