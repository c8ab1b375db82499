/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-api.cc: finds and loads the NVIDIA driver, cuBLAS and cuDNN at
 * run time (nn-cuda-api.h), on Linux by the dynamic linker's path and on
 * Windows from the folders where NVIDIA's installers and Python wheels put
 * them.
 */

#include "nn-cuda-api.h"

#include <mutex>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <ctype.h>
#include <windows.h>
#else
#include <dlfcn.h>
#include <link.h>
#endif

namespace nn_cu
{
#define NN_CU_DEFINE(name) decltype (&::name) name;
NN_CU_DRIVER_FUNCTIONS (NN_CU_DEFINE)
NN_CU_CUBLAS_FUNCTIONS (NN_CU_DEFINE)
NN_CU_CUDNN_FUNCTIONS (NN_CU_DEFINE)
#undef NN_CU_DEFINE
} // namespace nn_cu

#define NN_CU_STR_(x) #x
#define NN_CU_STR(x) NN_CU_STR_ (x) /* after macro expansion: cublasCreate_v2 */

/* The libraries, newest first. cuBLAS 12 serves as well as 13 (the same C
 * API; the wheels PyTorch installs on Windows carry cuBLAS 12); each needs
 * a driver that runs the module's CUDA 13 kernels anyway. */
#ifdef _WIN32
static const char *const driver_names[] = { "nvcuda.dll", NULL };
static const char *const cublas_names[] = { "cublas64_13.dll", "cublas64_12.dll", NULL };
static const char *const cudnn_names[] = { "cudnn64_9.dll", NULL };
#else
static const char *const driver_names[] = { "libcuda.so.1", NULL };
static const char *const cublas_names[] = { "libcublas.so.13", "libcublas.so.12", NULL };
static const char *const cudnn_names[] = { "libcudnn.so.9", NULL };
#endif

typedef struct
{
  NnCuState state;
  char reason[1024];
  char libraries[1024];
} Loaded;

static Loaded loaded;
static std::once_flag load_once;

/* ---------------------------------------------------------------- the OS */

#ifdef _WIN32

typedef HMODULE Library;

/* Folders a library may be in, each tried by the library's full path:
 * next to the program, CUDA_PATH's bin (bin\x64 from CUDA 13 on), the bin
 * folders of NVIDIA's Python wheels (nvidia-cublas-cu12, nvidia-cudnn-cu12
 * and their CUDA 13 successors) in the Python installs on PATH and in the
 * user's own Python folders; then System32 (the driver's place); then the
 * folders PATH names by a full path (from `path_from` on). Never the
 * current folder, nor a relative folder on PATH: a file planted in the
 * folder a program happens to run in is not loaded. */
#define MAX_DIRS 64
typedef struct
{
  int count;
  int path_from;
  char dir[MAX_DIRS][MAX_PATH];
} Dirs;

/* Whether `dir` is named in full ("C:\\...", "\\\\server\\..."): a
 * relative one ("." or "bin" on PATH, a relative CUDA_PATH) is a folder of
 * wherever the program runs. */
static bool
full_folder (const char *dir)
{
  return (isalpha ((unsigned char) dir[0]) && dir[1] == ':' && (dir[2] == '\\' || dir[2] == '/'))
         || (dir[0] == '\\' && dir[1] == '\\');
}

static void
dirs_add (Dirs *d, const char *dir)
{
  if (d->count == MAX_DIRS || !full_folder (dir) || strlen (dir) >= MAX_PATH)
    return;
  for (int i = 0; i < d->count; i++)
    if (_stricmp (d->dir[i], dir) == 0)
      return;
  DWORD attr = GetFileAttributesA (dir);
  if (attr == INVALID_FILE_ATTRIBUTES || !(attr & FILE_ATTRIBUTE_DIRECTORY))
    return;
  snprintf (d->dir[d->count++], MAX_PATH, "%s", dir);
}

