/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-private.h: what the engine's own files share and nobody else sees.
 *
 * Error helpers, the clock, shapes, the backend handle, and the layer
 * interface every engine/layers/nn-*.c implements.
 */
#pragma once

#include "trainbench.h"
#include "nn-backend-abi.h"
#include "nn-json.h"

#include <stdarg.h>
#include <stdio.h> /* __MINGW_PRINTF_FORMAT on Windows */

#if defined(__MINGW32__)
/* mingw's stdio follows C99 (%zu) when built with __USE_MINGW_ANSI_STDIO */
#define NN_PRINTF(f, a) __attribute__ ((format (__MINGW_PRINTF_FORMAT, f, a)))
#elif defined(__GNUC__) || defined(__clang__)
#define NN_PRINTF(f, a) __attribute__ ((format (printf, f, a)))
#else
#define NN_PRINTF(f, a)
#endif

/* ---------------------------------------------------------------- errors */

/* Fill `error` (may be NULL) and return `code`, so a failure reads
 *   return _nn_error_set (error, NN_ERROR_FORMAT, "%s: bad magic", path);
 * The format is English and a string literal: po/meson.build has xgettext
 * take it from here for the app's translations (nn_error_translate). An
 * argument that is itself an English phrase of the engine's, written with
 * NN_MESSAGE, is given as "%-s" (which prints as "%s"), so that it is
 * translated too:
 *   _nn_error_set (error, code, "%s: not %-s", path, NN_MESSAGE ("a label file")); */
NnStatus _nn_error_set (NnError *error, NnStatus code, const char *format, ...) NN_PRINTF (3, 4);
NnStatus _nn_error_setv (NnError *error, NnStatus code, const char *format, va_list args)
  NN_PRINTF (3, 0);

/* Say which field of a request a failure is about (NnError.field), when
 * `status` is one; returns `status`, so a check reads
 *   status = _nn_error_field (error, check_axes (request, error), NN_FIELD_AXES); */
NnStatus _nn_error_field (NnError *error, NnStatus status, NnField field);

/* Put "prefix: " in front of an error's message (for context as it rises);
 * the format is taken for translation as _nn_error_set's is. */
void _nn_error_prefix (NnError *error, const char *format, ...) NN_PRINTF (2, 3);

/* Marks a message format that reaches _nn_error_set by another way than as
 * its format argument, or a phrase given to a "%-s", for xgettext. */
#define NN_MESSAGE(format) (format)

/* One printf conversion of a format, as in "%-8.3lld", "%2$s" or "%-*s"
 * (nn-error.c: the error's translatable parts; nn-text.c: text made safe
 * for a terminal). */
typedef struct
{
  int position;     /* n of "%n$", 0 when none */
  int width;        /* -1 when none */
  int precision;    /* of ".n", -1 when none */
  bool left;        /* the '-' flag (or a negative '*' width) */
  char spec[40];    /* the conversion without its position, a '*' as its number: "%-8.3lld" */
  char length[3];   /* "", "hh", "h", "l", "ll", "j", "z", "t" or "L" */
  char conversion;  /* 'd', 's', ... */
  const char *end;  /* just after it */
} NnFormatConversion;

/* Parse the conversion that starts at `p`, just after its '%'. A '*' width
 * or precision takes its number from `stars`; without them (NULL), and for
 * %n, wide characters or a malformed conversion, false. */
bool _nn_format_conversion_parse (const char *p, NnFormatConversion *c, va_list *stars);

/* snprintf of the conversion's spec with the next argument of `args`, read
 * as the type the conversion says. */
int _nn_format_conversion_write (char *out, size_t size, const NnFormatConversion *c,
                                 va_list *args);

/* ---------------------------------------------------------------- sizes */

/* The length of the valid UTF-8 sequence at s (at most n bytes) and its
 * code point (may be NULL), or 0 when it is not one: a bad lead or
 * continuation byte, an overlong form, a surrogate, a code point above
 * U+10FFFF (nn-text.c). */
size_t _nn_utf8_decode (const unsigned char *s, size_t n, uint32_t *code_point);

/* "1.8 GiB", "12 KiB", for messages (nn-error.c). */
void _nn_format_bytes (double bytes, char *out, size_t size);

