/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-sysinfo.c: the machine a run ran on, for result files and the device list.
 *
 * OS, CPU and RAM come from the OS layer (nn-os.h: /proc and friends on
 * Linux, the Win32 API on Windows), BLAS from nn-blas.c, the compiler from
 * its own macros. What cannot be read stays "" or 0.
 */

#include "nn-private.h"
#include "nn-os.h"

#include <stdio.h>
#include <stdlib.h>
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

NnStatus
nn_system_memory_limit (uint64_t *bytes, NnError *error)
{
  static const char var[] = "TRAINBENCH_MEMORY_LIMIT";
  static const char units[] = "KMGT";
  char text[4096];
  const char *p = text;
  double value = 0, scale = 1, unit = 1;
  bool fraction = false;

  *bytes = 0;
  if (!_nn_os_getenv (var, text, sizeof text))
    return NN_OK;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '\0')
    return NN_OK;
  /* the number, read by hand: strtod would take the locale's decimal
   * comma in one program and not in another */
  const char *digits = p;
  for (; *p >= '0' && *p <= '9'; p++)
    value = value * 10 + (*p - '0');
  if (*p == '.' && p > digits && p[1] >= '0' && p[1] <= '9')
    for (p++, fraction = true; *p >= '0' && *p <= '9'; p++)
      value += (*p - '0') * (scale /= 10);
  if (p == digits)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: '%.64s' is not a size (bytes, or a number with K, M, G or T: "
                          "512M, 1.5G, 8 GiB)", var, text);
  if (*p == ',')
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: '%.64s' has a comma: write a fraction with a decimal point "
                          "(1.5G), and no thousands separator", var, text);
  while (*p == ' ' || *p == '\t')
    p++;
  const char *unit_text = p;
  char upper = *p >= 'a' && *p <= 'z' ? (char) (*p - 'a' + 'A') : *p;
  if (upper != '\0' && strchr (units, upper) != NULL)
    {
      for (const char *u = units; *u != upper; u++)
        unit *= 1024;
      unit *= 1024;
      p++;
      if (*p == 'i' || *p == 'I')
        p++;
      if (*p == 'b' || *p == 'B')
        p++;
      else if (p[-1] == 'i' || p[-1] == 'I')
        p = unit_text;   /* "Gi" without its B */
    }
  else if (upper == 'B')
    p++;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p != '\0')
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: '%.64s': unknown unit '%.16s' (K, M, G or T, with or without B or "
                          "iB, each a power of 1024: 512M, 1.5G, 8 GiB)", var, text, unit_text);
  if (fraction && unit == 1)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: '%.64s' is a fraction of a byte: give a unit (1.5G)", var, text);
  double b = value * unit;
  if (!(b >= 1.0))
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: '%.64s' is less than a byte: give the memory a run may take "
                          "(512M, 8G)", var, text);
  if (b >= 18446744073709551616.0)
    return _nn_error_set (error, NN_ERROR_INVALID_ARGUMENT,
                          "%s: '%.64s' is more than 16 EiB", var, text);
  *bytes = (uint64_t) b;
  return NN_OK;
}

uint64_t
_nn_memory_available (const char **bound)
{
  const char *os_bound = NULL;
  uint64_t bytes = _nn_os_memory_available (&os_bound);
  uint64_t limit = 0;
  nn_system_memory_limit (&limit, NULL);   /* 0 for one that is not a size */
  if (bound != NULL)
    *bound = os_bound;
  if (limit > 0 && (bytes == 0 || limit < bytes))
    {
      bytes = limit;
      if (bound != NULL)
        *bound = "TRAINBENCH_MEMORY_LIMIT";
    }
  return bytes;
}

NnStatus
_nn_memory_check (const NnMemoryNeed *needs, int count, bool on_host, int32_t batch,
                  const char *device, NnError *error)
{
  const char *bound = NULL;
  uint64_t limit;
  double total = 0, rows = 0;   /* doubles: a hostile shape must not wrap a sum */

  /* a limit written wrongly fails the run, rather than let it run without */
  NnStatus status = nn_system_memory_limit (&limit, error);
  if (status != NN_OK)
    return status;
  uint64_t available = _nn_memory_available (&bound);
  if (available == 0)
    return NN_OK;   /* unknown here: the allocations will tell */
  for (int i = 0; i < count; i++)
    if (needs[i].host || on_host)
      {
        total += (double) needs[i].bytes;
        if (needs[i].per_row)
          rows += (double) needs[i].bytes;
      }
  if (total <= (double) available)
    return NN_OK;

  /* the three largest items, by name */
  int top[3] = { -1, -1, -1 };
  for (int i = 0; i < count; i++)
    {
      if (!(needs[i].host || on_host) || needs[i].bytes == 0)
        continue;
      for (int k = 0; k < 3; k++)
        if (top[k] < 0 || needs[i].bytes > needs[top[k]].bytes)
          {
            for (int m = 2; m > k; m--)
              top[m] = top[m - 1];
            top[k] = i;
            break;
          }
    }
  char parts[512] = "", need_text[32], have_text[32];
  for (int k = 0; k < 3 && top[k] >= 0; k++)
    {
      char size[32];
      size_t used = strlen (parts);
      _nn_format_bytes ((double) needs[top[k]].bytes, size, sizeof size);
      snprintf (parts + used, sizeof parts - used, "%s%s %s", k > 0 ? ", " : "",
                needs[top[k]].what, size);
    }
  _nn_format_bytes (total, need_text, sizeof need_text);
  _nn_format_bytes ((double) available, have_text, sizeof have_text);

  /* what grows with the batch shrinks with it: the largest batch that fits */
  double constant = total - rows;
  double fits = rows > 0 && batch > 1 ? ((double) available - constant) / (rows / batch) : 0;
  if (bound == NULL)
    bound = NN_MESSAGE ("what is free");
  if (fits >= 1)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY,
                          "%s: does not fit in memory: the run needs %s at batch %d (%s, ...) but "
                          "%-s is %s; try a smaller batch (at most about %.0f fits)",
                          device, need_text, batch, parts, bound, have_text,
                          fits < batch ? fits : (double) batch - 1);
  if (rows > 0)
    return _nn_error_set (error, NN_ERROR_NO_MEMORY,
                          "%s: does not fit in memory: the run needs %s at batch %d (%s, ...) but "
                          "%-s is %s; the model does not fit even at batch 1",
                          device, need_text, batch, parts, bound, have_text);
  return _nn_error_set (error, NN_ERROR_NO_MEMORY,
                        "%s: does not fit in memory: the run needs %s at batch %d (%s, ...) but "
                        "%-s is %s",
                        device, need_text, batch, parts, bound, have_text);
}

uint64_t
nn_system_memory_available (void)
{
  return _nn_memory_available (NULL);
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
