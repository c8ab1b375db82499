/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-parallel.c: the engine's thread pool, on which every CPU loop runs.
 *
 * A parallel call cuts its work into `parts` numbered parts and returns
 * when every part has run. Each thread first takes the parts a static split
 * would give it (so a loop finds in its core's cache what the loop before
 * left there), then any part nobody has taken yet; taking a part is one
 * compare-and-swap. The caller waits only for parts already taken, so a
 * worker that the system has descheduled (another program is busy on its
 * core) holds up nothing: the others do its parts. With OpenMP's static
 * teams every join waited for every thread, and libgomp's threads spin
 * 300,000 rounds (GOMP_SPINCOUNT's default) before sleeping, on the cores
 * the descheduled thread needed. On a 2-core machine beside two busy
 * processes, 2 threads, the medians of three rounds took 2.0-2.2x their
 * idle time with this pool, against 2.5-9x with OpenMP (one mlp-small
 * round 95x), and PyTorch's 3.2-12x (bench/results/
 * local2core-cpu-busy-2026-12-02.md, bench/busy-bench.py). Under wine the
 * Windows build now trains within 4 % of Linux at 2 threads as at 1
 * (bench/results/local2core-avx512-windows-wine-cpu-2026-12-02.md), where
 * with OpenMP mlp-small at 2 threads took 2.26x Linux's time (an AVX2
 * machine, bench/results/local2core-windows-wine-cpu-2026-12-02.md).
 *
 * Which thread runs a part never changes what it computes: a part's range
 * and its slot in any partial sums come from its number, so the same thread
 * count gives the same bits whatever the scheduler does.
 *
 * Waiting: a worker spins for a short while after a call (the next one
 * usually follows within microseconds), then sleeps on a futex of its own
 * (WaitOnAddress on Windows) until a call has a share for it. The caller
 * waits for taken parts the same way, spinning longer. One call at a time
 * uses the pool; a second thread calling meanwhile, or a part calling
 * again, runs its parts itself.
 *
 * Beside other busy programs, two things keep the joins short (see
 * YIELD_AFTER_SECONDS and JOIN_SPIN_SECONDS): a worker that has run a
 * while offers its core between two parts, where it holds none, rather
 * than lose it in the middle of one; and the caller does not give its core
 * away at a join that will end soon.
 */

#include "nn-private.h"
#include "nn-os.h"

#include <stdint.h>

#if defined(__SSE__) || defined(_M_X64)
#include <xmmintrin.h>
#define NN_HAVE_MXCSR 1
#define cpu_relax() _mm_pause ()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ volatile ("yield")
#else
#define cpu_relax() ((void) 0)
#endif

/* How long a waiting worker spins before it sleeps. Long enough to span
 * the gap between one call and the next inside a training step (a few
 * microseconds of serial code), short enough that a thread whose core is
 * shared with another program gives it back soon: 300 us made mlp-wide
 * slower beside busy programs (bench/results/h100host-cpu-busy-2026-12-06.md). */
#define SPIN_SECONDS 50e-6

/* How long the caller spins at a join before it sleeps. A caller that
 * sleeps may give its core to whatever else is runnable there for that
 * program's whole time slice (Linux's default base slice, 0.75 ms times
 * 1 + log2 of the CPU count up to 8: 3 ms on 8 cores and more), and no step
 * goes on before it is back, where the parts it waits for are shorter than
 * that (mlp-wide's whole step takes about 1 ms at 16 threads: 0.63 s for
 * 600 steps in bench/results/h100host-cpu-busy-2026-12-06.md). */
#define JOIN_SPIN_SECONDS 1e-3

/* A worker that has run this long since it last slept offers its core
 * (_nn_os_yield) after finishing a part, before it takes the next, so that
 * the core's other program gets its turn where this thread holds no part
 * rather than wherever the scheduler's tick finds it, possibly in the
 * middle of one, which every other thread would then wait for at the join. Where nothing else
 * wants the core the offer returns at once (one system call a
 * millisecond). With this and JOIN_SPIN_SECONDS, 16 threads beside 16
 * busy programs on the GPU machine's 16-core host trained mlp-wide's 600
 * steps in 1.55 s against 1.66 s without (medians of 14 rounds: 2.43x and
 * 2.65x the idle time, which did not change), the cnn's 40 in 2.75 s
 * against 2.97 s, and mlp-small as fast as before (0.63 s). Either one
 * alone changed nothing measurable, and offering after 0.3 ms made
 * mlp-wide much slower (2.8 s against 1.9 s):
 * bench/results/h100host-cpu-busy-2026-12-06.md. */