/* This machine's physical memory in bytes, 0 when unknown (nn-sysinfo.c,
 * read once). */
uint64_t _nn_physical_memory (void);

/* Memory a run may take now, 0 when unknown: what the system has available
 * without swapping (MemAvailable, less where a cgroup's limit says so), or
 * TRAINBENCH_MEMORY_LIMIT (nn_system_memory_limit) when that is lower.
 * `bound` (may be NULL) gets which, in words, for messages. */
uint64_t _nn_memory_available (const char **bound);

/* One item of what a run needs in memory, for the check made before
 * anything is allocated. */
typedef struct
{
  const char *what;      /* "activations", "the training images" */
  uint64_t bytes;        /* at the run's batch size */
  bool per_row;          /* grows with the batch size */
  bool host;             /* in host memory whatever the device (else on the device) */
} NnMemoryNeed;

/* Check that `needs` fit what _nn_memory_available says is left: the
 * device's items count when `on_host` (the CPU backend, whose device memory
 * is the host's), the host items always. NN_ERROR_NO_MEMORY otherwise,
 * with a message that names the largest items, the total, the bound, and
 * the largest batch that fits; NN_ERROR_INVALID_ARGUMENT for a
 * TRAINBENCH_MEMORY_LIMIT that is not a size. In nn-sysinfo.c. */
NnStatus _nn_memory_check (const NnMemoryNeed *needs, int count, bool on_host, int32_t batch,
                           const char *device, NnError *error);

/* ---------------------------------------------------------------- clock */

/* Monotonic seconds from an arbitrary origin (in the OS layer, nn-os.h). */
double _nn_now (void);

/* ---------------------------------------------------------------- randomness */

