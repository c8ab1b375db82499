/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-parallel.c: the engine's thread pool (nn-parallel.c).
 *
 * Every part of every call runs exactly once, on no more threads than
 * asked; calls from inside a part and from a second thread at the same
 * time complete; parts run with the caller's floating-point mode; ranges
 * cover their items exactly once; and a long run of tiny calls, where a
 * worker that wakes late must never take a part of a newer call, neither
 * hangs nor loses a part.
 */

#include "test-util.h"
#include "nn-os.h"
#include "nn-private.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE__) || defined(_M_X64)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

enum { MAX_PARTS = NN_PARALLEL_MAX_PARTS };

/* This thread, as an address only it has. */
static _Thread_local char thread_mark;

typedef struct
{
  uint32_t runs[MAX_PARTS + 1];
  int parts_seen_wrong;
  const void *threads[64];
  int thread_count;
  NnOsMutex lock;
} Counts;

static void
record_thread (Counts *c)
{
  _nn_os_mutex_lock (&c->lock);
  bool known = false;
  for (int i = 0; i < c->thread_count; i++)
    known |= c->threads[i] == (const void *) &thread_mark;
  if (!known && c->thread_count < 64)
    c->threads[c->thread_count++] = &thread_mark;
  _nn_os_mutex_unlock (&c->lock);
}

typedef struct
{
  Counts *counts;
  int parts;
} CountCall;

static void
count_part (void *data, int part, int parts)
{
  CountCall *call = data;
  if (parts != call->parts || part < 0 || part >= parts)
    __atomic_add_fetch (&call->counts->parts_seen_wrong, 1, __ATOMIC_RELAXED);
  else
    __atomic_add_fetch (&call->counts->runs[part], 1, __ATOMIC_RELAXED);
  record_thread (call->counts);
}

static Counts *
counts_new (void)
{
  Counts *c = calloc (1, sizeof *c);
  NnOsMutex init = NN_OS_MUTEX_INIT;
  c->lock = init;
  return c;
}

/* Whether each of the first `parts` parts ran `times` times. */
static bool
all_ran (const Counts *c, int parts, uint32_t times)
{
  for (int p = 0; p < parts; p++)
    if (c->runs[p] != times)
      {
        tap_diag ("part %d of %d ran %u times, not %u", p, parts, c->runs[p], times);
        return false;
      }
  return c->parts_seen_wrong == 0;
}

static void
test_every_part_once (void)
{
  static const int sizes[] = { 2, 3, 4, 7, 16, 100, 1000, MAX_PARTS };
  nn_threads_set (4);
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    {
      Counts *c = counts_new ();
      CountCall call = { c, sizes[i] };
      for (int r = 0; r < 50; r++)
        _nn_parallel (sizes[i], count_part, &call);
      tap_ok (all_ran (c, sizes[i], 50), "4 threads, %d parts: each part ran once per call",
              sizes[i]);
      tap_ok (c->thread_count <= 4, "4 threads, %d parts: on %d threads", sizes[i],
              c->thread_count);
      free (c);
    }
}

static void
test_thread_limits (void)
{
  nn_threads_set (4);
  Counts *c = counts_new ();
  CountCall call = { c, 64 };
  for (int r = 0; r < 200; r++)
    _nn_parallel_on (2, 64, count_part, &call);
  tap_ok (all_ran (c, 64, 200), "at most 2 of 4 threads: every part ran");
  tap_ok (c->thread_count <= 2, "at most 2 of 4 threads: on %d threads", c->thread_count);
  free (c);

  nn_threads_set (1);
  c = counts_new ();
  call.counts = c;
  _nn_parallel (64, count_part, &call);
  tap_ok (all_ran (c, 64, 1) && c->thread_count == 1
          && c->threads[0] == (const void *) &thread_mark,
          "1 thread: every part on the calling thread");
  free (c);

  /* back up again: the pool keeps its workers and uses them again */
  nn_threads_set (3);
  c = counts_new ();
  call.counts = c;
  call.parts = 9;
  for (int r = 0; r < 200; r++)
    _nn_parallel (9, count_part, &call);
  tap_ok (all_ran (c, 9, 200) && c->thread_count <= 3,
          "3 threads after 1: every part ran, on %d threads", c->thread_count);
  free (c);

  /* more parts than the pool takes: one after another on the caller */
  nn_threads_set (2);
  c = counts_new ();
  call.counts = c;
  call.parts = MAX_PARTS + 1;
  _nn_parallel (MAX_PARTS + 1, count_part, &call);
  tap_ok (c->parts_seen_wrong == 0 && c->thread_count == 1,
          "%d parts: all on the calling thread", MAX_PARTS + 1);
  free (c);
}

