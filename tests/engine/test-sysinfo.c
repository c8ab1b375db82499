/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-sysinfo.c: system information, the OpenBLAS core choice, thread
 * settings, and _nn_sgemm against a naive product (with OpenBLAS and, in a
 * child process, with the built-in fallback).
 */

#include "test-util.h"
#include "nn-private.h"
#include "nn-os.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <unistd.h>
#endif

/* Whether the CPU (and OS) can run OpenBLAS' AVX-512 kernels. */
static bool
cpu_has_avx512 (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw")
         && __builtin_cpu_supports ("avx512dq") && __builtin_cpu_supports ("avx512vl")
         && __builtin_cpu_supports ("avx512cd");
#else
  return false;
#endif
}

/* C = alpha op(A) op(B) + beta C against a double-precision loop, on odd
 * shapes, every transpose, and leading dimensions wider than the rows.
 * Returns the number of mismatches. */
static int
check_sgemm (bool verbose)
{
  static const int shapes[][3] = { { 1, 1, 1 }, { 7, 13, 5 }, { 37, 53, 29 }, { 129, 65, 257 },
                                   { 3, 300, 1 }, { 64, 1, 17 },
                                   /* large enough for _nn_sgemm to split rows, then columns */
                                   { 301, 97, 100 }, { 33, 515, 130 } };
  uint64_t seed = 7;
  int bad = 0;

  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        {
          int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
          int a_rows = ta ? k : m, a_cols = ta ? m : k;
          int b_rows = tb ? n : k, b_cols = tb ? k : n;
          int lda = a_cols + 3, ldb = b_cols + 1, ldc = n + 2;
          float *a = malloc (sizeof (float) * (size_t) a_rows * lda);   /* (a_rows, lda) */
          float *b = malloc (sizeof (float) * (size_t) b_rows * ldb);   /* (b_rows, ldb) */
          float *c = malloc (sizeof (float) * (size_t) m * ldc);        /* (m, ldc) */
          float *c0 = malloc (sizeof (float) * (size_t) m * ldc);
          for (int i = 0; i < a_rows * lda; i++)
            a[i] = test_randf (&seed, -1, 1);
          for (int i = 0; i < b_rows * ldb; i++)
            b[i] = test_randf (&seed, -1, 1);
          for (int i = 0; i < m * ldc; i++)
            c0[i] = c[i] = test_randf (&seed, -1, 1);
          float alpha = 0.75f, beta = (s % 2) ? 0.0f : -0.5f;
          if (beta == 0.0f)
            for (int i = 0; i < m * ldc; i++)
              c[i] = NAN;   /* beta = 0 must ignore what C held */

          _nn_sgemm (ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);

          double worst = 0;
          for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
              {
                double sum = 0;
                for (int p = 0; p < k; p++)
                  sum += (double) (ta ? a[p * lda + i] : a[i * lda + p])
                         * (double) (tb ? b[j * ldb + p] : b[p * ldb + j]);
                double want = alpha * sum + (beta != 0.0f ? beta * c0[i * ldc + j] : 0.0);
                double err = fabs (c[i * ldc + j] - want) / (1e-6 + sqrt ((double) k));
                if (!(err <= worst))
                  worst = isnan (err) ? INFINITY : err;
              }
          /* Padding columns of C are not part of the product: untouched. */
          bool pad_ok = true;
          for (int i = 0; i < m && beta != 0.0f; i++)
            for (int j = n; j < ldc; j++)
              pad_ok = pad_ok && c[i * ldc + j] == c0[i * ldc + j];
          if (!(worst < 1e-5) || !pad_ok)
            {
              bad++;
              if (verbose)
                tap_diag ("sgemm %dx%dx%d ta=%d tb=%d: scaled error %g, padding %s", m, n, k,
                          ta, tb, worst, pad_ok ? "intact" : "written");
            }
          free (a);
          free (b);
          free (c);
          free (c0);
        }

  /* k = 0 only scales C. */
  float c[2 * 3] = { 1, 2, 3, 4, 5, 6 };
  float dummy = 0;
  _nn_sgemm (0, 0, 2, 3, 0, 1.0f, &dummy, 1, &dummy, 3, 2.0f, c, 3);
  if (c[0] != 2 || c[5] != 12)
    {
      bad++;
      if (verbose)
        tap_diag ("sgemm with k = 0 did not compute C = beta C");
    }
  return bad;
}