/* The next number of a splitmix64 sequence (weights, shuffles, sampling). */
static inline uint64_t
_nn_splitmix64 (uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- folders and files */

/* The user's Trainbench folder `leaf` ("datasets", "runs"):
 * $XDG_DATA_HOME/trainbench/LEAF or ~/.local/share/trainbench/LEAF, on
 * Windows %LOCALAPPDATA%\Trainbench\LEAF. In nn-dataset.c. */
void _nn_user_data_dir (const char *leaf, char *out, size_t size);

/* The machine id kept in FOLDER/machine-id, made there (and the folder)
 * when there is none yet, only if no other process made one first: then
 * that one's. `path` (may be NULL) gets the file's path. In
 * nn-machine-id.c, apart from nn_machine_id's folder and once-only read
 * for tests. */
NnStatus _nn_machine_id_in (const char *folder, char id[NN_MACHINE_ID_SIZE], char *path,
                            size_t path_size, NnError *error);

/* The last component of a path (after its last separator); nn-file.c. */
const char *_nn_path_base_name (const char *path);

/* The running program's folder, "" when unknown. */
void _nn_program_folder (char *out, size_t size);

/* 32 random bits from the OS, never the same twice in a row in one process. */
uint32_t _nn_random_u32 (void);

/* A file written in full or not at all: _nn_atomic_file_open creates a new
 * temporary file next to `path`, the contents go in with
 * _nn_atomic_file_write, and _nn_atomic_file_commit flushes it to disk and
 * puts it in the place of `path` in one step. On any failure the temporary
 * file is removed and an old `path` stays as it was; messages name `path`.
 *
 * What the target is decides what "in the place of" means:
 * - a regular file or nothing: replaced or created, as above;
 * - a symbolic link: the file it points to (through any chain of links) is
 *   replaced or created that way, next to itself; the link stays a link;
 * - a character device or a FIFO that something reads (/dev/null,
 *   /dev/stdout, a pipe; on Windows NUL, CON): written through, never
 *   replaced, with no temporary file;
 * - a block device, a socket, a FIFO that nothing reads, a loop of links:
 *   refused with a message that says which. */
typedef struct
{
  FILE *file;           /* owned: the temporary file, or the device written through */
  bool through;         /* `file` is the target itself (a device or a FIFO) */
  bool confirm;         /* set by the caller: the commit checks afterwards that the target is
                         * the file it put there, and fails if another writer's replaced it
                         * in the meantime */
  int error;            /* errno of the first failed write, 0 while all is well */
  char path[4096];      /* the target as given, for messages */
  char target[4096];    /* the file written: path with its links followed */
  char tmp[4096 + 16];  /* target + ".tmp-XXXXXX" */
  char folder[4096];    /* the target's folder, "" for the current one */
} NnAtomicFile;

/* `make_folder`: create the target's folder and its parents first. */
NnStatus _nn_atomic_file_open (NnAtomicFile *af, const char *path, bool make_folder,
                               NnError *error);
bool _nn_atomic_file_write (NnAtomicFile *af, const void *data, size_t size);
NnStatus _nn_atomic_file_commit (NnAtomicFile *af, NnError *error);

/* A file that is new or nothing: `path` is taken by whatever has that name
 * (a file, a link, a device), which is never replaced or followed. Written
 * as above; _nn_atomic_file_commit_new puts it in place only if the name is
 * still free, else fails with *taken = true and the temporary file gone. */
NnStatus _nn_atomic_file_open_new (NnAtomicFile *af, const char *path, bool make_folder,
                                   NnError *error);
NnStatus _nn_atomic_file_commit_new (NnAtomicFile *af, bool *taken, NnError *error);
/* Give up: the temporary file goes, the target stays as it was. */
void _nn_atomic_file_abort (NnAtomicFile *af);

/* The three in one, for contents already in memory. */
NnStatus _nn_file_write_atomically (const char *path, const void *data, size_t size,
                                    bool make_folder, NnError *error);

/* The "system" member of a result file (and of a sweep file): the OS, CPU,
 * memory, the GPUs this process knows of, BLAS, CUDA's versions (those of
 * `run_device` when it is a usable GPU, else of the first GPU; may be NULL)
 * and the compiler. In nn-result.c. */
void _nn_result_json_system (NnJson *j, const NnSystemInfo *sys, const NnDeviceInfo *run_device);
/* "conditions": `name` ("default", "article", "custom") and the switches
 * of `c`. In nn-result.c, for result and sweep files alike. */
void _nn_result_json_conditions (NnJson *j, const char *name, const NnConditions *c);
/* "breakdown" of a run on a device of `kind`. In nn-result.c. */
void _nn_result_json_breakdown (NnJson *j, const NnBreakdown *b, NnDeviceKind kind);

/* ---------------------------------------------------------------- shapes */

/* A sample's shape: rank 1 (c = features, h = w = 1) or rank 3 (c, h, w). */
typedef struct
{
  int32_t rank;
  int32_t c, h, w;
} NnShape;

static inline int64_t
_nn_shape_size (NnShape s)
{
  return (int64_t) s.c * s.h * s.w;
}

/* Output shape and parameter count of one layer on input `in`. The message
 * names the problem ("needs a 3-D input (channels, height, width), got (128)");
 * the caller prefixes the layer. */
NnStatus _nn_layer_infer (const NnLayerSpec *spec,
                          NnShape in,
                          NnShape *out,
                          int64_t *params,
                          NnError *error);

/* One layer's canonical text, as nn_spec_format writes it in a spec
 * ("conv2d 32 3 relu", "dropout 0.25"); the length it needed, like
 * snprintf. */
size_t _nn_layer_spec_format (const NnLayerSpec *layer, char *out, size_t size);

/* The number of values the last layer of a model puts out (its infos[count
 * - 1]), and whether that is one per class: a model ends in `classes`
 * outputs of rank 1 (nn-spec.c; the trainer and nn_spec_check_data). */
int32_t _nn_spec_outputs (const NnLayerInfo *last);
NnStatus _nn_spec_check_outputs (const NnLayerInfo *last, int32_t classes, NnError *error);

/* Explicit top/left padding of a conv or pool layer on input `in` (0 for valid). */
void _nn_layer_padding (const NnLayerSpec *spec, NnShape in, NnShape out,
                        int32_t *pad_h, int32_t *pad_w);

/* ---------------------------------------------------------------- backends */

/* An open backend: the ops table and one context. */
typedef struct
{
  const NnBackendOps *ops; /* borrowed: static table */
  void *ctx;               /* owned */
  NnDeviceInfo device;
} NnBackend;

/* Open the backend for a device (CPU built in; CUDA loaded on demand). */
NnStatus _nn_backend_open (const NnDeviceOptions *options, NnBackend *backend, NnError *error);
void _nn_backend_close (NnBackend *backend);

/* Turn a backend op's return code into a status with the backend's message,
 * prefixed with `what` ("dense_1 forward"). NN_OK when rc is 0. */
NnStatus _nn_backend_check (NnBackend *backend, int rc, const char *what, NnError *error);

/* nn_device_list without loading the CUDA module: the CPU, and the GPUs
 * only when the module was loaded already (by a GPU run or a device list).
 * What a CPU run records, so that a missing, broken or hanging module
 * never touches it. */
int _nn_device_list_loaded (NnDeviceInfo *out, int max);

/* Where the CUDA module is looked for, and why loading it failed (for the
 * device list); returns NULL and fills reason when it is not usable. */
const NnBackendOps *_nn_backend_cuda_load (char *reason, size_t reason_size);

/* Whether `ops` keeps every rule of nn-backend-abi.h: the required slots
 * set, and each group of optional slots all set or all NULL; else false
 * and `why` names the slot. The loader refuses a module whose table breaks
 * one. */
bool _nn_backend_ops_valid (const NnBackendOps *ops, char *why, size_t why_size);

/* ---------------------------------------------------------------- BLAS */

/* nn-blas.c loads OpenBLAS at run time (dlopen/LoadLibrary), after choosing
 * its kernel core (OPENBLAS_CORETYPE) from the CPU's features: OpenBLAS reads
 * that choice when it is loaded, so linking it would be too late. These
 * wrappers call nn_blas_init first when needed. */

/* Row-major C (m, n) = alpha * op(A) @ op(B) + beta * C, as cblas_sgemm. */
void _nn_sgemm (int trans_a, int trans_b, int m, int n, int k, float alpha,
                const float *a, int lda, const float *b, int ldb, float beta,
                float *c, int ldc);

/* Whether OpenBLAS was found; when not, `reason` says why. */
bool _nn_blas_available (char *reason, size_t reason_size);

/* Name of the OpenBLAS core in use ("SkylakeX"), or "" when not loaded. */
const char *_nn_blas_core (void);

/* ---------------------------------------------------------------- step time */

/* nn-breakdown.c: where a training step's time goes. The training thread
 * points _nn_step_clock at its run's clock for the steps it measures (NULL
 * otherwise, and on every other thread, so the pool's workers and a second
 * run's thread count nothing). The clock is always in one part; a switch
 * reads the time once, adds the time since the last switch to the part it
 * leaves and enters the next. Switches nest: _nn_clock_enter returns the
 * part to go back to, _nn_clock_leave goes back to it.
 *
 * The switches read the processor's time-stamp counter where it has one,
 * and _nn_clock_stop turns the counts into seconds by the monotonic clock
 * read at the window's two ends: on a virtual machine one counter read took
 * 66 ns against clock_gettime's 192 (a 2-core KVM guest), and mlp-small's
 * step of 200 us makes about 50 switches. Elsewhere the switches read the
 * monotonic clock. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t
_nn_clock_ticks (void)
{
  return __rdtsc ();
}
#else
static inline uint64_t
_nn_clock_ticks (void)
{
  return (uint64_t) (_nn_now () * 1e9);
}
#endif

typedef struct
{
  uint64_t ticks[NN_BREAKDOWN_PARTS]; /* counts in each part so far */
  uint64_t mark;                      /* the count at the last switch */
  int part;                           /* the part the thread is in now */
  uint64_t start_ticks;               /* the window's start, */
  double start_seconds;               /* on both clocks */
  double seconds[NN_BREAKDOWN_PARTS]; /* each part's time, and */
  double window_seconds;              /* their sum, set by _nn_clock_stop */
} NnStepClock;