/* A part that makes a call of its own: that call runs on the same thread. */
typedef struct
{
  Counts *outer, *inner;
  int bad_inner_thread;
} NestedCall;

static void
inner_part (void *data, int part, int parts)
{
  NestedCall *n = data;
  __atomic_add_fetch (&n->inner->runs[part], 1, __ATOMIC_RELAXED);
}

typedef struct
{
  NestedCall *n;
  const void *thread;
} InnerCheck;

static void
inner_check_part (void *data, int part, int parts)
{
  InnerCheck *check = data;
  if (check->thread != (const void *) &thread_mark)
    __atomic_add_fetch (&check->n->bad_inner_thread, 1, __ATOMIC_RELAXED);
  inner_part (check->n, part, parts);
}

static void
outer_part (void *data, int part, int parts)
{
  NestedCall *n = data;
  __atomic_add_fetch (&n->outer->runs[part], 1, __ATOMIC_RELAXED);
  if (!_nn_parallel_inside ())
    __atomic_add_fetch (&n->bad_inner_thread, 1, __ATOMIC_RELAXED);
  InnerCheck check = { n, &thread_mark };
  _nn_parallel (8, inner_check_part, &check);
}

static void
test_nested (void)
{
  nn_threads_set (4);
  NestedCall n = { counts_new (), counts_new (), 0 };
  _nn_parallel (6, outer_part, &n);
  tap_ok (all_ran (n.outer, 6, 1), "nested: every outer part ran once");
  tap_ok (all_ran (n.inner, 8, 6), "nested: every inner part ran once per outer part");
  tap_ok (n.bad_inner_thread == 0, "nested: inner parts ran on their outer part's thread");
  tap_ok (!_nn_parallel_inside (), "the caller is outside a part again");
  free (n.outer);
  free (n.inner);
}

/* Two threads calling at the same time. */
typedef struct
{
  Counts *counts;
  int calls;
  uint32_t finished;
} Caller;

static void
caller_main (void *data)
{
  Caller *c = data;
  CountCall call = { c->counts, 5 };
  for (int r = 0; r < c->calls; r++)
    _nn_parallel (5, count_part, &call);
  __atomic_store_n (&c->finished, 1, __ATOMIC_SEQ_CST);
  _nn_os_wake (&c->finished, INT32_MAX);
}

static void
test_two_callers (void)
{
  nn_threads_set (3);
  Caller other = { counts_new (), 3000, 0 };
  Counts *mine = counts_new ();
  CountCall call = { mine, 5 };
  bool started = _nn_os_thread_start (caller_main, &other);
  tap_ok (started, "a second calling thread starts");
  for (int r = 0; r < 3000; r++)
    _nn_parallel (5, count_part, &call);
  if (started)
    while (__atomic_load_n (&other.finished, __ATOMIC_SEQ_CST) == 0)
      _nn_os_wait (&other.finished, 0);
  tap_ok (all_ran (mine, 5, 3000), "two callers: this thread's parts each ran once per call");
  tap_ok (started && all_ran (other.counts, 5, 3000),
          "two callers: the other thread's parts each ran once per call");
  free (mine);
  free (other.counts);
}

/* Many tiny calls in a row, of changing sizes: a worker that wakes late
 * must find nothing of an older call to take, and nothing is run twice. */
typedef struct
{
  uint32_t *runs;    /* (calls, max parts) */
  int call;
  int parts;
  int wrong;
} TinyCall;

