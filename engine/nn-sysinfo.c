/* nn-sysinfo.c: the machine a run ran on, for result files and the device list.
 *
 * OS, CPU and RAM come from the OS layer (nn-os.h: /proc and friends on
 * Linux, the Win32 API on Windows), BLAS from nn-blas.c, the compiler from
 * its own macros. What cannot be read stays "" or 0.
 */

#include "nn-private.h"
#include "nn-os.h"

#include <stdio.h>
#include <string.h>

/* The parts that do not change while the process runs, read once. */
static NnSystemInfo fixed;
static NnOsOnce fixed_once = NN_OS_ONCE_INIT;

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

static void
read_fixed (void)
{
  memset (&fixed, 0, sizeof fixed);
  _nn_os_system_info (&fixed);
  read_compiler (fixed.compiler, sizeof fixed.compiler);
  if (fixed.cpu_model[0] == '\0')
    snprintf (fixed.cpu_model, sizeof fixed.cpu_model, "unknown CPU");
}

uint64_t
_nn_physical_memory (void)
{
  _nn_os_once (&fixed_once, read_fixed);
  return fixed.ram_bytes;
}

uint64_t
nn_system_memory_available (void)
{
  return _nn_os_memory_available ();
}

void
nn_system_info (NnSystemInfo *info)
{
  if (info == NULL)
    return;
  _nn_os_once (&fixed_once, read_fixed);
  *info = fixed;
  _nn_blas_info (info->blas_name, sizeof info->blas_name,
                 info->blas_version, sizeof info->blas_version,
                 info->blas_core, sizeof info->blas_core,
                 info->blas_note, sizeof info->blas_note);
  info->blas_threads = _nn_blas_threads ();
}

size_t
nn_system_os_label (const NnSystemInfo *info, char *out, size_t size)
{
  char dummy[1];
  if (out == NULL || size == 0)
    {
      out = dummy;
      size = sizeof dummy;
    }
  if (info == NULL)
    {
      out[0] = '\0';
      return 0;
    }
  const char *name = info->os_name[0] != '\0' ? info->os_name : "unknown OS";
  int n;
  if (info->os_emulated_by[0] != '\0')
    n = snprintf (out, size, "%s%s%s (%s)", name, info->os_version[0] != '\0' ? " " : "",
                  info->os_version, info->os_emulated_by);
  else
    n = snprintf (out, size, "%s%s%s", name, info->os_version[0] != '\0' ? " " : "",
                  info->os_version);
  return n > 0 ? (size_t) n : 0;
}