extern _Thread_local NnStepClock *_nn_step_clock;

static inline int
_nn_clock_switch (NnStepClock *c, int part)
{
  uint64_t now = _nn_clock_ticks ();
  int from = c->part;
  c->ticks[from] += now - c->mark;
  c->mark = now;
  c->part = part;
  return from;
}

/* -1: no clock on this thread (nothing to go back to). */
static inline int
_nn_clock_enter (int part)
{
  NnStepClock *c = _nn_step_clock;
  return c != NULL ? _nn_clock_switch (c, part) : -1;
}

/* As _nn_clock_enter, but only from `from`: a loop inside a matrix product
 * stays the product's time. Returns -1 when it did not switch. */
static inline int
_nn_clock_enter_from (int from, int part)
{
  NnStepClock *c = _nn_step_clock;
  return c != NULL && c->part == from ? _nn_clock_switch (c, part) : -1;
}

static inline void
_nn_clock_leave (int back)
{
  NnStepClock *c = _nn_step_clock;
  if (back >= 0 && c != NULL)
    _nn_clock_switch (c, back);
}

/* Starts a window of measuring on this thread in `part`, every part at 0. */
void _nn_clock_start (NnStepClock *clock, int part);
/* Ends the window: the current part's time added, clock->seconds and
 * clock->window_seconds (the window's wall time, which the parts add up to)
 * set. */
