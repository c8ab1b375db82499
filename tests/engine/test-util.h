/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-util.h: a tiny TAP producer and helpers for the engine tests.
 *
 * Each test program calls tap_ok/tap_check for every check and ends with
 * `return tap_done ();`, which prints the plan and returns the exit status.
 */
#pragma once

#include "trainbench.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__MINGW32__)
/* mingw's C99 stdio (%zu), which -std=c11 selects */
#define TEST_PRINTF(f, a) __attribute__ ((format (__MINGW_PRINTF_FORMAT, f, a)))
#else
#define TEST_PRINTF(f, a) __attribute__ ((format (printf, f, a)))
#endif

/* One check. Returns `ok` so callers can stop early. */
bool tap_ok (bool ok, const char *format, ...) TEST_PRINTF (2, 3);

/* A diagnostic line ("# ..."). */
void tap_diag (const char *format, ...) TEST_PRINTF (1, 2);

/* A check that is skipped, with the reason. */
void tap_skip (const char *reason, const char *format, ...) TEST_PRINTF (2, 3);

/* Prints the plan; returns 0 when every check passed, 1 otherwise. */
int tap_done (void);

/* Check two floats agree: |a - b| <= atol + rtol * |b|. */
bool tap_close (double a, double b, double rtol, double atol, const char *format, ...)
  TEST_PRINTF (5, 6);

/* A run's breakdown holds its steps: the parts add up to the measured
 * windows by construction, so what is checked is that the windows' time
 * is most of the training time the epochs record (which also holds the
 * progress reports between windows), and never more. One check, named
 * `name`. */
bool tap_windows_hold_steps (const char *name, const NnRunResult *r);

/* ---------------------------------------------------------------- the system
 *
 * The same on POSIX and Windows, with UTF-8 paths and values everywhere:
 * tests open, list and remove files by names such as 张伟 with these,
 * independent of the engine's own OS layer they check. */

/* The separator the test builds paths with, the system's own. */
#ifdef _WIN32
#define TEST_SEP "\\"
#else
#define TEST_SEP "/"
#endif

/* Set a variable for this process and its children; NULL removes it. */
void test_setenv (const char *name, const char *value);

/* A variable's value (a static buffer, valid until the next call), NULL
 * when unset. */
const char *test_getenv (const char *name);

/* A fresh temporary folder for this test (removed by tap_done unless
 * KEEP_TEST_FILES is set). Returns a path valid until tap_done. */
const char *test_tmpdir (void);

/* path = test_tmpdir() + TEST_SEP + name, in a static rotating buffer;
 * '/' in `name` becomes TEST_SEP. */
const char *test_path (const char *name);

/* Point HOME, XDG_DATA_HOME, LOCALAPPDATA and USERPROFILE into the test's
 * folder (home/, home/xdg, home/local, home), so nothing the test does
 * reaches the user's real data folders; call before the engine looks. */
void test_isolate_home (void);

/* fopen by UTF-8 path. */
FILE *test_fopen (const char *path, const char *mode);

/* Make one folder; true when it exists afterwards. */
bool test_make_folder (const char *path);

/* Whether something is at `path`; whether it is a folder. */
bool test_exists (const char *path);
bool test_is_folder (const char *path);

/* How many names in folder `dir` contain `part`; -1 when it cannot be read. */
int test_count_names (const char *dir, const char *part);

/* Write `size` bytes to path; returns false on failure. */
bool test_write_file (const char *path, const void *data, size_t size);

/* Read a whole file (caller frees); NULL on failure. */
char *test_read_file (const char *path, size_t *size);

/* Sleep about `seconds`. */
void test_sleep (double seconds);

/* Whether this Windows program runs under wine (ntdll has
 * wine_get_version); false on every other system. */
bool test_under_wine (void);

/* ---------------------------------------------------------------- child processes
 *
 * A case that needs a process of its own (the engine keeps some answers,
 * the CUDA loader's and OpenBLAS', for the life of the process) runs in the
 * test program started again with "--child NAME ARG": fork and exec on
 * POSIX, CreateProcessW on Windows. The child prints its report on stdout
 * and returns its exit status. */

typedef int (*TestChildFunc) (const char *arg);

typedef struct
{
  const char *name;
  TestChildFunc run;
} TestChildCase;

/* First thing in main: when this process is such a child, run its case
 * from `cases` (terminated by a NULL name) and exit with its status. */
void test_child_main (int argc, char **argv, const TestChildCase *cases);

/* Run case `name` with `arg` in a child and wait for it. Its stdout goes
 * into `out` (at most out_size - 1 bytes, NUL-terminated). Returns its exit
 * status, -1 when it could not start or died of a signal. */
int test_child_run (const char *name, const char *arg, char *out, size_t out_size);

/* The same in `program`, a copy of this test program elsewhere (made by
 * test_copy_program), which finds itself there as the running program. */
int test_child_run_program (const char *program, const char *name, const char *arg, char *out,
                            size_t out_size);

/* Copy this test program's file to `to` (executable): it runs there as it
 * does here (the test programs carry their libraries). */
bool test_copy_program (const char *to);

/* Run `count` children of case `name` at the same time, child i with
 * args[i], and wait for all of them; child i's stdout goes into outs[i]
 * (out_size bytes each; each child should print less than 64 KiB) and its
 * exit status into statuses[i] (-1 when it could not start or died of a
 * signal). */
void test_children_run (int count, const char *name, const char *const *args, char **outs,
                        size_t out_size, int *statuses);

/* A synthetic data set: `classes` classes of (c, h, w) images, each class a
 * bright blob in its own place plus noise, so a small model learns it fast.
 * Deterministic from seed. */
NnDataset *test_make_dataset (int32_t train, int32_t test, int32_t classes,
                              int32_t c, int32_t h, int32_t w, uint64_t seed);

/* A uniform random float in [lo, hi) from a simple per-call-site state. */
float test_randf (uint64_t *state, float lo, float hi);