static void *
race_init_cb (void *data)
{
  (void) data;
  float a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 0, 0, 1 }, c[4];
  _nn_sgemm (0, 0, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
  return (void *) (intptr_t) (c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4);
}

/* Whether the CPU (and OS) can run AVX kernels, OpenBLAS' Sandybridge. */
static bool
cpu_has_avx (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx");
#else
  return false;
#endif
}

/* The child: sgemm with TRAINBENCH_BLAS_LIBRARY=none; exit 0 when it agrees. */
static int
run_fallback_child (const char *arg)
{
  char reason[256];
  (void) arg;
  test_setenv ("TRAINBENCH_BLAS_LIBRARY", "none");
  nn_threads_set (2);
  if (_nn_blas_available (reason, sizeof reason))
    return 2;
  NnSystemInfo info;
  nn_system_info (&info);
  if (strcmp (info.blas_name, "none (built-in fallback)") != 0 || info.blas_note[0] == '\0')
    return 3;
  return check_sgemm (false) == 0 ? 0 : 1;
}

/* The child: a kernel core set in this process's environment before
 * OpenBLAS loads is the one it runs, whichever C runtime OpenBLAS reads it
 * with (on Windows the UCRT, not the msvcrt.dll this program uses). Prints
 * the core; exit 0 with OpenBLAS, 3 without. */
static int
run_core_child (const char *arg)
{
  _nn_os_setenv ("OPENBLAS_CORETYPE", arg);
  nn_blas_init ();
  printf ("%s", _nn_blas_core ());
  return _nn_blas_available (NULL, 0) ? 0 : 3;
}

/* The child: the library named by `arg` through TRAINBENCH_BLAS_LIBRARY,
 * with the core the engine chooses (scipy-openblas32's exports only
 * scipy_-prefixed names). Prints "core|note"; exit 0 when it loaded and its
 * sgemm agrees, 2 when it did not load, 1 when the products differ. */
static int
run_library_child (const char *arg)
{
  _nn_os_setenv ("OPENBLAS_CORETYPE", NULL);
  test_setenv ("TRAINBENCH_BLAS_LIBRARY", arg);
  nn_threads_set (2);
  NnSystemInfo info;
  nn_system_info (&info);
  printf ("%s|%s", info.blas_core, info.blas_note);
  if (!_nn_blas_available (NULL, 0) || strcmp (info.blas_name, "OpenBLAS") != 0)
    return 2;
  return check_sgemm (false) == 0 ? 0 : 1;
}

#ifdef __linux__
/* A file of a fake cgroup tree under the test's folder. */
static void
put (const char *root, const char *name, const char *text)
{
  char path[4400], dir[4400];
  snprintf (path, sizeof path, "%s/%s", root, name);
  test_make_folder (root);
  /* its folders, one by one */
  for (char *p = strchr (path + strlen (root) + 1, '/'); p != NULL; p = strchr (p + 1, '/'))
    {
      snprintf (dir, sizeof dir, "%.*s", (int) (p - path), path);
      test_make_folder (dir);
    }
  test_write_file (path, text, strlen (text));
}

/* The cgroup limit, read from fake trees of each layout: a container's
 * limit is lower than MemAvailable, and the run must see that one. */
