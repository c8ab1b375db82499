/* nn-sysinfo.c: the machine a run ran on, for result files and the device list.
 *
 * OS, CPU, RAM, BLAS and compiler, read from /proc and friends on Linux and
 * from the Win32 API on Windows. What cannot be read stays "" or 0.
 */

#define _GNU_SOURCE

#include "nn-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#include <sys/utsname.h>
#include <unistd.h>
#endif

/* The parts that do not change while the process runs, read once. */
static NnSystemInfo fixed;

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

static void
read_compiler (char *out, size_t size)
{
#if defined(__clang__)
  snprintf (out, size, "Clang %d.%d.%d", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  /* __VERSION__ is "12.2.0" for GCC; mingw-w64 adds its own words. */
  snprintf (out, size, "GCC %s", __VERSION__);
#elif defined(_MSC_VER)
  snprintf (out, size, "MSVC %d.%d (%d)", _MSC_VER / 100, _MSC_VER % 100, _MSC_FULL_VER);
#else
  snprintf (out, size, "unknown C compiler");
#endif
}

#ifndef _WIN32

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

static void
read_ram (NnSystemInfo *info)
{
  long pages = sysconf (_SC_PHYS_PAGES);
  long page = sysconf (_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    {
      info->ram_bytes = (uint64_t) pages * (uint64_t) page;
      return;
    }
  FILE *f = fopen ("/proc/meminfo", "r");
  if (f == NULL)
    return;
  char line[256];
  unsigned long long kib;
  while (fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "MemTotal: %llu kB", &kib) == 1)
      {
        info->ram_bytes = (uint64_t) kib * 1024;
        break;
      }
  fclose (f);
}

#else /* _WIN32 */

typedef LONG (WINAPI *RtlGetVersionFunc) (OSVERSIONINFOW *);

static void
read_os (NnSystemInfo *info)
{
  snprintf (info->os_name, sizeof info->os_name, "Windows");

  /* GetVersionEx lies to programs without a manifest; RtlGetVersion does not. */
  OSVERSIONINFOW v;
  memset (&v, 0, sizeof v);
  v.dwOSVersionInfoSize = sizeof v;
  HMODULE ntdll = GetModuleHandleA ("ntdll.dll");
  RtlGetVersionFunc rtl_get_version = NULL;
  if (ntdll != NULL)
    rtl_get_version = (RtlGetVersionFunc) (void (*) (void)) GetProcAddress (ntdll, "RtlGetVersion");
  if (rtl_get_version != NULL && rtl_get_version (&v) == 0)
    {
      /* Windows 11 still reports 10.0; its builds start at 22000. */
      const char *name = v.dwMajorVersion == 10 && v.dwBuildNumber >= 22000 ? "11"
                         : v.dwMajorVersion == 10                             ? "10"
                                                                              : "";
      if (name[0] != '\0')
        snprintf (info->os_version, sizeof info->os_version, "%s", name);
      else
        snprintf (info->os_version, sizeof info->os_version, "%lu.%lu",
                  (unsigned long) v.dwMajorVersion, (unsigned long) v.dwMinorVersion);
      snprintf (info->kernel, sizeof info->kernel, "%lu.%lu.%lu",
                (unsigned long) v.dwMajorVersion, (unsigned long) v.dwMinorVersion,
                (unsigned long) v.dwBuildNumber);
    }
}

static void
read_cpu (NnSystemInfo *info)
{
  HKEY key;
  if (RegOpenKeyExA (HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                     0, KEY_READ, &key) == ERROR_SUCCESS)
    {
      char name[256];
      DWORD size = sizeof name - 1;
      DWORD type = 0;
      if (RegQueryValueExA (key, "ProcessorNameString", NULL, &type, (BYTE *) name, &size)
            == ERROR_SUCCESS
          && type == REG_SZ)
        {
          name[size < sizeof name ? size : sizeof name - 1] = '\0';
          snprintf (info->cpu_model, sizeof info->cpu_model, "%s", strip (name));
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
          if (cores > 0)
            info->cpu_cores = cores;
        }
      free (records);
    }
}

static void
read_ram (NnSystemInfo *info)
{
  MEMORYSTATUSEX m;
  m.dwLength = sizeof m;
  if (GlobalMemoryStatusEx (&m))
    info->ram_bytes = m.ullTotalPhys;
}

#endif

static void
read_fixed (void)
{
  memset (&fixed, 0, sizeof fixed);
  read_os (&fixed);
  read_cpu (&fixed);
  read_ram (&fixed);
  read_compiler (fixed.compiler, sizeof fixed.compiler);
  if (fixed.cpu_model[0] == '\0')
    snprintf (fixed.cpu_model, sizeof fixed.cpu_model, "unknown CPU");
}

#ifdef _WIN32
static INIT_ONCE fixed_once = INIT_ONCE_STATIC_INIT;

static BOOL CALLBACK
read_fixed_once (PINIT_ONCE once, PVOID param, PVOID *context)
{
  (void) once;
  (void) param;
  (void) context;
  read_fixed ();
  return TRUE;
}
#else
static pthread_once_t fixed_once = PTHREAD_ONCE_INIT;
#endif

/* The parts that do not change while the process runs, read once. */
static void
ensure_fixed (void)
{
#ifdef _WIN32
  InitOnceExecuteOnce (&fixed_once, read_fixed_once, NULL, NULL);
#else
  pthread_once (&fixed_once, read_fixed);
#endif
}

uint64_t
_nn_physical_memory (void)
{
  ensure_fixed ();
  return fixed.ram_bytes;
}

void
nn_system_info (NnSystemInfo *info)
{
  if (info == NULL)
    return;
  ensure_fixed ();
  *info = fixed;
  _nn_blas_info (info->blas_name, sizeof info->blas_name,
                 info->blas_version, sizeof info->blas_version,
                 info->blas_core, sizeof info->blas_core,
                 info->blas_note, sizeof info->blas_note);
  info->blas_threads = _nn_blas_threads ();
}