#define YIELD_AFTER_SECONDS 1e-3

/* The call word: the call's number (40 bits), the thread count it may use
 * (12) and its number of parts (12), published together, so a worker reads
 * one consistent call. Numbers only grow: 2^40 calls is months of training. */
#define CALL_WORD(call, threads, parts) \
  (((uint64_t) (call) << 24) | ((uint64_t) (threads) << 12) | (uint64_t) (parts))
#define WORD_CALL(w) ((w) >> 24)
#define WORD_THREADS(w) ((int) (((w) >> 12) & 0xfff))
#define WORD_PARTS(w) ((int) ((w) & 0xfff))

/* One worker's place: it sleeps on `wake`, which the caller bumps. */
typedef struct
{
  uint32_t wake;
  uint32_t sleeping;     /* 1 while it sleeps or is about to */
  char pad[56];          /* one cache line each */
} Worker;

static struct
{
  NnOsMutex lock;        /* held by the thread whose call is using the pool */
  NnOsMutex grow;        /* held while workers are started */
  int workers;           /* started so far */
  bool cannot_grow;      /* the OS refused a thread: stay at `workers` */

  uint64_t word;         /* CALL_WORD () of the latest call */
  uint32_t done;         /* parts finished: the futex the caller sleeps on */
  uint32_t caller_sleeps; /* 1 while the caller sleeps on `done` */

  /* the call's function and data, written before `word` is published and
   * read only after a part was taken */
  NnPartFunc fn;
  void *data;
  unsigned mxcsr;        /* the caller's floating-point mode (flush-to-zero) */

  /* part p was taken by call claimed[p] (or an earlier call's number: free) */
  uint64_t claimed[NN_PARALLEL_MAX_PARTS];
  Worker worker[NN_THREADS_MAX]; /* [0] is the caller's place, unused */
} pool = { .lock = NN_OS_MUTEX_INIT, .grow = NN_OS_MUTEX_INIT };

/* Whether this thread is running a part: a call from there runs its parts
 * on the spot. */
static _Thread_local bool inside;

/* A worker's clock: when it last woke from sleep or offered its core. */
static _Thread_local double running_since;

bool
_nn_parallel_inside (void)
{
  return inside;
}

/* Take part p for `call`: false when another thread has it. A thread still
 * holding an older call's word can take nothing of a newer one, because
 * every part of its own call was taken before that call ended. */