static void
test_cgroups (void)
{
  uint64_t left = 0;
  bool found;
  char root[4200];
  const uint64_t MiB = 1 << 20;

  /* v2: the limit on a parent group, the file cache it may drop counted free */
  snprintf (root, sizeof root, "%s", test_path ("cg2"));
  put (root, "cgroup.controllers", "cpu memory\n");
  put (root, "user.slice/memory.max", "1073741824\n");
  put (root, "user.slice/memory.current", "536870912\n");
  put (root, "user.slice/memory.stat", "anon 1\ninactive_file 104857600\nactive_file 7\n");
  put (root, "user.slice/app.scope/memory.max", "max\n");
  put (root, "user.slice/app.scope/memory.current", "1000\n");
  found = _nn_os_cgroup_available ("0::/user.slice/app.scope\n", root, &left);
  tap_ok (found
            && left == 1024 * MiB - 412 * MiB,
          "cgroup v2: a parent's memory.max, less usage, plus inactive file cache (%llu MiB)",
          (unsigned long long) (left / MiB));

  /* v2 in a container: the group's path is hidden, the mount is the group */
  snprintf (root, sizeof root, "%s", test_path ("cg2-container"));
  put (root, "cgroup.controllers", "memory\n");
  put (root, "memory.max", "2147483648\n");
  put (root, "memory.current", "1073741824\n");
  found = _nn_os_cgroup_available ("0::/\n", root, &left);
  tap_ok (found && left == 1024 * MiB,
          "cgroup v2 inside a container (%llu MiB)", (unsigned long long) (left / MiB));
  found = _nn_os_cgroup_available ("0::/docker/0123abcd\n", root, &left);
  tap_ok (found && left == 1024 * MiB,
          "a group path the container does not show: the mount's own limit");

  /* v1: the memory controller's line, hierarchy under memory/ */
  snprintf (root, sizeof root, "%s", test_path ("cg1"));
  put (root, "memory/memory.limit_in_bytes", "9223372036854771712\n");
  put (root, "memory/docker/abc/memory.limit_in_bytes", "268435456\n");
  put (root, "memory/docker/abc/memory.usage_in_bytes", "209715200\n");
  put (root, "memory/docker/abc/memory.stat", "cache 5\ntotal_inactive_file 10485760\n");
  found = _nn_os_cgroup_available ("12:pids:/docker/abc\n4:memory:/docker/abc\n1:cpu:/\n",
                                   root, &left);
  tap_ok (found && left == 256 * MiB - 190 * MiB,
          "cgroup v1: memory.limit_in_bytes (%llu MiB)", (unsigned long long) (left / MiB));
  put (root, "memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
  found = _nn_os_cgroup_available ("4:memory:/docker/abc\n", root, &left);
  tap_ok (!found,
          "cgroup v1 without a limit: none applies");

  /* hybrid: v1 controllers, v2 at unified/ */
  snprintf (root, sizeof root, "%s", test_path ("cg-hybrid"));
  put (root, "unified/cgroup.controllers", "\n");
  put (root, "unified/session/memory.max", "536870912\n");
  put (root, "unified/session/memory.current", "0\n");
  found = _nn_os_cgroup_available ("1:name=systemd:/\n0::/session\n", root, &left);
  tap_ok (found
            && left == 512 * MiB,
          "a hybrid layout: cgroup v2 under unified/ (%llu MiB)",
          (unsigned long long) (left / MiB));
  found = _nn_os_cgroup_available ("", root, &left);
  tap_ok (!found, "no cgroup lines: no limit");

  /* this machine: never more than MemAvailable */
  const char *bound = NULL;
  uint64_t now = _nn_os_memory_available (&bound);
  tap_ok (now > 0 && bound != NULL, "memory available here: %llu MiB (%s)",
          (unsigned long long) (now / MiB), bound != NULL ? bound : "?");
}
#endif

int
main (int argc, char **argv)
{
  static const TestChildCase children[] = {
    { "fallback", run_fallback_child },
    { "core", run_core_child },
    { "library", run_library_child },
    { NULL, NULL },
  };
  test_child_main (argc, argv, children);
#ifdef __linux__
  test_cgroups ();
#endif

  /* a copy: the engine's setenv may replace the environment's strings */
  static char user_core[256];
  const char *caller_core = getenv ("OPENBLAS_CORETYPE");
  snprintf (user_core, sizeof user_core, "%s", caller_core != NULL ? caller_core : "");
  bool caller_set_core = user_core[0] != '\0';

  /* The first BLAS use comes from several threads at once. */
  pthread_t threads[4];
  for (int i = 0; i < 4; i++)
    pthread_create (&threads[i], NULL, race_init_cb, NULL);
  bool all = true;
  for (int i = 0; i < 4; i++)
    {
      void *ok = NULL;
      pthread_join (threads[i], &ok);
      all = all && ok != NULL;
    }
  tap_ok (all, "first BLAS use from 4 threads at once");

  NnSystemInfo info;
  nn_system_info (&info);
  tap_diag ("os '%s' '%s' kernel '%s'", info.os_name, info.os_version, info.kernel);
  tap_diag ("cpu '%s' cores %d threads %d ram %llu", info.cpu_model, info.cpu_cores,
            info.cpu_threads, (unsigned long long) info.ram_bytes);
  tap_diag ("blas '%s' '%s' core '%s' threads %d note '%s'; compiler '%s'", info.blas_name,
            info.blas_version, info.blas_core, info.blas_threads, info.blas_note, info.compiler);

#ifdef __linux__
  tap_ok (info.os_name[0] != '\0' && info.kernel[0] != '\0', "OS name and kernel");
  if (access ("/etc/os-release", R_OK) == 0)
    tap_ok (info.os_version[0] != '\0', "OS version from os-release");
  else
    tap_skip ("no /etc/os-release", "OS version");
  tap_ok (info.cpu_model[0] != '\0' && strcmp (info.cpu_model, "unknown CPU") != 0, "CPU model");
  long online = sysconf (_SC_NPROCESSORS_ONLN);
  tap_ok (info.cpu_threads == online, "logical processors = %ld", online);
  tap_ok (info.cpu_cores >= 1 && info.cpu_cores <= info.cpu_threads, "physical cores in 1..threads");
  tap_ok (info.ram_bytes > 64ull << 20, "RAM over 64 MiB");
  tap_ok (info.os_emulated_by[0] == '\0', "natively no emulator is named");
#endif
#ifdef _WIN32
  tap_ok (strncmp (info.os_name, "Windows", 7) == 0 && info.os_version[0] != '\0',
          "Windows and its version: %s %s", info.os_name, info.os_version);
  {
    unsigned major = 0, minor = 0, build = 0;
    tap_ok (sscanf (info.kernel, "%u.%u.%u", &major, &minor, &build) == 3 && major >= 5,
            "kernel is major.minor.build: %s", info.kernel);
    /* 6.1 is 7, 6.2 8, 6.3 8.1; 10.0 is 10 below build 22000, 11 above */
    const char *want = major == 6 && minor == 1   ? "7"
                       : major == 6 && minor == 2 ? "8"
                       : major == 6 && minor == 3 ? "8.1"
                       : major == 10              ? (build >= 22000 ? "11" : "10")
                                                  : NULL;
    if (want != NULL && strcmp (info.os_name, "Windows") == 0)
      tap_ok (strcmp (info.os_version, want) == 0, "kernel %s is Windows %s (%s)", info.kernel,
              want, info.os_version);
  }
  tap_ok (info.cpu_model[0] != '\0' && strcmp (info.cpu_model, "unknown CPU") != 0, "CPU model");
  tap_ok (info.cpu_cores >= 1 && info.cpu_cores <= info.cpu_threads, "physical cores in 1..threads");
  tap_ok (info.ram_bytes > 64ull << 20, "RAM over 64 MiB");
  if (test_under_wine ())
    tap_ok (strncmp (info.os_emulated_by, "wine ", 5) == 0 && info.os_emulated_by[5] != '\0',
            "under wine, wine and its version are named: %s", info.os_emulated_by);
  else
    tap_ok (info.os_emulated_by[0] == '\0', "on Windows itself no emulator is named");
#endif
  {
    char label[512];
    nn_system_os_label (&info, label, sizeof label);
    tap_ok (strncmp (label, info.os_name, strlen (info.os_name)) == 0
              && (info.os_emulated_by[0] == '\0' || strstr (label, info.os_emulated_by) != NULL),
            "the OS label names the OS and any emulator: %s", label);
  }
  uint64_t available = nn_system_memory_available ();
  tap_ok (available > 0 && available <= info.ram_bytes, "memory available now: %llu of %llu bytes",
          (unsigned long long) available, (unsigned long long) info.ram_bytes);

  /* TRAINBENCH_MEMORY_LIMIT as people write it: K, M, G, T in either case,
   * with B or iB or neither, a space before the unit, a decimal point;
   * each unit a power of 1024. Anything else is refused, naming the
   * variable, never taken as no limit. */
  {
    static const struct
    {
      const char *text;
      uint64_t bytes;     /* 0: refused */
      const char *why;    /* part of the refusal's message */
    } limits[] = {
      { "8g", UINT64_C (8) << 30, NULL },
      { "8gb", UINT64_C (8) << 30, NULL },
      { "8 G", UINT64_C (8) << 30, NULL },
      { "8GiB", UINT64_C (8) << 30, NULL },
      { " 8 gib ", UINT64_C (8) << 30, NULL },
      { "1.5G", UINT64_C (3) << 29, NULL },
      { "512M", UINT64_C (512) << 20, NULL },
      { "64k", UINT64_C (64) << 10, NULL },
      { "2T", UINT64_C (2) << 40, NULL },
      { "1000000", 1000000, NULL },
      { "4096B", 4096, NULL },
      { "1,5G", 0, "has a comma" },
      { "8,000", 0, "has a comma" },
      { "1P", 0, "unknown unit 'P'" },
      { "8 gigs", 0, "unknown unit 'gigs'" },
      { "8Gi", 0, "unknown unit 'Gi'" },
      { "1.5", 0, "a fraction of a byte" },
      { "0", 0, "less than a byte" },
      { "-1G", 0, "is not a size" },
      { "lots", 0, "is not a size" },
      { "99999999999T", 0, "more than 16 EiB" },
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
      {
        uint64_t bytes = 1;
        NnError error;
        nn_error_clear (&error);
        test_setenv ("TRAINBENCH_MEMORY_LIMIT", limits[i].text);
        NnStatus status = nn_system_memory_limit (&bytes, &error);
        if (limits[i].why == NULL)
          tap_ok (status == NN_OK && bytes == limits[i].bytes,
                  "TRAINBENCH_MEMORY_LIMIT=\"%s\" is %llu bytes (%llu)", limits[i].text,
                  (unsigned long long) limits[i].bytes, (unsigned long long) bytes);
        else
          tap_ok (status == NN_ERROR_INVALID_ARGUMENT && bytes == 0
                    && strncmp (error.message, "TRAINBENCH_MEMORY_LIMIT: ", 25) == 0
                    && strstr (error.message, limits[i].why) != NULL,
                  "TRAINBENCH_MEMORY_LIMIT=\"%s\" is refused: %s", limits[i].text, error.message);
      }
    uint64_t bytes = 1;
    test_setenv ("TRAINBENCH_MEMORY_LIMIT", "");
    tap_ok (nn_system_memory_limit (&bytes, NULL) == NN_OK && bytes == 0, "set to nothing: no limit");
    test_setenv ("TRAINBENCH_MEMORY_LIMIT", "1m");
    tap_ok (nn_system_memory_available () == UINT64_C (1) << 20,
            "the limit bounds the memory available: %llu bytes",
            (unsigned long long) nn_system_memory_available ());
    test_setenv ("TRAINBENCH_MEMORY_LIMIT", NULL);
  }
  tap_ok (info.compiler[0] != '\0'
          && (strncmp (info.compiler, "GCC ", 4) == 0 || strncmp (info.compiler, "Clang ", 6) == 0
              || strncmp (info.compiler, "MSVC ", 5) == 0),
          "compiler: %s", info.compiler);

  char reason[256];
  bool have_blas = _nn_blas_available (reason, sizeof reason);
  if (have_blas)
    {
      tap_ok (strcmp (info.blas_name, "OpenBLAS") == 0 && info.blas_version[0] >= '0'
              && info.blas_version[0] <= '9',
              "OpenBLAS and its version");
      tap_ok (info.blas_core[0] != '\0' && strcmp (info.blas_core, _nn_blas_core ()) == 0,
              "BLAS core recorded: %s", info.blas_core);
      if (cpu_has_avx512 () && !caller_set_core)
        {
          tap_ok (strcmp (info.blas_core, "Prescott") != 0
                  && (strcmp (info.blas_core, "SkylakeX") == 0
                      || strcmp (info.blas_core, "Cooperlake") == 0
                      || strcmp (info.blas_core, "SapphireRapids") == 0),
                  "AVX-512 CPU: an AVX-512 core, not Prescott (%s)", info.blas_core);
          tap_ok (info.blas_note[0] == '\0', "no note when the best core runs");
          const char *env = getenv ("OPENBLAS_CORETYPE");
          tap_ok (env != NULL && strcmp (env, "SkylakeX") == 0,
                  "OPENBLAS_CORETYPE set for OpenBLAS: %s", env ? env : "(unset)");
        }
      else if (caller_set_core)
        tap_ok (strcmp (getenv ("OPENBLAS_CORETYPE"), user_core) == 0
                && strstr (info.blas_note, "OPENBLAS_CORETYPE") != NULL,
                "the caller's OPENBLAS_CORETYPE kept and recorded: %s", info.blas_note);
      else
        tap_skip ("this CPU has no AVX-512", "AVX-512 core chosen");
    }
  else
    tap_ok (strstr (info.blas_name, "fallback") != NULL && info.blas_note[0] != '\0'
            && strcmp (reason, info.blas_note) == 0,
            "no OpenBLAS: fallback named and explained: %s", info.blas_note);

  /* Threads: set and read back, for the engine and for OpenBLAS. */
  int32_t got = nn_threads_set (1);
  nn_system_info (&info);
  tap_ok (got == 1 && _nn_threads () == 1 && (!have_blas || info.blas_threads == 1),
          "threads 1: engine %d, BLAS %d", _nn_threads (), info.blas_threads);
  got = nn_threads_set (3);
  nn_system_info (&info);
  tap_ok (got == 3 && _nn_threads () == 3 && (!have_blas || info.blas_threads == 3),
          "threads 3: engine %d, BLAS %d", _nn_threads (), info.blas_threads);
  got = nn_threads_set (0);
  tap_ok (got >= 1 && got <= info.cpu_threads && got <= info.cpu_cores
          && _nn_threads () == got,
          "threads 0 = one per physical core: %d of %d cores", got, info.cpu_cores);
  got = nn_threads_set (-5);
  tap_ok (got >= 1, "a negative count means all too: %d", got);

  nn_threads_set (2);
  int bad = check_sgemm (true);
  tap_ok (bad == 0, "%s sgemm agrees with a naive product (odd sizes, all transposes, "
          "beta 0 and not): %d mismatches", have_blas ? "OpenBLAS" : "fallback", bad);

  /* The built-in loop, in a child where OpenBLAS is switched off. */
  char out[256];
  int status = test_child_run ("fallback", "", out, sizeof out);
  tap_ok (status == 0, "built-in fallback sgemm agrees with a naive product (child exit %d)",
          status);

  /* A core set in the environment before the library loads is the one it
   * runs: Sandybridge, which every AVX CPU can run and no AVX2 CPU picks. */
  if (have_blas && cpu_has_avx ())
    {
      status = test_child_run ("core", "Sandybridge", out, sizeof out);
      tap_ok (status == 0 && strcmp (out, "Sandybridge") == 0,
              "OPENBLAS_CORETYPE set in the process reaches OpenBLAS: %s (child exit %d)", out,
              status);
    }
  else
    tap_skip (have_blas ? "this CPU has no AVX" : "no OpenBLAS here",
              "OPENBLAS_CORETYPE set in the process reaches OpenBLAS");

  /* PyPI's scipy-openblas32, whose names all have a scipy_ prefix, where
   * the Windows build puts it next to the programs (tools/build-windows):
   * it loads, and runs the CPU's best core (it has AVX-512 kernels; no Zen
   * core, but Haswell's, which ranks the same). */
  char scipy[4200] = "";
  {
    char folder[4096] = "";
    _nn_program_folder (folder, sizeof folder);
    if (folder[0] == '\0' || !nn_path_join (scipy, sizeof scipy, folder, "libscipy_openblas.dll")
        || _nn_os_path_kind (scipy, NULL) != NN_OS_FILE)
      scipy[0] = '\0';
  }
  if (scipy[0] != '\0')
    {
      status = test_child_run ("library", scipy, out, sizeof out);
      char *note = strchr (out, '|');
      if (note != NULL)
        *note++ = '\0';
      bool best = cpu_has_avx512 () ? strcmp (out, "SkylakeX") == 0 : out[0] != '\0';
      tap_ok (status == 0 && best && note != NULL && note[0] == '\0',
              "scipy_-prefixed OpenBLAS (libscipy_openblas.dll) loads, runs core %s with no "
              "note (%s), and its sgemm agrees (child exit %d)",
              out, note != NULL ? note : "?", status);
    }
  else
    tap_skip ("no libscipy_openblas.dll next to the test",
              "scipy_-prefixed OpenBLAS through TRAINBENCH_BLAS_LIBRARY");

  return tap_done ();
}