/* The wheels' folders under one site-packages folder. */
static void
dirs_add_wheels (Dirs *d, const char *site)
{
  static const char *const subdirs[] = {
    "nvidia\\cublas\\bin", "nvidia\\cudnn\\bin", "nvidia\\cu13\\bin", "nvidia\\cu12\\bin",
  };
  char path[MAX_PATH];
  for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++)
    {
      snprintf (path, sizeof path, "%s\\%s", site, subdirs[i]);
      dirs_add (d, path);
    }
}

/* site-packages of every Python matching pattern (a folder with a '*'). */
static void
dirs_add_pythons (Dirs *d, const char *pattern, const char *site_sub)
{
  WIN32_FIND_DATAA found;
  HANDLE h = FindFirstFileA (pattern, &found);
  if (h == INVALID_HANDLE_VALUE)
    return;
  char base[MAX_PATH];
  snprintf (base, sizeof base, "%s", pattern);
  char *slash = strrchr (base, '\\');
  if (slash != NULL)
    *slash = '\0';
  do
    if (found.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
      {
        char site[MAX_PATH];
        snprintf (site, sizeof site, "%s\\%s\\%s", base, found.cFileName, site_sub);
        dirs_add_wheels (d, site);
      }
  while (FindNextFileA (h, &found));
  FindClose (h);
}

static void
dirs_find (Dirs *d)
{
  char path[MAX_PATH], env[4096];
  DWORD n;

  d->count = 0;
  n = GetModuleFileNameA (NULL, path, sizeof path);
  if (n > 0 && n < sizeof path)
    {
      char *slash = strrchr (path, '\\');
      if (slash != NULL)
        {
          *slash = '\0';
          dirs_add (d, path);
        }
    }
  n = GetEnvironmentVariableA ("CUDA_PATH", env, sizeof env);
  if (n > 0 && n < sizeof env)
    {
      snprintf (path, sizeof path, "%s\\bin\\x64", env);
      dirs_add (d, path);
      snprintf (path, sizeof path, "%s\\bin", env);
      dirs_add (d, path);
    }
  /* a python.exe on PATH: its Lib\site-packages */
  n = GetEnvironmentVariableA ("PATH", env, sizeof env);
  if (n > 0 && n < sizeof env)
    for (char *dir = strtok (env, ";"); dir != NULL; dir = strtok (NULL, ";"))
      {
        snprintf (path, sizeof path, "%s\\python.exe", dir);
        if (GetFileAttributesA (path) == INVALID_FILE_ATTRIBUTES)
          continue;
        snprintf (path, sizeof path, "%s\\Lib\\site-packages", dir);
        dirs_add_wheels (d, path);
      }
  n = GetEnvironmentVariableA ("LOCALAPPDATA", env, sizeof env);
  if (n > 0 && n < sizeof env)
    {
      snprintf (path, sizeof path, "%s\\Programs\\Python\\Python3*", env);
      dirs_add_pythons (d, path, "Lib\\site-packages");
    }
  n = GetEnvironmentVariableA ("APPDATA", env, sizeof env);
  if (n > 0 && n < sizeof env)
    {
      snprintf (path, sizeof path, "%s\\Python\\Python3*", env);
      dirs_add_pythons (d, path, "site-packages");
    }
  /* PATH's folders (those it names in full) */
  d->path_from = d->count;
  n = GetEnvironmentVariableA ("PATH", env, sizeof env);
  if (n > 0 && n < sizeof env)
    for (char *dir = strtok (env, ";"); dir != NULL; dir = strtok (NULL, ";"))
      dirs_add (d, dir);
}

/* cuDNN loads its own parts (cudnn_graph64_9.dll, ...) later, by name: the
 * folder a library came from is added to the folders the process's search
 * takes (the engine restricted that search to the program's folder,
 * System32 and such added folders, nn-os-win32.c). */
static void
search_add (const char *dir)
{
  wchar_t wide_dir[MAX_PATH];
  if (MultiByteToWideChar (CP_ACP, 0, dir, -1, wide_dir, MAX_PATH) > 0)
    AddDllDirectory (wide_dir);
}

/* A library by its full path: its own folder serves its dependencies
 * (cuBLASLt beside cuBLAS). */
static Library
library_open_at (const char *dir, const char *name, char *found, size_t found_size)
{
  char path[MAX_PATH];
  snprintf (path, sizeof path, "%s\\%s", dir, name);
  if (GetFileAttributesA (path) == INVALID_FILE_ATTRIBUTES)
    return NULL;
  HMODULE h = LoadLibraryExA (path, NULL,
                              LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
  if (h != NULL)
    {
      snprintf (found, found_size, "%s", path);
      search_add (dir);
    }
  return h;
}

/* The library by one of its names, from the folders above in their order
 * (Dirs), System32 after the named ones and before PATH's. */
static Library
library_open (const char *const *names, const Dirs *dirs, char *found, size_t found_size)
{
  char path[MAX_PATH];
  for (int i = 0; i < dirs->path_from; i++)
    for (int j = 0; names[j] != NULL; j++)
      {
        HMODULE h = library_open_at (dirs->dir[i], names[j], found, found_size);
        if (h != NULL)
          return h;
      }
  for (int j = 0; names[j] != NULL; j++)
    {
      HMODULE h = LoadLibraryExA (names[j], NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
      if (h != NULL)
        {
          if (GetModuleFileNameA (h, path, sizeof path) == 0)
            snprintf (path, sizeof path, "%s", names[j]);
          snprintf (found, found_size, "%s", path);
          return h;
        }
    }
  for (int i = dirs->path_from; i < dirs->count; i++)
    for (int j = 0; names[j] != NULL; j++)
      {
        HMODULE h = library_open_at (dirs->dir[i], names[j], found, found_size);
        if (h != NULL)
          return h;
      }
  return NULL;
}

static void *
library_symbol (Library lib, const char *name)
{
  return (void *) GetProcAddress (lib, name);
}

static void
library_close (Library lib)
{
  FreeLibrary (lib);
}

/* Where a missing library was looked for, for the message: "looked in A;
 * B; System32; PATH's C; D". */
static void
where_looked (const Dirs *dirs, char *out, size_t size)
{
  size_t used = (size_t) snprintf (out, size, "looked in");
  for (int i = 0; i < dirs->path_from && used < size; i++)
    used += (size_t) snprintf (out + used, size - used, " %s;", dirs->dir[i]);
  if (used < size)
    used += (size_t) snprintf (out + used, size - used, " System32");
  for (int i = dirs->path_from; i < dirs->count && used < size; i++)
    used += (size_t) snprintf (out + used, size - used, "%s %s",
                               i == dirs->path_from ? "; PATH's" : ";", dirs->dir[i]);
}

#else /* POSIX */

typedef void *Library;
typedef struct
{
  int count;
} Dirs;

static void
dirs_find (Dirs *d)
{
  d->count = 0;
}

/* By the dynamic linker's path: LD_LIBRARY_PATH, ld.so.conf (where NVIDIA's
 * packages register their folders) and, in a build tree, the module's
 * RUNPATH to the toolkit it was built with. */
static Library
library_open (const char *const *names, const Dirs *dirs, char *found, size_t found_size)
{
  (void) dirs;
  for (int j = 0; names[j] != NULL; j++)
    {
      void *h = dlopen (names[j], RTLD_NOW | RTLD_LOCAL);
      if (h == NULL)
        continue;
      /* the file the linker chose, for devices */
      struct link_map *map = NULL;
      snprintf (found, found_size, "%s",
                dlinfo (h, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name[0] != '\0'
                  ? map->l_name
                  : names[j]);
      return h;
    }
  return NULL;
}

static void *
library_symbol (Library lib, const char *name)
{
  return dlsym (lib, name);
}

static void
library_close (Library lib)
{
  dlclose (lib);
}

static void
where_looked (const Dirs *dirs, char *out, size_t size)
{
  (void) dirs;
  snprintf (out, size, "looked on the dynamic linker's path (ldconfig, LD_LIBRARY_PATH)");
}

#endif

/* ---------------------------------------------------------------- loading */

/* "a, b or c" of a list of names. */
static void
names_text (const char *const *names, char *out, size_t size)
{
  size_t used = 0;
  out[0] = '\0';
  for (int j = 0; names[j] != NULL && used < size; j++)
    used += (size_t) snprintf (out + used, size - used, "%s%s",
                               j == 0 ? "" : names[j + 1] == NULL ? " or " : ", ", names[j]);
}

static bool
load_driver (const Dirs *dirs)
{
  char path[1024] = "";
  Library lib = library_open (driver_names, dirs, path, sizeof path);
  if (lib == NULL)
    {
      snprintf (loaded.reason, sizeof loaded.reason, "no NVIDIA driver (%s not found)",
                driver_names[0]);
      return false;
    }
  auto get_proc = (decltype (&::cuGetProcAddress)) library_symbol (lib, "cuGetProcAddress_v2");
  if (get_proc == NULL)
    {
      snprintf (loaded.reason, sizeof loaded.reason,
                "NVIDIA driver too old for CUDA %d.%d (%.600s has no cuGetProcAddress_v2; the "
                "module needs driver 580 or newer)",
                CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10, path);
      return false;
    }
  const char *missing = NULL;
  /* each at the version the module was built with (CUDA_VERSION), in the
   * versions with the legacy default stream, as cuda.h declares them without
   * CUDA_API_PER_THREAD_DEFAULT_STREAM (the module uses streams of its own) */
#define NN_CU_LOOKUP(name)                                                                         \
  if (missing == NULL)                                                                             \
    {                                                                                              \
      CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                 \
      void *fn = NULL;                                                                             \
      if (get_proc (#name, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found)           \
              != CUDA_SUCCESS                                                                      \
          || fn == NULL)                                                                           \
        missing = #name;                                                                           \
      else                                                                                         \
        nn_cu::name = (decltype (nn_cu::name)) fn;                                                 \
    }
  NN_CU_DRIVER_FUNCTIONS (NN_CU_LOOKUP)
#undef NN_CU_LOOKUP
  if (missing != NULL)
    {
      int version = 0;
      auto driver_version = (decltype (&::cuDriverGetVersion)) library_symbol (lib,
                                                                               "cuDriverGetVersion");
      if (driver_version != NULL)
        driver_version (&version);
      snprintf (loaded.reason, sizeof loaded.reason,
                "NVIDIA driver too old for CUDA %d.%d (it supports CUDA %d.%d and lacks %s)",
                CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10, version / 1000,
                version % 1000 / 10, missing);
      return false;
    }
  CUresult err = nn_cu::cuInit (0);
  if (err != CUDA_SUCCESS)
    {
      int version = 0;
      nn_cu::cuDriverGetVersion (&version);
      if (err == CUDA_ERROR_NO_DEVICE)
        snprintf (loaded.reason, sizeof loaded.reason, "no NVIDIA GPU found");
      else if (version > 0 && version < CUDA_VERSION)
        snprintf (loaded.reason, sizeof loaded.reason,
                  "NVIDIA driver too old for CUDA %d.%d (it supports CUDA %d.%d)",
                  CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10, version / 1000,
                  version % 1000 / 10);
      else
        snprintf (loaded.reason, sizeof loaded.reason, "CUDA cannot start: %s (%s)",
                  _nn_cu_error_text (err), _nn_cu_error_name (err));
      return false;
    }
  return true;
}

/* cuBLAS or cuDNN: the library, then each function by its exported name. */
static bool
load_library (const char *what, const char *const *names, const Dirs *dirs, Library *lib,
              char *path, size_t path_size)
{
  *lib = library_open (names, dirs, path, path_size);
  if (*lib != NULL)
    return true;
  char list[256], looked[600];
  names_text (names, list, sizeof list);
  where_looked (dirs, looked, sizeof looked);
  snprintf (loaded.reason, sizeof loaded.reason, "%s not found (%s; %s)", what, list, looked);
  return false;
}

static void
load (void)
{
  Dirs *dirs = (Dirs *) calloc (1, sizeof *dirs);
  char cublas_path[512] = "", cudnn_path[512] = "";
  Library cublas = NULL, cudnn = NULL;
  const char *missing = NULL;

  if (dirs == NULL)
    {
      loaded.state = NN_CU_NO_DRIVER;
      snprintf (loaded.reason, sizeof loaded.reason, "out of host memory");
      return;
    }
  dirs_find (dirs);
  if (!load_driver (dirs))
    {
      loaded.state = NN_CU_NO_DRIVER;
      free (dirs);
      return;
    }
  loaded.state = NN_CU_NO_LIBRARIES;
  if (!load_library ("cuBLAS", cublas_names, dirs, &cublas, cublas_path, sizeof cublas_path)
      || !load_library ("cuDNN 9", cudnn_names, dirs, &cudnn, cudnn_path, sizeof cudnn_path))
    {
      free (dirs);
      return;
    }
  free (dirs);
#define NN_CU_SYMBOL(lib, name)                                                                    \
  if (missing == NULL                                                                              \
      && (nn_cu::name = (decltype (nn_cu::name)) library_symbol (lib, NN_CU_STR (name))) == NULL)  \
    missing = NN_CU_STR (name);
#define NN_CU_CUBLAS(name) NN_CU_SYMBOL (cublas, name)
#define NN_CU_CUDNN(name) NN_CU_SYMBOL (cudnn, name)
  NN_CU_CUBLAS_FUNCTIONS (NN_CU_CUBLAS)
  if (missing != NULL)
    {
      snprintf (loaded.reason, sizeof loaded.reason, "%s has no %s (not cuBLAS 12 or 13)",
                cublas_path, missing);
      return;
    }
  NN_CU_CUDNN_FUNCTIONS (NN_CU_CUDNN)
  if (missing != NULL)
    {
      snprintf (loaded.reason, sizeof loaded.reason, "%s has no %s (not cuDNN 9)", cudnn_path,
                missing);
      return;
    }
#undef NN_CU_CUDNN
#undef NN_CU_CUBLAS
#undef NN_CU_SYMBOL
  snprintf (loaded.libraries, sizeof loaded.libraries, "cuBLAS %.500s, cuDNN %.500s", cublas_path,
            cudnn_path);
  loaded.state = NN_CU_READY;
}

NnCuState
_nn_cu_load (char *reason, size_t reason_size)
{
  std::call_once (load_once, load);
  if (loaded.state != NN_CU_READY && reason != NULL && reason_size > 0)
    snprintf (reason, reason_size, "%s", loaded.reason);
  return loaded.state;
}

const char *
_nn_cu_libraries (void)
{
  return loaded.libraries;
}

bool
_nn_cu_driver_version (char *out, size_t size)
{
#ifdef _WIN32
  static const char *const names[] = { "nvml.dll", NULL };
#else
  static const char *const names[] = { "libnvidia-ml.so.1", NULL };
#endif
  typedef int (*InitFunc) (void);
  typedef int (*VersionFunc) (char *, unsigned int);
  Dirs none = {};
  char path[512];
  bool ok = false;

  Library nvml = library_open (names, &none, path, sizeof path);
  if (nvml == NULL)
    return false;
  InitFunc init = (InitFunc) library_symbol (nvml, "nvmlInit_v2");
  InitFunc shutdown = (InitFunc) library_symbol (nvml, "nvmlShutdown");
  VersionFunc version = (VersionFunc) library_symbol (nvml, "nvmlSystemGetDriverVersion");
  if (init != NULL && version != NULL && init () == 0)
    {
      char buf[96] = "";
      if (version (buf, sizeof buf) == 0 && buf[0] != '\0')
        {
          snprintf (out, size, "%s", buf);
          ok = true;
        }
      if (shutdown != NULL)
        shutdown ();
    }
  library_close (nvml);
  return ok;
}

const char *
_nn_cu_error_name (CUresult err)
{
  const char *name = NULL;
  if (nn_cu::cuGetErrorName == NULL || nn_cu::cuGetErrorName (err, &name) != CUDA_SUCCESS
      || name == NULL)
    return "CUDA_ERROR_UNKNOWN";
  return name;
}

const char *
_nn_cu_error_text (CUresult err)
{
  const char *text = NULL;
  if (nn_cu::cuGetErrorString == NULL || nn_cu::cuGetErrorString (err, &text) != CUDA_SUCCESS
      || text == NULL)
    return "unknown CUDA error";
  return text;
}