static void
tiny_part (void *data, int part, int parts)
{
  TinyCall *t = data;
  if (parts != t->parts)
    __atomic_add_fetch (&t->wrong, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch (&t->runs[(size_t) t->call * 8 + part], 1, __ATOMIC_RELAXED);
}

static void
test_many_tiny_calls (void)
{
  enum { CALLS = 100000 };
  nn_threads_set (4);
  uint32_t *runs = calloc ((size_t) CALLS * 8, sizeof *runs);
  TinyCall t = { runs, 0, 2, 0 };
  int bad = 0;
  for (int i = 0; i < CALLS; i++)
    {
      t.call = i;
      t.parts = 2 + i % 7;
      _nn_parallel (t.parts, tiny_part, &t);
    }
  for (int i = 0; i < CALLS && bad < 5; i++)
    for (int p = 0; p < 8; p++)
      if (runs[(size_t) i * 8 + p] != (p < 2 + i % 7 ? 1u : 0u))
        {
          tap_diag ("call %d part %d ran %u times", i, p, runs[(size_t) i * 8 + p]);
          bad++;
        }
  tap_ok (bad == 0 && t.wrong == 0, "%d calls of 2 to 8 parts: every part once, no other",
          CALLS);
  free (runs);
}

#ifdef HAVE_MXCSR
typedef struct
{
  volatile float tiny;
  uint32_t not_flushed;
} FlushCall;

static void
flush_part (void *data, int part, int parts)
{
  FlushCall *f = data;
  volatile float half = f->tiny * 0.5f; /* a denormal unless flushed */
  if (half != 0.0f)
    __atomic_add_fetch (&f->not_flushed, 1, __ATOMIC_RELAXED);
}
#endif

static void
test_float_mode (void)
{
#ifdef HAVE_MXCSR
  nn_threads_set (4);
  unsigned saved = _mm_getcsr ();
  FlushCall f = { 1.5e-38f, 0 };
  _mm_setcsr (saved | 0x8040); /* flush-to-zero and denormals-are-zero */
  for (int r = 0; r < 100; r++)
    _nn_parallel (16, flush_part, &f);
  _mm_setcsr (saved & ~0x8040u);
  tap_ok (f.not_flushed == 0, "parts run with the caller's flush-to-zero mode");
  f.not_flushed = 0;
  for (int r = 0; r < 100; r++)
    _nn_parallel (16, flush_part, &f);
  tap_ok (f.not_flushed == 1600, "and without it when the caller clears it");
  _mm_setcsr (saved);
#else
  tap_skip ("no MXCSR on this CPU", "parts run with the caller's floating-point mode");
#endif
}

/* Ranges: every item of [0, count) exactly once, cut at `align`. */
typedef struct
{
  uint8_t *seen;
  size_t align;
  int misaligned;
} RangeCheck;

static void
range_fn (void *data, size_t lo, size_t hi)
{
  RangeCheck *r = data;
  if (lo % r->align != 0 || lo >= hi)
    __atomic_add_fetch (&r->misaligned, 1, __ATOMIC_RELAXED);
  for (size_t i = lo; i < hi; i++)
    r->seen[i]++;
}

static void
test_ranges (void)
{
  static const size_t counts[] = { 1, 15, 16, 17, 1000, 100003 };
  static const int parts[] = { 1, 2, 3, 8, 64 };
  nn_threads_set (4);
  int failed = 0;
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    for (size_t j = 0; j < sizeof parts / sizeof parts[0]; j++)
      for (size_t align = 1; align <= 16; align += 15)
        {
          RangeCheck r = { calloc (counts[i], 1), align, 0 };
          _nn_parallel_range (counts[i], align, parts[j], range_fn, &r);
          bool ok = r.misaligned == 0;
          for (size_t k = 0; k < counts[i]; k++)
            ok &= r.seen[k] == 1;
          if (!ok && failed++ < 5)
            tap_diag ("%zu items in %d parts, align %zu: not each once", counts[i], parts[j],
                      align);
          free (r.seen);
        }
  tap_ok (failed == 0, "ranges cover every item exactly once, aligned, none empty");
}

int
main (void)
{
  test_every_part_once ();
  test_thread_limits ();
  test_nested ();
  test_two_callers ();
  test_many_tiny_calls ();
  test_float_mode ();
  test_ranges ();
  return tap_done ();
}
