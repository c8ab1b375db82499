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

/* One check. Returns `ok` so callers can stop early. */
bool tap_ok (bool ok, const char *format, ...) __attribute__ ((format (printf, 2, 3)));

/* A diagnostic line ("# ..."). */
void tap_diag (const char *format, ...) __attribute__ ((format (printf, 1, 2)));

/* A check that is skipped, with the reason. */
void tap_skip (const char *reason, const char *format, ...) __attribute__ ((format (printf, 2, 3)));

/* Prints the plan; returns 0 when every check passed, 1 otherwise. */
int tap_done (void);

/* Check two floats agree: |a - b| <= atol + rtol * |b|. */
bool tap_close (double a, double b, double rtol, double atol, const char *format, ...)
  __attribute__ ((format (printf, 5, 6)));

/* A fresh temporary folder for this test (removed by tap_done unless
 * KEEP_TEST_FILES is set). Returns a path valid until tap_done. */
const char *test_tmpdir (void);

/* path = test_tmpdir()/name, in a static rotating buffer. */
const char *test_path (const char *name);

/* Write `size` bytes to path; returns false on failure. */
bool test_write_file (const char *path, const void *data, size_t size);

/* Read a whole file (caller frees); NULL on failure. */
char *test_read_file (const char *path, size_t *size);

/* A synthetic data set: `classes` classes of (c, h, w) images, each class a
 * bright blob in its own place plus noise, so a small model learns it fast.
 * Deterministic from seed. */
NnDataset *test_make_dataset (int32_t train, int32_t test, int32_t classes,
                              int32_t c, int32_t h, int32_t w, uint64_t seed);

/* A uniform random float in [lo, hi) from a simple per-call-site state. */
float test_randf (uint64_t *state, float lo, float hi);