void _nn_clock_stop (NnStepClock *clock);
/* How many times any thread has started measuring (a run with its
 * breakdown off starts none): what the tests check "off" by. */
uint64_t _nn_clock_starts (void);

/* Threads the engine's own loops use (set by nn_threads_set). */
int32_t _nn_threads (void);

/* nn-parallel.c: the thread pool every CPU loop runs on. _nn_parallel runs
 * fn (data, part, parts) once for each part in [0, parts), spread over the
 * caller and the pool's workers in no fixed order, and returns when all
 * have run. A part's work must depend only on its number (so the bits do
 * not depend on the scheduler); parts run at the same time must not write
 * the same memory. More parts than NN_PARALLEL_MAX_PARTS, one thread, or a
 * call from inside a part: the parts run one after another on the caller. */
#define NN_PARALLEL_MAX_PARTS 4095
typedef void (*NnPartFunc) (void *data, int part, int parts);
void _nn_parallel (int parts, NnPartFunc fn, void *data);
/* The same on at most `threads` threads (thread t takes parts
 * [parts t / T, parts (t + 1) / T) first, T = min (parts, threads)). */
void _nn_parallel_on (int threads, int parts, NnPartFunc fn, void *data);

/* Whether this thread is inside a part (nested calls run serially). */
bool _nn_parallel_inside (void);

/* Part `part` of `parts` of count items, [*lo, *hi), cut at multiples of
 * `align` items (16 floats: whole cache lines); empty for late parts when
 * there are fewer units than parts. */
static inline void
_nn_part_range (size_t count, size_t align, int part, int parts, size_t *lo, size_t *hi)
{
  size_t units = (count + align - 1) / align;
  size_t a = units * (size_t) part / (size_t) parts * align;
  size_t b = units * (size_t) (part + 1) / (size_t) parts * align;
  *lo = a < count ? a : count;
  *hi = b < count ? b : count;
}

/* fn (data, lo, hi) over `parts` ranges of count items as _nn_part_range
 * cuts them (empty ones skipped); on the caller alone when parts <= 1. */
typedef void (*NnRangeFunc) (void *data, size_t lo, size_t hi);
void _nn_parallel_range (size_t count, size_t align, int parts, NnRangeFunc fn, void *data);

/* For nn_system_info: BLAS name ("OpenBLAS" or "none (built-in fallback)"),
 * version ("0.3.21"), core ("SkylakeX"), and a note ("" when all is well).
 * Any pointer may be NULL. */
void _nn_blas_info (char *name, size_t name_size,
                    char *version, size_t version_size,
                    char *core, size_t core_size,
                    char *note, size_t note_size);

/* Threads OpenBLAS uses now (the engine's count without OpenBLAS). */
int32_t _nn_blas_threads (void);

/* One point of a sweep as its ETA sees it. */
typedef struct
{
  double work;     /* the units its time is fitted to (> 0) */
  int32_t device;  /* the sweep's device index, below NN_SWEEP_DEVICES_MAX */
  bool done;       /* ran to the end, in `seconds` */
  bool left;       /* still to run */
  double seconds;
} NnSweepEtaPoint;

/* Seconds the points left still need, from the points done; -1 while the
 * points done do not yet have two different works. In nn-sweep.c. */
double _nn_sweep_eta (const NnSweepEtaPoint *points, int32_t count);