static bool
take (int p, uint64_t call)
{
  uint64_t v = __atomic_load_n (&pool.claimed[p], __ATOMIC_RELAXED);
  while (v < call)
    if (__atomic_compare_exchange_n (&pool.claimed[p], &v, call, true, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
      return true;
  return false;
}

/* After a worker's part: offer the core when it has run long enough (see
 * YIELD_AFTER_SECONDS). The caller never offers it: every thread would
 * wait for its return. */
static void
offer_core (int slot)
{
  if (slot == 0)
    return;
  if (_nn_now () - running_since > YIELD_AFTER_SECONDS)
    {
      _nn_os_yield ();
      running_since = _nn_now ();
    }
}

static void
run_part (int p, int parts)
{
  /* The call cannot end before this part is done, so its function and
   * data stay as the caller wrote them. */
#ifdef NN_HAVE_MXCSR
  if (_mm_getcsr () != pool.mxcsr)
    _mm_setcsr (pool.mxcsr);
#endif
  pool.fn (pool.data, p, parts);
  if (__atomic_add_fetch (&pool.done, 1, __ATOMIC_SEQ_CST) == (uint32_t) parts
      && __atomic_load_n (&pool.caller_sleeps, __ATOMIC_SEQ_CST))
    _nn_os_wake (&pool.done, 1);
}

/* The parts of the call in `word` that thread `slot` (0: the caller) runs:
 * first its own share, the parts a static split would give it (so a loop
 * finds in its core's cache what the loop before left there: the optimizer
 * reads the slab of weights whose gradient this thread wrote), then
 * whatever the others have not taken yet, from the back of their shares. */
static void
run_call (uint64_t word, int slot)
{
  uint64_t call = WORD_CALL (word);
  int threads = WORD_THREADS (word), parts = WORD_PARTS (word);
  if (slot >= threads)
    return;
  int team = parts < threads ? parts : threads;
  int lo = 0, hi = 0;
  if (slot < team)
    {
      lo = (int) ((long) parts * slot / team);
      hi = (int) ((long) parts * (slot + 1) / team);
    }
  for (int p = lo; p < hi; p++)
    if (take (p, call))
      {
        run_part (p, parts);
        offer_core (slot);
      }
  for (int p = parts - 1; p >= 0; p--)
    if ((p < lo || p >= hi) && take (p, call))
      {
        run_part (p, parts);
        offer_core (slot);
      }
}

static void
worker_main (void *arg)
{
  int slot = (int) (intptr_t) arg;
  Worker *me = &pool.worker[slot];
  inside = true;
  running_since = _nn_now ();
  uint64_t seen = WORD_CALL (__atomic_load_n (&pool.word, __ATOMIC_ACQUIRE));
  for (;;)
    {
      uint64_t word = __atomic_load_n (&pool.word, __ATOMIC_ACQUIRE);
      if (WORD_CALL (word) == seen)
        {
          double until = _nn_now () + SPIN_SECONDS;
          for (int i = 0; WORD_CALL (word) == seen; i++)
            {
              cpu_relax ();
              word = __atomic_load_n (&pool.word, __ATOMIC_ACQUIRE);
              if ((i & 63) == 63 && _nn_now () > until)
                break;
            }
        }
      while (WORD_CALL (word) == seen)
        {
          uint32_t wake = __atomic_load_n (&me->wake, __ATOMIC_SEQ_CST);
          __atomic_store_n (&me->sleeping, 1, __ATOMIC_SEQ_CST);
          word = __atomic_load_n (&pool.word, __ATOMIC_SEQ_CST);
          if (WORD_CALL (word) == seen)
            {
              _nn_os_wait (&me->wake, wake);
              running_since = _nn_now ();
            }
          __atomic_store_n (&me->sleeping, 0, __ATOMIC_SEQ_CST);
          word = __atomic_load_n (&pool.word, __ATOMIC_ACQUIRE);
        }
      seen = WORD_CALL (word);
      run_call (word, slot);
    }
}

/* Start workers until there are `want` (the engine's thread count less the
 * caller). */
static void
grow (int want)
{
  _nn_os_mutex_lock (&pool.grow);
  if (want > NN_THREADS_MAX - 1)
    want = NN_THREADS_MAX - 1;
  while (!pool.cannot_grow && pool.workers < want)
    {
      if (!_nn_os_thread_start (worker_main, (void *) (intptr_t) (pool.workers + 1)))
        __atomic_store_n (&pool.cannot_grow, true, __ATOMIC_RELEASE);
      else
        __atomic_store_n (&pool.workers, pool.workers + 1, __ATOMIC_RELEASE);
    }
  _nn_os_mutex_unlock (&pool.grow);
}

/* Wait until `parts` parts are done: spin a while, then sleep. The time
 * from here on is the step's "join_wait": the caller's own share (and any
 * part it took from the others) is done, the others' are not. `last`: the
 * call ends with this wait, so the switch back is the call's own (one
 * clock read less). */
static void
wait_done (int parts, bool last)
{
  uint32_t done = __atomic_load_n (&pool.done, __ATOMIC_ACQUIRE);
  if (done == (uint32_t) parts)
    return;
  int back = _nn_clock_enter (NN_BREAKDOWN_JOIN_WAIT);
  if (last)
    back = -1;
  double until = _nn_now () + JOIN_SPIN_SECONDS;
  for (int i = 0; done != (uint32_t) parts; i++)
    {
      cpu_relax ();
      done = __atomic_load_n (&pool.done, __ATOMIC_ACQUIRE);
      if ((i & 63) == 63 && _nn_now () > until)
        break;
    }
  while (done != (uint32_t) parts)
    {
      __atomic_store_n (&pool.caller_sleeps, 1, __ATOMIC_SEQ_CST);
      done = __atomic_load_n (&pool.done, __ATOMIC_SEQ_CST);
      if (done != (uint32_t) parts)
        _nn_os_wait (&pool.done, done);
      __atomic_store_n (&pool.caller_sleeps, 0, __ATOMIC_SEQ_CST);
      done = __atomic_load_n (&pool.done, __ATOMIC_ACQUIRE);
    }
  _nn_clock_leave (back);
}

/* The parts one after another on the calling thread. A part that calls
 * again may still use the pool (a convolution with one part splits its
 * matrix products). */
static void
run_here (int parts, NnPartFunc fn, void *data)
{
  for (int part = 0; part < parts; part++)
    fn (data, part, parts);
}

void
_nn_parallel (int parts, NnPartFunc fn, void *data)
{
  _nn_parallel_on (_nn_threads (), parts, fn, data);
}

/* A call made from the trainer's serial code is the step's "loops" part;
 * one inside a matrix product stays the product's (_nn_clock_enter_from). */
static void parallel_on (int threads, int parts, NnPartFunc fn, void *data, bool timed);

void
_nn_parallel_on (int threads, int parts, NnPartFunc fn, void *data)
{
  if (parts <= 0)
    return;
  int back = _nn_clock_enter_from (NN_BREAKDOWN_HOST, NN_BREAKDOWN_LOOPS);
  parallel_on (threads, parts, fn, data, back >= 0);
  _nn_clock_leave (back);
}

/* `timed`: this call switched the clock to "loops" and switches it back. */
static void
parallel_on (int threads, int parts, NnPartFunc fn, void *data, bool timed)
{
  if (threads > _nn_threads ())
    threads = _nn_threads ();
  if (parts == 1 || threads <= 1 || inside || parts > NN_PARALLEL_MAX_PARTS)
    {
      run_here (parts, fn, data);
      return;
    }
  int workers = __atomic_load_n (&pool.workers, __ATOMIC_ACQUIRE);
  if (workers < threads - 1 && !__atomic_load_n (&pool.cannot_grow, __ATOMIC_ACQUIRE))
    {
      grow (threads - 1);
      workers = __atomic_load_n (&pool.workers, __ATOMIC_ACQUIRE);
    }
  if (threads > workers + 1)
    threads = workers + 1;
  /* Another thread's call holds the pool (the app's second run, say):
   * this one runs on its own thread rather than wait for it. */
  if (workers == 0 || !_nn_os_mutex_trylock (&pool.lock))
    {
      run_here (parts, fn, data);
      return;
    }

  pool.fn = fn;
  pool.data = data;
#ifdef NN_HAVE_MXCSR
  pool.mxcsr = _mm_getcsr ();
#endif
  __atomic_store_n (&pool.done, 0, __ATOMIC_RELAXED);
  uint64_t call = WORD_CALL (__atomic_load_n (&pool.word, __ATOMIC_RELAXED)) + 1;
  uint64_t word = CALL_WORD (call, threads, parts);
  __atomic_store_n (&pool.word, word, __ATOMIC_SEQ_CST);
  /* Wake the sleeping workers that have a share of this call; the others,
   * and the ones still spinning, find it on their own. */
  int team = parts < threads ? parts : threads;
  for (int slot = 1; slot < team; slot++)
    {
      Worker *w = &pool.worker[slot];
      if (__atomic_load_n (&w->sleeping, __ATOMIC_SEQ_CST))
        {
          __atomic_add_fetch (&w->wake, 1, __ATOMIC_SEQ_CST);
          _nn_os_wake (&w->wake, 1);
        }
    }
  inside = true;
  run_call (word, 0);
  inside = false;
  wait_done (parts, timed);
  _nn_os_mutex_unlock (&pool.lock);
}

/* ---------------------------------------------------------------- ranges */

typedef struct
{
  size_t count, align;
  NnRangeFunc fn;
  void *data;
} RangeCall;

static void
range_piece (void *data, int part, int parts)
{
  const RangeCall *r = data;
  size_t lo, hi;
  _nn_part_range (r->count, r->align, part, parts, &lo, &hi);
  if (hi > lo)
    r->fn (r->data, lo, hi);
}

void
_nn_parallel_range (size_t count, size_t align, int parts, NnRangeFunc fn, void *data)
{
  if (count == 0)
    return;
  if (parts <= 1 || count == 1)
    {
      int back = _nn_clock_enter_from (NN_BREAKDOWN_HOST, NN_BREAKDOWN_LOOPS);
      fn (data, 0, count);
      _nn_clock_leave (back);
      return;
    }
  RangeCall r = { count, align, fn, data };
  _nn_parallel (parts, range_piece, &r);
}
