/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-blas.c: OpenBLAS, loaded at run time after choosing its kernel core.
 *
 * OpenBLAS reads OPENBLAS_CORETYPE once, when it is loaded, and some builds
 * (Debian's 0.3.21) take AVX-512 CPUs they do not know for "Prescott" and
 * run SSE3 kernels at a fraction of the speed. So the engine does not link it:
 * nn_blas_init picks the core from the CPU's features, sets the variable
 * (unless the user did), then dlopen()s the library: the first candidate
 * that runs that core, or else the one with the widest kernels (a build
 * without AVX-512 kernels runs Haswell's for SkylakeX). Without OpenBLAS,
 * _nn_sgemm falls back to a simple blocked loop, slow but correct.
 * TRAINBENCH_BLAS_LIBRARY names another library, or "none" for that loop.
 */

#include "nn-private.h"
#include "nn-os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__x86_64__) || defined(__i386__)
#define NN_X86 1
#include <cpuid.h>
#elif defined(_M_X64) || defined(_M_IX86)
#define NN_X86 1
#include <intrin.h>
#endif

/* cblas.h values, so no BLAS headers are needed to build. */
enum
{
  CBLAS_ROW_MAJOR = 101,
  CBLAS_NO_TRANS = 111,
  CBLAS_TRANS = 112,
};

typedef void (*SgemmFunc) (int order, int trans_a, int trans_b, int m, int n, int k,
                           float alpha, const float *a, int lda, const float *b, int ldb,
                           float beta, float *c, int ldc);
typedef void (*SetThreadsFunc) (int threads);
typedef int (*GetThreadsFunc) (void);
typedef char *(*GetStringFunc) (void);
typedef int (*GetParallelFunc) (void);

/* openblas_get_parallel (): how this OpenBLAS build runs its threads. */
enum
{
  OPENBLAS_SEQUENTIAL = 0,
  OPENBLAS_THREAD = 1,  /* its own pthread pool */
  OPENBLAS_OPENMP = 2,  /* the OpenMP runtime's pool */
};

/* One OpenBLAS as loaded: its handle and the functions the engine calls. */
typedef struct
{
  void *handle;
  SgemmFunc sgemm;
  SetThreadsFunc set_threads;
  GetThreadsFunc get_threads;
  GetStringFunc get_corename;
  GetStringFunc get_config;
  GetParallelFunc get_parallel;
  int rank;                     /* core_rank of the core it chose */
  char library[256];            /* the name it loaded by */
} BlasLibrary;

/* Everything below is written once by load_blas (under blas_once) and only
 * read afterwards, except `threads`, which nn_threads_set changes. */
static struct
{
  BlasLibrary lib;              /* handle NULL without OpenBLAS; owned for the
                                 * life of the process */
  int parallel;                 /* OPENBLAS_*; anything but OPENMP: split by the engine */
  char name[64];                /* "OpenBLAS" or "none (built-in fallback)" */
  char version[64];             /* "0.3.21" */
  char config[256];             /* openblas_get_config () */
  char core[64];                /* openblas_get_corename () */
  char wanted[64];              /* the core the CPU supports best, "" when unknown */
  char note[256];               /* why the core is not the best one, or why no BLAS */
  int threads;                  /* engine and BLAS threads, 0 until set */
  bool small;                   /* small-matrix kernels: see small_kernels */
} blas;

/* ---------------------------------------------------------------- CPU features */

#ifdef NN_X86
static void
cpuid_count (unsigned leaf, unsigned sub, unsigned regs[4])
{
#if defined(_MSC_VER)
  int r[4];
  __cpuidex (r, (int) leaf, (int) sub);
  for (int i = 0; i < 4; i++)
    regs[i] = (unsigned) r[i];
#else
  __cpuid_count (leaf, sub, regs[0], regs[1], regs[2], regs[3]);
#endif
}

/* XCR0: which register states the OS saves on a context switch. */
static unsigned long long
read_xcr0 (void)
{
#if defined(_MSC_VER)
  return _xgetbv (0);
#else
  unsigned lo, hi;
  __asm__ volatile ("xgetbv" : "=a" (lo), "=d" (hi) : "c" (0));
  return ((unsigned long long) hi << 32) | lo;
#endif
}
#endif

/* The best OpenBLAS core whose instructions this CPU and OS support, or ""
 * to leave the choice to OpenBLAS (not x86, or nothing better than SSE). */
static const char *
best_core (void)
{
#ifdef NN_X86
  unsigned r1[4], r7[4] = { 0, 0, 0, 0 }, r0[4];
  cpuid_count (0, 0, r0);
  unsigned max_leaf = r0[0];
  if (max_leaf < 1)
    return "";
  cpuid_count (1, 0, r1);
  bool osxsave = (r1[2] >> 27) & 1;
  bool avx = (r1[2] >> 28) & 1;
  bool fma = (r1[2] >> 12) & 1;
  if (!osxsave || !avx)
    return "";
  unsigned long long xcr0 = read_xcr0 ();
  if ((xcr0 & 0x6) != 0x6)     /* XMM and YMM state */
    return "";
  if (max_leaf >= 7)
    cpuid_count (7, 0, r7);
  bool avx2 = (r7[1] >> 5) & 1;
  bool avx512 = ((r7[1] >> 16) & 1)     /* F */
                && ((r7[1] >> 17) & 1)  /* DQ */
                && ((r7[1] >> 28) & 1)  /* CD */
                && ((r7[1] >> 30) & 1)  /* BW */
                && ((r7[1] >> 31) & 1)  /* VL */
                && (xcr0 & 0xe0) == 0xe0; /* opmask, ZMM_Hi256, Hi16_ZMM */
  /* Cooperlake and SapphireRapids add only bf16 kernels (sbgemm) to
   * SkylakeX; their sgemm is the same (it ran at the same speed under
   * either name with the 2-core development machine's OpenBLAS 0.3.21;
   * no record kept). A library that lacks a named core prints a warning
   * and falls back to its own detection, and every DYNAMIC_ARCH build since
   * 0.2.20 knows SkylakeX, so SkylakeX for every AVX-512 CPU. */
  if (avx512)
    return "SkylakeX";
  /* AMD Zen (family 17h and later) runs Haswell's kernels, but OpenBLAS'
   * "Zen" core carries blocking sizes tuned for its caches. */
  char vendor[13];
  memcpy (vendor, &r0[1], 4);
  memcpy (vendor + 4, &r0[3], 4);
  memcpy (vendor + 8, &r0[2], 4);
  vendor[12] = '\0';
  unsigned family = (r1[0] >> 8) & 0xf;
  if (family == 0xf)
    family += (r1[0] >> 20) & 0xff;
  bool amd = strcmp (vendor, "AuthenticAMD") == 0 || strcmp (vendor, "HygonGenuine") == 0;
  if (avx2 && fma)
    return amd && family >= 0x17 ? "Zen" : "Haswell";
  return "Sandybridge";
#else
  return "";
#endif
}

/* How wide the vector kernels of an OpenBLAS core are: 0 SSE, 1 AVX,
 * 2 AVX2 + FMA, 3 AVX-512; -1 for names this file does not know. */
static int
core_rank (const char *core)
{
  static const char *const ranks[][8] = {
    { "Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Opteron", "Barcelona" },
    { "Sandybridge", "Bulldozer", "Piledriver", "Steamroller", "Excavator", NULL },
    { "Haswell", "Zen", "SkylakeX_AVX2", NULL },
    { "SkylakeX", "Cooperlake", "SapphireRapids", NULL },
  };
  static const char *const sse_more[] = { "Nano", "Bobcat", "Katmai", "Coppermine",
                                          "Northwood", "Banias", "Athlon", NULL };
  if (core == NULL || core[0] == '\0')
    return -1;
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < 8 && ranks[r][i] != NULL; i++)
      if (strcasecmp (core, ranks[r][i]) == 0)
        return r;
  for (int i = 0; sse_more[i] != NULL; i++)
    if (strcasecmp (core, sse_more[i]) == 0)
      return 0;
  return -1;
}

/* OpenBLAS (0.3.16 and later) has small-matrix kernels for the AVX-512
 * cores: a product of at most 1e6 multiply-adds runs on the operands in
 * place, without packing and without a buffer from its allocator. That
 * allocator takes a lock per call, and threads entering together queue on
 * it (OpenBLAS issue 5589: callers stop scaling at about 8 threads); the
 * small kernels were also faster per flop on the 2-core development
 * machine's AVX-512 core (commit 957a5a8: 32x16x1000 at 109 GFLOP/s against
 * 87 for the whole 32x1000x1000). */
static bool
small_kernels (void)
{
  int major = 0, minor = 0, patch = 0;
  if (core_rank (blas.core) != 3
      || sscanf (blas.version, "%d.%d.%d", &major, &minor, &patch) != 3)
    return false;
  return major > 0 || minor > 3 || (minor == 3 && patch >= 16);
}

/* ---------------------------------------------------------------- loading */

/* One OpenBLAS that loaded, before the engine takes it. */
/* A function of the library, OpenBLAS's `name` with `prefix` before it, as
 * a function pointer. */
static void (*lib_sym (void *lib, const char *prefix, const char *name)) (void)
{
  char full[64];
  snprintf (full, sizeof full, "%s%s", prefix, name);
  return (void (*) (void)) _nn_os_lib_symbol (lib, full);
}

/* Open one candidate and resolve what the engine needs into `lib`; false
 * and `why` when it is not a usable OpenBLAS. */
static bool
try_library (const char *name, BlasLibrary *lib, char *why, size_t why_size)
{
  void *h = _nn_os_lib_open (name, why, why_size);
  if (h == NULL)
    return false;
  /* PyPI's scipy-openblas32 exports its functions only with a scipy_
   * prefix (scipy_cblas_sgemm, ...), so that it never clashes with another
   * BLAS in the same process. */
  const char *prefix = lib_sym (h, "", "cblas_sgemm") != NULL ? "" : "scipy_";
  SgemmFunc sgemm = (SgemmFunc) lib_sym (h, prefix, "cblas_sgemm");
  GetStringFunc corename = (GetStringFunc) lib_sym (h, prefix, "openblas_get_corename");
  if (sgemm == NULL || corename == NULL)
    {
      snprintf (why, why_size, "%s: not OpenBLAS (no %s%s)", name,
                sgemm == NULL ? "" : prefix,
                sgemm == NULL ? "cblas_sgemm" : "openblas_get_corename");
      _nn_os_lib_close (h);
      return false;
    }
  *lib = (BlasLibrary) {
    .handle = h,
    .sgemm = sgemm,
    .get_corename = corename,
    .set_threads = (SetThreadsFunc) lib_sym (h, prefix, "openblas_set_num_threads"),
    .get_threads = (GetThreadsFunc) lib_sym (h, prefix, "openblas_get_num_threads"),
    .get_config = (GetStringFunc) lib_sym (h, prefix, "openblas_get_config"),
    .get_parallel = (GetParallelFunc) lib_sym (h, prefix, "openblas_get_parallel"),
    .rank = core_rank (corename ()),
  };
  snprintf (lib->library, sizeof lib->library, "%s", name);
  return true;
}

/* The libraries tried so far and the one kept. */
typedef struct
{
  BlasLibrary kept;             /* handle NULL until one loads */
  int enough;                   /* the rank that ends the search; -1: the first library */
  int found;                    /* how many different libraries loaded */
} BlasSearch;

static bool
search_done (const BlasSearch *s)
{
  return s->kept.handle != NULL && (s->enough < 0 || s->kept.rank >= s->enough);
}

/* Load one candidate and keep whichever of it and the one kept so far has
 * the wider kernels, the earlier on a tie; the other is closed. Each loads
 * with OPENBLAS_NUM_THREADS=1 unless the user set it (see load_blas), so
 * it has started no thread pool. False and `why` when it does not load. */
static bool
consider (BlasSearch *s, const char *name, char *why, size_t why_size)
{
  BlasLibrary lib;
  if (!try_library (name, &lib, why, why_size))
    return false;
  if (s->kept.handle != NULL && lib.handle == s->kept.handle)
    {
      /* the same library by another name: one reference less */
      _nn_os_lib_close (lib.handle);
      return true;
    }
  s->found++;
  if (s->kept.handle == NULL)
    s->kept = lib;
  else if (lib.rank > s->kept.rank)
    {
      _nn_os_lib_close (s->kept.handle);
      s->kept = lib;
    }
  else
    _nn_os_lib_close (lib.handle);
  return true;
}

static void
load_blas (void)
{
  const char *want = best_core ();
  char user_core[256] = "";     /* the user's own OPENBLAS_CORETYPE, if any */
  const char *user = NULL;
  char tried[512] = "";         /* why loading failed, for the note */
  char custom_failed[256] = ""; /* why TRAINBENCH_BLAS_LIBRARY did not load */
  char custom[1024] = "";       /* TRAINBENCH_BLAS_LIBRARY */
  char probe[256];

  snprintf (blas.wanted, sizeof blas.wanted, "%s", want);
  if (_nn_os_getenv ("OPENBLAS_CORETYPE", user_core, sizeof user_core) && user_core[0] != '\0')
    user = user_core;
  else if (want[0] != '\0')
    _nn_os_setenv ("OPENBLAS_CORETYPE", want);
  /* A pthread OpenBLAS starts a pool of one thread per core when it loads,
   * and those threads spin (sched_yield) for about 0.1 s before sleeping:
   * right when training starts (the engine loads it after the data set),
   * on the cores the engine's OpenMP threads need; a 400-step mlp-small
   * run lasts about that long (commit 777e8d5). The engine runs such a
   * build single-threaded anyway, so it loads with one thread and no pool;
   * an OpenMP build gets its count from nn_threads_set. The user's own
   * setting wins; ours is removed again once the library is loaded. */
  bool threads_env = !_nn_os_getenv ("OPENBLAS_NUM_THREADS", probe, sizeof probe);
  if (threads_env)
    _nn_os_setenv ("OPENBLAS_NUM_THREADS", "1");

  static const char *const candidates[] = { NN_OS_BLAS_LIBRARIES, NULL };
  /* The first library that loads is taken when its core is the one wanted,
   * or when the user chose the core or the library; otherwise the other
   * candidates are loaded too and the one with the widest kernels is kept.
   * Windows ships two: openblas.dll first, which has no AVX-512 kernels but
   * is the faster on AVX2 CPUs, then libscipy_openblas.dll for AVX-512 ones
   * (see NN_OS_BLAS_LIBRARIES). */
  BlasSearch search = { .enough = user != NULL ? -1 : core_rank (want) };
  _nn_os_getenv ("TRAINBENCH_BLAS_LIBRARY", custom, sizeof custom);
  if (strcmp (custom, "none") == 0)
    {
      /* For comparisons and tests: the built-in loop on purpose. */
      snprintf (blas.name, sizeof blas.name, "none (built-in fallback)");
      snprintf (blas.note, sizeof blas.note,
                "TRAINBENCH_BLAS_LIBRARY=none: matrix products use a slow built-in loop");
      if (threads_env)
        _nn_os_setenv ("OPENBLAS_NUM_THREADS", NULL);
      return;
    }
  if (custom[0] != '\0')
    {
      char why[256];
      if (consider (&search, custom, why, sizeof why))
        search.enough = -1;
      else
        {
          snprintf (custom_failed, sizeof custom_failed, "TRAINBENCH_BLAS_LIBRARY=%.200s",
                    why);
          snprintf (tried, sizeof tried, "%s; ", custom_failed);
        }
    }
  /* Where the program's folder comes first (Windows), each name by its full
   * path there: the copies shipped with the program, whatever else the
   * system has. */
  char folder[4096] = "";
  if (NN_OS_BLAS_NEXT_TO_PROGRAM)
    _nn_program_folder (folder, sizeof folder);
  for (int i = 0; !search_done (&search) && folder[0] != '\0' && candidates[i] != NULL; i++)
    {
      char path[4096 + 64];
      char why[256];
      if (!nn_path_join (path, sizeof path, folder, candidates[i])
          || _nn_os_path_kind (path, NULL) != NN_OS_FILE)
        continue;
      if (!consider (&search, path, why, sizeof why))
        {
          size_t used = strlen (tried);
          snprintf (tried + used, sizeof tried - used, "%s; ", why);
        }
    }
  for (int i = 0; !search_done (&search) && candidates[i] != NULL; i++)
    {
      char why[256];
      bool loaded = consider (&search, candidates[i], why, sizeof why);
      size_t used = strlen (tried);
      /* The first name's error says the most; the others are only listed. */
      if (!loaded && i == 0)
        snprintf (tried + used, sizeof tried - used, "%s; also tried", why);
      else if (!loaded)
        snprintf (tried + used, sizeof tried - used, " %s", candidates[i]);
    }

  if (threads_env)
    _nn_os_setenv ("OPENBLAS_NUM_THREADS", NULL);

  if (search.kept.handle == NULL)
    {
      snprintf (blas.name, sizeof blas.name, "none (built-in fallback)");
      snprintf (blas.note, sizeof blas.note,
                "OpenBLAS not found (%.190s); matrix products use a slow built-in loop",
                tried);
      return;
    }

  blas.lib = search.kept;
  blas.parallel = blas.lib.get_parallel != NULL ? blas.lib.get_parallel () : OPENBLAS_THREAD;
  /* until nn_threads_set: see there why a pthread OpenBLAS runs single-threaded */
  if (blas.parallel != OPENBLAS_OPENMP && blas.lib.set_threads != NULL)
    blas.lib.set_threads (1);

  snprintf (blas.name, sizeof blas.name, "OpenBLAS");
  const char *core = blas.lib.get_corename ();
  snprintf (blas.core, sizeof blas.core, "%s", core != NULL ? core : "");
  if (blas.lib.get_config != NULL)
    {
      const char *config = blas.lib.get_config ();
      snprintf (blas.config, sizeof blas.config, "%s", config != NULL ? config : "");
      /* "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64" */
      if (strncmp (blas.config, "OpenBLAS ", 9) == 0)
        sscanf (blas.config + 9, "%63s", blas.version);
    }
  blas.small = small_kernels ();

  int have = core_rank (blas.core);
  int best = core_rank (blas.wanted);
  if (user != NULL)
    {
      if (have >= 0 && best >= 0 && have < best)
        snprintf (blas.note, sizeof blas.note,
                  "OPENBLAS_CORETYPE=%.40s set by the user; OpenBLAS chose %.40s "
                  "although the CPU supports %.40s",
                  user, blas.core, blas.wanted);
      else
        snprintf (blas.note, sizeof blas.note, "OPENBLAS_CORETYPE=%.64s set by the user",
                  user);
    }
  else if (have >= 0 && best >= 0 && have < best)
    {
      static const char *const isa[] = { "SSE", "AVX", "AVX2", "AVX-512" };
      if (blas.config[0] != '\0' && strstr (blas.config, "DYNAMIC_ARCH") == NULL)
        snprintf (blas.note, sizeof blas.note,
                  "this OpenBLAS is built for %.40s only although the CPU supports %s "
                  "(%.40s); install a DYNAMIC_ARCH build",
                  blas.core, isa[best], blas.wanted);
      else if (search.found > 1)
        /* The engine set OPENBLAS_CORETYPE before loading each of them, and
         * each took a lower core: none has kernels for it. */
        snprintf (blas.note, sizeof blas.note,
                  "OpenBLAS chose %.40s although the CPU supports %s (%.40s): none of the "
                  "%d OpenBLAS builds found has %.40s kernels (built without %s)",
                  blas.core, isa[best], blas.wanted, search.found, blas.wanted, isa[best]);
      else
        /* The engine set OPENBLAS_CORETYPE before loading it, and it took a
         * lower core: it has no kernels for that one (ngsolve's openblas.dll
         * runs Haswell for SkylakeX and Cooperlake). */
        snprintf (blas.note, sizeof blas.note,
                  "OpenBLAS chose %.40s although the CPU supports %s (%.40s): this OpenBLAS "
                  "has no %.40s kernels (built without %s)",
                  blas.core, isa[best], blas.wanted, blas.wanted, isa[best]);
    }
  if (custom_failed[0] != '\0')
    {
      char note[sizeof blas.note];
      snprintf (note, sizeof note, "%s", blas.note);
      snprintf (blas.note, sizeof blas.note, "%.140s; using %.40s%s%.60s", custom_failed,
                blas.lib.library, note[0] != '\0' ? "; " : "", note);
    }
}

static NnOsOnce blas_once = NN_OS_ONCE_INIT;

void
nn_blas_init (void)
{
  _nn_os_once (&blas_once, load_blas);
}

/* ---------------------------------------------------------------- queries */

bool
_nn_blas_available (char *reason, size_t reason_size)
{
  nn_blas_init ();
  if (blas.lib.sgemm != NULL)
    {
      if (reason != NULL && reason_size > 0)
        reason[0] = '\0';
      return true;
    }
  if (reason != NULL && reason_size > 0)
    snprintf (reason, reason_size, "%s", blas.note);
  return false;
}

const char *
_nn_blas_core (void)
{
  nn_blas_init ();
  return blas.core;
}

void
_nn_blas_info (char *name, size_t name_size,
               char *version, size_t version_size,
               char *core, size_t core_size,
               char *note, size_t note_size)
{
  nn_blas_init ();
  if (name != NULL && name_size > 0)
    snprintf (name, name_size, "%s", blas.name);
  if (version != NULL && version_size > 0)
    snprintf (version, version_size, "%s", blas.version);
  if (core != NULL && core_size > 0)
    snprintf (core, core_size, "%s", blas.core);
  if (note != NULL && note_size > 0)
    snprintf (note, note_size, "%s", blas.note);
}

/* ---------------------------------------------------------------- threads */

int32_t
nn_threads_set (int32_t threads)
{
  nn_blas_init ();
  if (threads <= 0)
    {
      /* One thread per physical core, as PyTorch does: a second hardware
       * thread on a core does not speed up dense kernels. Never more than
       * the processors this process may use. */
      NnSystemInfo info;
      nn_system_info (&info);
      int available = _nn_os_available_processors ();
      threads = info.cpu_cores > 0 && info.cpu_cores < available ? info.cpu_cores : available;
    }
  if (threads > NN_THREADS_MAX)
    threads = NN_THREADS_MAX;
  /* One thread pool: an OpenBLAS with its own threads would spin on the
   * cores the engine's loops need next (and the other way round), so it
   * runs single-threaded and _nn_sgemm splits large products across the
   * engine's pool itself. An OpenMP build of OpenBLAS has its runtime's
   * pool, which only its products use. */
  if (blas.lib.set_threads != NULL)
    blas.lib.set_threads (blas.parallel == OPENBLAS_OPENMP ? threads : 1);
  __atomic_store_n (&blas.threads, threads, __ATOMIC_RELAXED);
  return threads;
}

int32_t
_nn_threads (void)
{
  int t = __atomic_load_n (&blas.threads, __ATOMIC_RELAXED);
  if (t > 0)
    return t;
  return _nn_os_available_processors ();
}

int32_t
_nn_blas_threads (void)
{
  nn_blas_init ();
  if (blas.lib.get_threads != NULL && blas.parallel == OPENBLAS_OPENMP)
    return blas.lib.get_threads ();
  /* split across the engine's threads by _nn_sgemm */
  return _nn_threads ();
}

/* ---------------------------------------------------------------- sgemm */

/* Row-major element (i, j) of op(X), where X has leading dimension ld. */
#define OP_AT(x, trans, ld, i, j) ((trans) ? (x)[(size_t) (j) * (ld) + (i)] : (x)[(size_t) (i) * (ld) + (j)])

/* The fallback: C (m, n) = alpha * op(A) (m, k) @ op(B) (k, n) + beta * C.
 * Blocked over k and n so a block of B stays in cache; rows split across
 * threads. */
typedef struct
{
  int trans_a, trans_b, m, n, k;
  float alpha, beta;
  const float *a, *b;
  int lda, ldb, ldc;
  float *c;
} SgemmCall;

static void
sgemm_fallback_rows (void *data, size_t lo, size_t hi)
{
  enum { KB = 128, NB = 256 };
  const SgemmCall *g = data;
  bool ta = g->trans_a, tb = g->trans_b;
  int n = g->n, k = g->k, lda = g->lda, ldb = g->ldb, ldc = g->ldc;
  float alpha = g->alpha, beta = g->beta;
  const float *a = g->a, *b = g->b;
  float *c = g->c;

  for (int i = (int) lo; i < (int) hi; i++)
    {
      float *ci = c + (size_t) i * ldc;
      for (int j = 0; j < n; j++)
        ci[j] = beta == 0.0f ? 0.0f : beta * ci[j];
      for (int k0 = 0; k0 < k; k0 += KB)
        {
          int k1 = k0 + KB < k ? k0 + KB : k;
          for (int j0 = 0; j0 < n; j0 += NB)
            {
              int j1 = j0 + NB < n ? j0 + NB : n;
              for (int p = k0; p < k1; p++)
                {
                  float av = alpha * OP_AT (a, ta, lda, i, p);
                  if (!tb)
                    {
                      const float *bp = b + (size_t) p * ldb;
                      for (int j = j0; j < j1; j++)
                        ci[j] += av * bp[j];
                    }
                  else
                    for (int j = j0; j < j1; j++)
                      ci[j] += av * b[(size_t) j * ldb + p];
                }
            }
        }
    }
}

static void
sgemm_fallback (bool ta, bool tb, int m, int n, int k, float alpha,
                const float *a, int lda, const float *b, int ldb, float beta,
                float *c, int ldc)
{
  SgemmCall g = { ta, tb, m, n, k, alpha, beta, a, b, lda, ldb, ldc, c };
  _nn_parallel_range ((size_t) m, 1, (double) m * n * k > 1e5 ? _nn_threads () : 1,
                      sgemm_fallback_rows, &g);
}

static void
sgemm_call (int trans_a, int trans_b, int m, int n, int k, float alpha,
            const float *a, int lda, const float *b, int ldb, float beta,
            float *c, int ldc)
{
  blas.lib.sgemm (CBLAS_ROW_MAJOR, trans_a ? CBLAS_TRANS : CBLAS_NO_TRANS,
              trans_b ? CBLAS_TRANS : CBLAS_NO_TRANS, m, n, k, alpha, a, lda,
              b, ldb, beta, c, ldc);
}

/* Rows (by_rows) or columns [first, first + count) of C. */
static void
sgemm_block (int trans_a, int trans_b, bool by_rows, int m, int n, int k, float alpha,
             const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc,
             int first, int count)
{
  if (by_rows)
    /* rows of op(A): rows of A, or columns of A when transposed */
    sgemm_call (trans_a, trans_b, count, n, k, alpha,
                trans_a ? a + first : a + (size_t) first * lda, lda, b, ldb, beta,
                c + (size_t) first * ldc, ldc);
  else
    /* columns of op(B): columns of B, or rows of B when transposed */
    sgemm_call (trans_a, trans_b, m, count, k, alpha, a, lda,
                trans_b ? b + (size_t) first * ldb : b + first, ldb, beta, c + first, ldc);
}

/* The widest block (a multiple of 16 rows or columns of C, at most `limit`)
 * that OpenBLAS's small-kernel test accepts, or 0. In its column-major
 * terms a row-major product is C^T = op(B)^T op(A)^T: transa is our
 * trans_b, M our n, N our m; "TN" products also need M N <= 1200 and
 * K >= 32, "TT" ones K >= 4. */
static int
small_block (int trans_a, int trans_b, bool by_rows, int m, int n, int k, int limit)
{
  double other = by_rows ? n : m;     /* C's extent across the cut */
  int best = 0;
  for (int w = 16; w <= limit; w += 16)
    {
      double cm_mn = w * other;
      if (cm_mn * k > 1e6)
        break;
      if (trans_b && !trans_a && (cm_mn > 1200 || k < 32))
        break;
      if (trans_b && trans_a && k < 4)
        break;
      best = w;
    }
  return best;
}

/* B (n, k) is at most this many floats for a transposed copy on the
 * stack (48 KiB; mlp-wide's last layer, 1000x10, fits). */
#define TRANSPOSE_FLOATS 12288

/* A split over k takes at most SPLIT_K_TEAM threads and a C (m, n) of at
 * most SPLIT_K_FLOATS floats: the partial Cs of all but the first thread
 * live on the caller's stack (112 KiB). */
#define SPLIT_K_TEAM 8
#define SPLIT_K_FLOATS 4096

/* The rows of B (and columns of A) [k0, k1) of the product, in sub-blocks
 * of at most `kb` (OpenBLAS' small kernels), the first with `beta`, the
 * rest adding. */
static void
sgemm_k_range (int trans_a, int m, int n, int k0, int k1, int kb, float alpha,
               const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
  for (int p = k0; p < k1; p += kb)
    {
      int len = k1 - p < kb ? k1 - p : kb;
      sgemm_call (trans_a, 0, m, n, len, alpha, trans_a ? a + (size_t) p * lda : a + p, lda,
                  b + (size_t) p * ldb, ldb, p == k0 ? beta : 1.0f, c, ldc);
    }
}

/* Partial Cs added on the calling thread, not by a second parallel call,
 * up to this many additions: fewer cost less than OpenMP's barrier did
 * (about 0.5 us natively, 25-60 us under wine on 2 threads,
 * bench/windows-wine/omp-join-cost.c); the limit was kept for the
 * engine's pool, whose join was not timed on its own. */
#define SPLIT_K_AFTER_JOIN 8192

/* Rows [r0, r1) of C (m, n) += the team's partial Cs, in thread order. */
static void
split_k_sum (int m, int n, float *c, int ldc, const float *parts, int r0, int r1, int team)
{
  for (int u = 1; u < team; u++)
    for (int i = r0; i < r1; i++)
      {
        float *ci = c + (size_t) i * ldc;
        const float *pi = parts + (size_t) (u - 1) * m * n + (size_t) i * n;
        for (int j = 0; j < n; j++)
          ci[j] += pi[j];
      }
}

/* C = alpha op(A) B + beta C with each thread a contiguous range of B's
 * rows (at least 16: none is empty), for a small C and a long k
 * (mlp-small's 32x784 @ 784x128): thread t reads rows [k t / T,
 * k (t + 1) / T) of B, about the slab of the weights that the optimizer's
 * flat split hands thread t later in the step, so Adam finds those lines
 * in its own core's cache. Cut by C's columns, each thread read a part of
 * every row, and Adam then pulled half of its lines from the other core
 * (2-core development machine, 2 threads, with the day's other changes:
 * Adam 45 -> 19 us, the mlp-small step 140 -> 101 us;
 * bench/results/local2core-cpu-ops-2026-11-30.md). Thread 0 writes C, the
 * others a partial C added after a barrier in thread order (the same bits
 * on every run with this thread count). */
/* One split product's arguments for its parts. */
typedef struct
{
  SgemmCall g;
  int kb;           /* split over k: rows of B per OpenBLAS call */
  float *parts;     /* split over k: (parts - 1) x (m, n) partial Cs */
  bool by_rows;     /* split by blocks: rows of C, or columns */
  int chunk;        /* split by blocks: rows or columns per block */
  int length;       /* split by blocks: C's rows or columns in all */
} SplitCall;

static void
split_k_part (void *data, int t, int team)
{
  const SplitCall *s = data;
  const SgemmCall *g = &s->g;
  int k0 = (int) ((long) g->k * t / team), k1 = (int) ((long) g->k * (t + 1) / team);
  if (t == 0)
    sgemm_k_range (g->trans_a, g->m, g->n, k0, k1, s->kb, g->alpha, g->a, g->lda, g->b, g->ldb,
                   g->beta, g->c, g->ldc);
  else
    sgemm_k_range (g->trans_a, g->m, g->n, k0, k1, s->kb, g->alpha, g->a, g->lda, g->b, g->ldb,
                   0.0f, s->parts + (size_t) (t - 1) * g->m * g->n, g->n);
}

/* rows [lo, hi) of C += the partials, for a split over k in `team` parts */
typedef struct
{
  const SplitCall *s;
  int team;
} SplitKSum;

static void
split_k_sum_rows (void *data, size_t lo, size_t hi)
{
  const SplitKSum *u = data;
  const SgemmCall *g = &u->s->g;
  split_k_sum (g->m, g->n, g->c, g->ldc, u->s->parts, (int) lo, (int) hi, u->team);
}

/* C = alpha op(A) B + beta C with each part a contiguous range of B's
 * rows (at least 16: none is empty), for a small C and a long k
 * (mlp-small's 32x784 @ 784x128): part t reads rows [k t / T,
 * k (t + 1) / T) of B, about the slab of the weights that the optimizer's
 * flat split hands part t later in the step, so Adam finds those lines
 * in its own core's cache (the pool runs part t on thread t when it can).
 * Cut by C's columns, each thread read a part of every row, and Adam then
 * pulled half of its lines from the other core (2-core development
 * machine, 2 threads, with the day's other changes: Adam 45 -> 19 us, the
 * mlp-small step 140 -> 101 us; bench/results/local2core-cpu-ops-2026-11-30.md).
 * Part 0 writes C, the others a partial C, added afterwards in part order
 * (the same bits on every run with this thread count). */
static void
sgemm_split_k (int trans_a, int m, int n, int k, float alpha, const float *a, int lda,
               const float *b, int ldb, float beta, float *c, int ldc, int threads, int kb)
{
  float parts[(SPLIT_K_TEAM - 1) * SPLIT_K_FLOATS]; /* (threads - 1) x (m, n) */
  SplitCall s = { { trans_a, 0, m, n, k, alpha, beta, a, b, lda, ldb, ldc, c }, .kb = kb,
                  .parts = parts };

  _nn_parallel_on (threads, threads, split_k_part, &s);
  /* A few thousand additions (mlp-small's 32x128 C on 2 threads) on this
   * thread, not a second parallel call: see SPLIT_K_AFTER_JOIN. */
  SplitKSum sum = { &s, threads };
  bool alone = (size_t) (threads - 1) * m * n <= SPLIT_K_AFTER_JOIN;
  _nn_parallel_range ((size_t) m, 1, alone ? 1 : threads, split_k_sum_rows, &sum);
}

static void
split_block_part (void *data, int block, int blocks)
{
  const SplitCall *s = data;
  const SgemmCall *g = &s->g;
  int first = block * s->chunk;
  int count = block == blocks - 1 ? s->length - first : s->chunk;
  sgemm_block (g->trans_a, g->trans_b, s->by_rows, g->m, g->n, g->k, g->alpha, g->a, g->lda,
               g->b, g->ldb, g->beta, g->c, g->ldc, first, count);
}

/* A single-threaded OpenBLAS on the engine's threads: C is cut into
 * blocks of rows (or of columns, whichever is longer), each a whole sgemm
 * of its own, in multiples of 16 so the kernels stay on full tiles: one
 * block per thread, or, where OpenBLAS has small-matrix kernels, blocks
 * small enough for them, handed to the threads in a fixed order (and cut
 * the same way on one thread). A small C with a long k is cut over k
 * instead. Small products run on the calling thread: below about a million
 * multiply-adds a second thread costs more than it saves. */
static void
sgemm_split (int trans_a, int trans_b, int m, int n, int k, float alpha,
             const float *a, int lda, const float *b, int ldb, float beta,
             float *c, int ldc)
{
  if (trans_b && !trans_a && blas.small && (double) m * n * k <= 1e6
      && (m * n > 1200 || k < 32) && (size_t) k * n <= TRANSPOSE_FLOATS)
    {
      /* A small product with B transposed that the small kernels refuse
       * (small_block): B^T copied to the stack, so it runs on them after
       * all: mlp-small's 32x10 @ (128x10)^T 2.95 -> 1.95 us in the step
       * (bench/results/local2core-cpu-ops-2026-11-30.md; cnn's 256-row one
       * did not change there). */
      float bt[TRANSPOSE_FLOATS]; /* (k, n) */
      for (int j = 0; j < n; j++)
        for (int p = 0; p < k; p++)
          bt[(size_t) p * n + j] = b[(size_t) j * ldb + p];
      sgemm_call (0, 0, m, n, k, alpha, a, lda, bt, n, beta, c, ldc);
      return;
    }
  int threads = _nn_parallel_inside () ? 1 : _nn_threads ();
  /* Each thread's share must be worth waking it for, about 0.75 million
   * multiply-adds: mlp-small's 32x784x128 product gets 4 of 16 threads.
   * On the GPU machine's host, 16 threads, mlp-small's median step took
   * half as long with 0.75M each as with every thread woken, and a fifth
   * less than with 1.5M. */
  double work = (double) m * n * k;
  if (threads > 1 && (double) threads * 0.75e6 > work)
    threads = work >= 1.5e6 ? (int) (work / 0.75e6) : 1;
  /* a small C and a long k: split over k (see sgemm_split_k) */
  if (threads > 1 && threads <= SPLIT_K_TEAM && !trans_b && (size_t) m * n <= SPLIT_K_FLOATS
      && k >= 4 * (m > n ? m : n) && k >= 16 * threads)
    {
      int kb = k;
      if (blas.small)
        {
          /* each thread's rows in equal blocks of at most 1e6 multiply-adds,
           * which OpenBLAS' small kernels take (B is not transposed:
           * "NN" or "NT" in its column-major terms, no further limits) */
          int per = (k + threads - 1) / threads;
          int most = (int) (1e6 / ((double) m * n));
          if (most >= 1)
            {
              int blocks = (per + most - 1) / most;
              kb = (per + blocks - 1) / blocks;
            }
        }
      sgemm_split_k (trans_a, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, threads, kb);
      return;
    }
  bool by_rows = m >= n;
  int length = by_rows ? m : n;
  int chunk = (length + threads - 1) / threads;
  chunk = (chunk + 15) / 16 * 16;
  if (work > 1e6 && blas.small)
    {
      int small = small_block (trans_a, trans_b, by_rows, m, n, k, chunk);
      if (small > 0)
        {
          /* each thread's share in equal blocks, so the threads' ranges
           * end where the optimizer's flat split does (dW of mlp-small's
           * first layer: 400 and 384 rows, not 480 and 304 in blocks of
           * 240; that product 36.2 -> 31.4 us, same file as above) */
          int parts = (chunk + small - 1) / small;
          chunk = ((chunk + parts - 1) / parts + 15) / 16 * 16;
        }
    }
  int blocks = (length + chunk - 1) / chunk;
  if (blocks <= 1)
    {
      sgemm_call (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      return;
    }
  if (threads > blocks)
    threads = blocks;
  if (threads <= 1)
    {
      for (int block = 0; block < blocks; block++)
        sgemm_block (trans_a, trans_b, by_rows, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                     block * chunk, length - block * chunk < chunk ? length - block * chunk
                                                               : chunk);
      return;
    }
  SplitCall s = { { trans_a, trans_b, m, n, k, alpha, beta, a, b, lda, ldb, ldc, c },
                  .by_rows = by_rows, .chunk = chunk, .length = length };
  _nn_parallel_on (threads, blocks, split_block_part, &s);
}

static void
sgemm_any (int trans_a, int trans_b, int m, int n, int k, float alpha,
           const float *a, int lda, const float *b, int ldb, float beta,
           float *c, int ldc)
{
  nn_blas_init ();
  /* OpenBLAS rejects lda < 1 with a message on stderr; k = 0 only scales C. */
  if (blas.lib.sgemm != NULL && k > 0)
    {
      if (blas.parallel == OPENBLAS_OPENMP)
        sgemm_call (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      else
        sgemm_split (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      return;
    }
  sgemm_fallback (trans_a != 0, trans_b != 0, m, n, k, alpha, a, lda, b, ldb, beta,
                  c, ldc);
}

/* A product's time is the step's "gemm" part, the joins of its split
 * excepted (nn-parallel.c counts those as waiting). */
void
_nn_sgemm (int trans_a, int trans_b, int m, int n, int k, float alpha,
           const float *a, int lda, const float *b, int ldb, float beta,
           float *c, int ldc)
{
  if (m <= 0 || n <= 0)
    return;
  int back = _nn_clock_enter (NN_BREAKDOWN_GEMM);
  sgemm_any (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  _nn_clock_leave (back);
}
