/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-model-io.c: building models, their initial weights, predict, and the
 * weights file: round trip, and every kind of bad file giving a clear error.
 */

#define _DEFAULT_SOURCE

#include "test-util.h"
#include "nn-os.h"
#include "nn-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <sys/stat.h>
#include <unistd.h>
#endif

#define MLP "flatten; dense 8 relu; dense 4 softmax"
#define CNN "conv2d 3 3 relu padding=same; maxpool 2; dropout 0.5; flatten; dense 4"

static NnDataset *data;

static NnModel *
build (const char *text, NnInputShape input, int32_t batch, uint64_t seed)
{
  NnSpec *spec = NULL;
  NnModel *model = NULL;
  NnDeviceOptions device = { .kind = NN_DEVICE_CPU, .threads = 1 };
  NnError error;

  if (nn_spec_parse (text, &spec, &error) != NN_OK)
    {
      tap_diag ("%s: %s", text, error.message);
      return NULL;
    }
  if (nn_model_new (spec, input, batch, &device, seed, &model, &error) != NN_OK)
    tap_diag ("%s: %s", text, error.message);
  nn_spec_free (spec);
  return model;
}

static float *
predict (NnModel *model, int32_t count)
{
  NnError error;
  float *probs = calloc ((size_t) count * 4, sizeof (float));
  if (nn_model_predict (model, &data->test, 0, count, probs, &error) != NN_OK)
    {
      tap_diag ("predict: %s", error.message);
      free (probs);
      return NULL;
    }
  return probs;
}

static bool
rows_sum_to_one (const float *probs, int32_t count)
{
  for (int32_t i = 0; i < count; i++)
    {
      float sum = 0.0f;
      for (int j = 0; j < 4; j++)
        {
          if (!(probs[i * 4 + j] >= 0.0f))
            return false;
          sum += probs[i * 4 + j];
        }
      if (fabsf (sum - 1.0f) > 1e-5f)
        return false;
    }
  return true;
}

static void
test_initial_weights (void)
{
  NnInputShape input = { 1, 8, 8 };
  NnModel *a = build (MLP, input, 16, 1);
  NnModel *b = build (MLP, input, 16, 1);
  NnModel *c = build (MLP, input, 16, 2);
  NnError error;
  int64_t count;
  float *wa, *wb, *wc;
  double limit1 = sqrt (6.0 / (64 + 8)), limit2 = sqrt (6.0 / (8 + 4));
  bool in_range = true, zero_bias = true;
  double spread = 0.0;

  if (!tap_ok (a != NULL && b != NULL && c != NULL, "models build"))
    return;
  count = nn_model_param_count (a);
  tap_ok (count == 64 * 8 + 8 + 8 * 4 + 4 && nn_model_output_size (a) == 4,
          "parameter count %lld, 4 outputs", (long long) count);
  wa = malloc (sizeof (float) * (size_t) count);
  wb = malloc (sizeof (float) * (size_t) count);
  wc = malloc (sizeof (float) * (size_t) count);
  nn_model_get_weights (a, wa, count, &error);
  nn_model_get_weights (b, wb, count, &error);
  nn_model_get_weights (c, wc, count, &error);
  tap_ok (memcmp (wa, wb, sizeof (float) * (size_t) count) == 0, "same seed, same weights");
  tap_ok (memcmp (wa, wc, sizeof (float) * (size_t) count) != 0, "another seed, other weights");
  /* layout: kernel (64, 8), bias (8), kernel (8, 4), bias (4) */
  for (int i = 0; i < 512; i++)
    {
      in_range = in_range && fabs (wa[i]) <= limit1;
      spread = fmax (spread, fabs (wa[i]));
    }
  for (int i = 520; i < 552; i++)
    in_range = in_range && fabs (wa[i]) <= limit2;
  for (int i = 512; i < 520; i++)
    zero_bias = zero_bias && wa[i] == 0.0f;
  for (int i = 552; i < 556; i++)
    zero_bias = zero_bias && wa[i] == 0.0f;
  tap_ok (in_range && spread > 0.8 * limit1, "Glorot-uniform kernels within +-sqrt(6/(in+out))");
  tap_ok (zero_bias, "zero biases");
  tap_ok (nn_model_set_weights (a, wa, count - 1, &error) == NN_ERROR_INVALID_ARGUMENT,
          "set_weights with the wrong count: %s", error.message);
  free (wa);
  free (wb);
  free (wc);
  nn_model_free (a);
  nn_model_free (b);
  nn_model_free (c);
}

static void
test_bad_models (void)
{
  NnSpec *spec = NULL;
  NnModel *model = NULL;
  NnError error;
  NnInputShape input = { 1, 8, 8 };
  NnStatus s;

  nn_spec_parse (MLP, &spec, &error);
  s = nn_model_new (spec, input, 0, NULL, 1, &model, &error);
  tap_ok (s == NN_ERROR_INVALID_ARGUMENT && model == NULL, "batch 0: %s", error.message);
  input.width = 0;
  s = nn_model_new (spec, input, 8, NULL, 1, &model, &error);
  tap_ok (s == NN_ERROR_SHAPE && model == NULL, "empty input: %s", error.message);
  nn_spec_free (spec);
  nn_spec_parse ("conv2d 4 3 relu; flatten; dense 4", &spec, &error);
  input.channels = 1;
  input.height = 2;
  input.width = 2;
  s = nn_model_new (spec, input, 8, NULL, 1, &model, &error);
  tap_ok (s == NN_ERROR_SHAPE && model == NULL && strstr (error.message, "conv2d") != NULL,
          "a kernel larger than the input: %s", error.message);
  nn_spec_free (spec);
}

static void
test_predict (void)
{
  NnInputShape input = { 1, 8, 8 };
  NnModel *mlp = build (MLP, input, 16, 3), *cnn = build (CNN, input, 7, 3);
  NnError error;
  float *p, *p2, loss, accuracy;
  NnStatus s;

  if (!tap_ok (mlp != NULL && cnn != NULL, "models for predict build"))
    return;
  /* 50 samples in batches of 16 and of 7: partial last batches */
  p = predict (mlp, 50);
  tap_ok (p != NULL && rows_sum_to_one (p, 50), "predict: probabilities (softmax output)");
  free (p);
  p = predict (cnn, 50);
  tap_ok (p != NULL && rows_sum_to_one (p, 50),
          "predict: probabilities from a model ending in logits");
  p2 = calloc (4 * 10, sizeof (float));
  nn_model_predict (cnn, &data->test, 40, 10, p2, &error);
  tap_ok (p != NULL && memcmp (p + 40 * 4, p2, 40 * sizeof (float)) == 0,
          "predict from an offset gives the same rows");
  free (p);
  free (p2);
  tap_ok (nn_model_predict (cnn, &data->test, 190, 20, NULL, &error) == NN_ERROR_INVALID_ARGUMENT,
          "predict past the end: %s", error.message);
  tap_ok (nn_model_predict (cnn, &data->train, 0, 0, NULL, &error) == NN_OK,
          "predict nothing is fine");
  tap_ok (nn_model_predict (cnn, &data->train, 0, 3, NULL, &error) == NN_ERROR_INVALID_ARGUMENT,
          "predict into NULL: %s", error.message);
  {
    NnSplit unlabelled = data->test;
    float q[4 * 3];
    unlabelled.labels = NULL;
    tap_ok (nn_model_predict (mlp, &unlabelled, 0, 3, q, &error) == NN_OK
              && rows_sum_to_one (q, 3),
            "predict needs no labels");
  }
  loss = accuracy = -1.0f;
  s = nn_model_evaluate (mlp, &data->test, NN_LOSS_SPARSE_CATEGORICAL_CROSSENTROPY, &loss,
                         &accuracy, &error);
  tap_ok (s == NN_OK && loss > 0.5f && loss < 3.0f && accuracy >= 0.0f && accuracy <= 1.0f,
          "evaluate an untrained model: loss %.3f, accuracy %.3f", loss, accuracy);
  {
    NnSplit other = data->test;
    other.width = 4;
    other.height = 16;
    tap_ok (nn_model_evaluate (mlp, &other, NN_LOSS_MEAN_SQUARED_ERROR, &loss, &accuracy, &error)
              == NN_ERROR_SHAPE,
            "evaluate on images of another shape: %s", error.message);
  }
  nn_model_free (mlp);
  nn_model_free (cnn);
}

static void
write_modified (const char *from, const char *to, size_t keep, size_t offset, uint8_t value,
                bool append)
{
  size_t size;
  char *bytes = test_read_file (from, &size);
  if (bytes == NULL)
    return;
  if (keep > size)
    keep = size;
  if (offset < keep)
    bytes[offset] = (char) value;
  if (append)
    {
      bytes = realloc (bytes, keep + 4);
      memcpy (bytes + keep, "junk", 4);
      keep += 4;
    }
  test_write_file (to, bytes, keep);
  free (bytes);
}

static void
expect_load_error (NnModel *model, const char *path, NnStatus code, const char *word,
                   const char *what)
{
  NnError error;
  NnStatus s = nn_model_load (model, path, &error);
  tap_ok (s == code && strstr (error.message, word) != NULL && strstr (error.message, path) != NULL,
          "%s: %s", what, s == NN_OK ? "loaded" : error.message);
}

static void
test_files (void)
{
  NnInputShape input = { 1, 8, 8 };
  NnModel *a = build (CNN, input, 16, 5), *b = build (CNN, input, 16, 6);
  NnModel *other
    = build ("conv2d 3 3 relu padding=same; maxpool 2; flatten; dense 4", input, 16, 5);
  NnInputShape tall = { 1, 16, 4 };
  NnModel *moved = build (CNN, tall, 16, 5);
  const char *path = test_path ("a.tbw");
  const char *bad = test_path ("bad.tbw");
  NnError error;
  float *pa, *pb;
  char *text = NULL;
  NnInputShape peeked = { 0 };
  size_t size;
  char *whole;
  NnStatus s;

  if (!tap_ok (a && b && other && moved, "models for the file tests build"))
    return;
  tap_ok (nn_model_save (a, path, &error) == NN_OK, "save: %s", path);
  pa = predict (a, 60);
  pb = predict (b, 60);
  tap_ok (pa && pb && memcmp (pa, pb, 60 * 4 * sizeof (float)) != 0,
          "two seeds predict differently");
  free (pb);
  nn_error_clear (&error);
  tap_ok (nn_model_load (b, path, &error) == NN_OK, "load into a model of the same spec");
  if (error.message[0] != '\0')
    tap_diag ("%s", error.message);
  pb = predict (b, 60);
  tap_ok (pa && pb && memcmp (pa, pb, 60 * 4 * sizeof (float)) == 0,
          "after the round trip the predictions are identical");
  free (pa);
  free (pb);

  s = nn_weights_file_peek (path, &text, &peeked, &error);
  tap_ok (s == NN_OK && text != NULL
            && strstr (text, "conv2d") != NULL && peeked.channels == 1 && peeked.height == 8
            && peeked.width == 8,
          "peek: '%s', (%d, %d, %d)", text ? text : "", peeked.channels, peeked.height,
          peeked.width);
  free (text);

  whole = test_read_file (path, &size);
  tap_ok (whole != NULL && memcmp (whole, "TBWEIGHT", 8) == 0 && whole[8] == 1 && whole[9] == 0,
          "file starts with TBWEIGHT and version 1 (little-endian)");
  free (whole);

  write_modified (path, bad, size, 0, 'X', false);
  expect_load_error (b, bad, NN_ERROR_FORMAT, "magic", "bad magic");
  write_modified (path, bad, size, 8, 2, false);
  expect_load_error (b, bad, NN_ERROR_FORMAT, "version 2", "wrong version");
  write_modified (path, bad, 5, size, 0, false);
  expect_load_error (b, bad, NN_ERROR_FORMAT, "truncated", "truncated in the magic");
  write_modified (path, bad, 12, size, 0, false);
  expect_load_error (b, bad, NN_ERROR_FORMAT, "truncated", "truncated in the header");
  write_modified (path, bad, 30, size, 0, false);
  expect_load_error (b, bad, NN_ERROR_FORMAT, "truncated", "truncated in the spec");
  write_modified (path, bad, size - 10, size, 0, false);
  expect_load_error (b, bad, NN_ERROR_FORMAT, "truncated", "truncated in the weights");
  write_modified (path, bad, size, size, 0, true);
  expect_load_error (b, bad, NN_ERROR_FORMAT, "after the weights", "trailing data");
  write_modified (path, bad, size, 15, 0x7f, false);
  expect_load_error (b, bad, NN_ERROR_FORMAT, "spec length", "absurd spec length");
  write_modified (path, bad, size, 16, 'Q', false);
  expect_load_error (b, bad, NN_ERROR_FORMAT, "spec", "garbled spec");
  expect_load_error (other, path, NN_ERROR_SHAPE, "dropout", "another model's spec is named");
  expect_load_error (moved, path, NN_ERROR_SHAPE, "(1, 8, 8)", "another input shape is named");
  expect_load_error (b, test_path ("missing.tbw"), NN_ERROR_IO, "missing.tbw", "missing file");
  write_modified (path, bad, size, 1, 'X', false);
  s = nn_weights_file_peek (bad, &text, &peeked, &error);
  tap_ok (s == NN_ERROR_FORMAT && text == NULL, "peek on a bad file: %s", error.message);
  s = nn_model_save (a, test_path ("no/such/folder/x.tbw"), &error);
  tap_ok (s == NN_ERROR_IO, "save into a missing folder: %s", error.message);

  /* a weights file in a folder named 张伟: saved twice (the second replaces
   * the first), peeked and loaded back */
  {
    char dir[4096], wpath[4200];
    snprintf (dir, sizeof dir, "%s", test_path ("\xe5\xbc\xa0\xe4\xbc\x9f"));
    test_make_folder (dir);
    snprintf (wpath, sizeof wpath, "%s" TEST_SEP "\xe6\x9d\x83\xe9\x87\x8d.tbw", dir); /* 权重 */
    nn_error_clear (&error);
    s = nn_model_save (b, wpath, &error);
    if (s == NN_OK)
      s = nn_model_save (a, wpath, &error);
    tap_ok (s == NN_OK && test_exists (wpath), "save under 张伟 (%s)", error.message);
    text = NULL;
    s = nn_weights_file_peek (wpath, &text, &peeked, &error);
    tap_ok (s == NN_OK && text != NULL, "peek under 张伟 (%s)", error.message);
    free (text);
    nn_error_clear (&error);
    s = nn_model_load (b, wpath, &error);
    pa = predict (a, 60);
    pb = predict (b, 60);
    tap_ok (s == NN_OK && pa && pb && memcmp (pa, pb, 60 * 4 * sizeof (float)) == 0,
            "load under 张伟 gives the saved model (%s)", error.message);
    free (pa);
    free (pb);
    tap_ok (test_count_names (dir, ".tmp") == 0, "no temporary file left beside it");
  }

  nn_model_free (a);
  nn_model_free (b);
  nn_model_free (other);
  nn_model_free (moved);
}

/* A weights file's header: magic, version, spec, input (1, 28, 28) and a
 * parameter count, with `body` bytes of weights after it. */
static void
write_header (const char *path, const char *spec, uint64_t count, size_t body)
{
  size_t len = strlen (spec);
  size_t size = 16 + len + 20 + body;
  uint8_t *b = calloc (1, size);
  uint32_t dims[3] = { 1, 28, 28 };
  memcpy (b, "TBWEIGHT", 8);
  b[8] = 1;
  for (int i = 0; i < 4; i++)
    b[12 + i] = (uint8_t) (len >> (8 * i));
  memcpy (b + 16, spec, len);
  for (int d = 0; d < 3; d++)
    for (int i = 0; i < 4; i++)
      b[16 + len + 4 * d + i] = (uint8_t) (dims[d] >> (8 * i));
  for (int i = 0; i < 8; i++)
    b[16 + len + 12 + i] = (uint8_t) (count >> (8 * i));
  test_write_file (path, b, size);
  free (b);
}

/* A file's sizes are checked against its length before a model is built
 * for it: a short file that names a huge model costs nothing. */
static void
test_sizes_first (void)
{
  const char *path = test_path ("huge.tbw");
  const char *huge = "flatten; dense 100000 relu; dense 100000 softmax";
  uint64_t params = 784ull * 100000 + 100000 + 100000ull * 100000 + 100000;
  char *text = NULL;
  NnInputShape input;
  NnError error;
  NnStatus s;

  /* the count the model has, but no weights after it */
  write_header (path, huge, params, 0);
  nn_error_clear (&error);
  s = nn_weights_file_peek (path, &text, &input, &error);
  tap_ok (s == NN_ERROR_FORMAT && text == NULL && strstr (error.message, "truncated") != NULL,
          "a %s-parameter model with no weights after the header: refused by peek: %s",
          "10,078,500,000", error.message);
  free (text);
  text = NULL;
  /* a small count that the file holds, but a huge model named */
  write_header (path, huge, 10, 40);
  nn_error_clear (&error);
  s = nn_weights_file_peek (path, &text, &input, &error);
  tap_ok (s == NN_ERROR_FORMAT && text == NULL && strstr (error.message, "10 parameters") != NULL,
          "10 parameters for a huge model: refused by peek: %s", error.message);
  free (text);
  text = NULL;
  /* a file that agrees with itself peeks */
  write_header (path, "flatten; dense 2", 784 * 2 + 2, 4 * (784 * 2 + 2));
  nn_error_clear (&error);
  s = nn_weights_file_peek (path, &text, &input, &error);
  tap_ok (s == NN_OK && text != NULL, "a file that agrees with itself peeks (%s)", error.message);
  free (text);
}

/* Weights from what is not a regular file: refused, never waited on or read
 * without end (SIGALRM ends the test if one blocks). */
static void
test_special_files (void)
{
  char *text = NULL;
  NnInputShape input;
  NnError error;
  NnStatus s;
#ifndef _WIN32
  alarm (30);
  mkfifo (test_path ("fifo.tbw"), 0600);
  nn_error_clear (&error);
  s = nn_weights_file_peek (test_path ("fifo.tbw"), &text, &input, &error);
  tap_ok (s == NN_ERROR_IO && text == NULL && strstr (error.message, "FIFO") != NULL,
          "a FIFO as the weights is refused, not waited on: %s", error.message);
  symlink ("/dev/zero", test_path ("zero.tbw"));
  nn_error_clear (&error);
  s = nn_weights_file_peek (test_path ("zero.tbw"), &text, &input, &error);
  tap_ok (s == NN_ERROR_IO && text == NULL && strstr (error.message, "character device") != NULL,
          "/dev/zero behind a weights name is refused, not read: %s", error.message);
  alarm (0);
#else
  nn_error_clear (&error);
  s = nn_weights_file_peek ("NUL", &text, &input, &error);
  tap_ok (s == NN_ERROR_IO && text == NULL && strstr (error.message, "not a regular file") != NULL,
          "the NUL device as the weights is refused: %s", error.message);
#endif
  free (text);
}

#define RACE_SPEC "flatten; dense 256 relu; dense 10"
#define RACE_SAVES 40

/* In a child: save the weights of seed S to PATH, N times in a row from
 * monotonic time T on (the same clock in every process, so two children
 * start together), and print "S start end" for each save that reported
 * success, "B start end" for each refused because another save was in
 * progress, "F start end" for any other failure; arg "PATH|S|N|T". */
static int
child_save (const char *arg)
{
  char path[4096];
  unsigned seed = 0;
  int count = 0;
  double at = 0;
  const char *bar = strchr (arg, '|');
  if (bar == NULL || sscanf (bar + 1, "%u|%d|%lf", &seed, &count, &at) != 3)
    return 2;
  snprintf (path, sizeof path, "%.*s", (int) (bar - arg), arg);
  NnModel *model = build (RACE_SPEC, (NnInputShape){ 1, 28, 28 }, 1, seed);
  if (model == NULL)
    return 3;
  while (_nn_now () < at)
    test_sleep (0.001);
  for (int i = 0; i < count; i++)
    {
      NnError error;
      double start = _nn_now ();
      NnStatus s = nn_model_save (model, path, &error);
      double end = _nn_now ();
      char kind = s == NN_OK ? 'S' : strstr (error.message, "in progress") != NULL ? 'B' : 'F';
      printf ("%c %.9f %.9f\n", kind, start, end);
      if (kind == 'F')
        fprintf (stderr, "# %s\n", error.message);
    }
  nn_model_free (model);
  return 0;
}

typedef struct
{
  char kind;
  double start, end;
} SaveRecord;

static int
parse_saves (const char *out, SaveRecord *records, int max)
{
  int n = 0;
  for (const char *line = out; line != NULL && *line != '\0' && n < max;)
    {
      if (sscanf (line, "%c %lf %lf", &records[n].kind, &records[n].start, &records[n].end) == 3)
        n++;
      line = strchr (line, '\n');
      if (line != NULL)
        line++;
    }
  return n;
}

/* The model's weights, for comparing files. */
static float *
weights_of (NnModel *model)
{
  int64_t n = nn_model_param_count (model);
  float *w = malloc (sizeof (float) * (size_t) n);
  NnError error;
  if (w != NULL && nn_model_get_weights (model, w, n, &error) != NN_OK)
    {
      free (w);
      return NULL;
    }
  return w;
}

/* A save that finds another save to the same file in progress fails at
 * once, saves nothing and says so (the other holds PATH.lock). */
static void
test_save_in_progress (void)
{
  const char *path = test_path ("busy.tbw");
  char lock_path[4200];
  NnModel *a = build (RACE_SPEC, (NnInputShape){ 1, 28, 28 }, 1, 7);
  NnModel *b = build (RACE_SPEC, (NnInputShape){ 1, 28, 28 }, 1, 8);
  NnError error;
  int e = 0;

  if (!tap_ok (a != NULL && b != NULL && nn_model_save (a, path, &error) == NN_OK,
               "a first save"))
    return;
  size_t before_size = 0, after_size = 0;
  char *before = test_read_file (path, &before_size);
  snprintf (lock_path, sizeof lock_path, "%s.lock", path);
  void *lock = _nn_os_lock_try (lock_path, &e);
  nn_error_clear (&error);
  NnStatus s = nn_model_save (b, path, &error);
  char *after = test_read_file (path, &after_size);
  tap_ok (lock != NULL && s == NN_ERROR_IO && strstr (error.message, "in progress") != NULL
            && before != NULL && after != NULL && before_size == after_size
            && memcmp (before, after, before_size) == 0,
          "a save while another holds the file fails and leaves it: %s", error.message);
  _nn_os_lock_release (lock);
  nn_error_clear (&error);
  tap_ok (nn_model_save (b, path, &error) == NN_OK && !test_exists (lock_path),
          "once it is free a save goes through, and its lock file goes (%s)", error.message);
  free (before);
  free (after);
  nn_model_free (a);
  nn_model_free (b);
}

/* Two processes saving their own weights to one path, over and over, from
 * the same moment: the saves that meet are told so (none reports success
 * for a file another save is replacing), no other save fails, and the file
 * ends whole, with one of their weights: those of the save that succeeded
 * last where the two last successes did not overlap in time. */
static void
test_two_savers (void)
{
  const char *path = test_path ("race.tbw");
  char args[2][4200];
  const char *argv[2] = { args[0], args[1] };
  char *outs[2];
  int statuses[2];
  SaveRecord records[2][RACE_SAVES];
  int counts[2];
  double at = _nn_now () + 1.0;

  for (int c = 0; c < 2; c++)
    {
      snprintf (args[c], sizeof args[c], "%s|%d|%d|%.9f", path, 100 + c, RACE_SAVES, at);
      outs[c] = calloc (1, 16384);
    }
  test_children_run (2, "save", argv, outs, 16384, statuses);
  for (int c = 0; c < 2; c++)
    counts[c] = parse_saves (outs[c], records[c], RACE_SAVES);
  tap_ok (statuses[0] == 0 && statuses[1] == 0 && counts[0] == RACE_SAVES
            && counts[1] == RACE_SAVES,
          "two processes saved %d times each to one path (status %d, %d)", RACE_SAVES,
          statuses[0], statuses[1]);

  int successes[2] = { 0, 0 }, busy = 0, other = 0;
  const SaveRecord *last[2] = { NULL, NULL };
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < counts[c]; i++)
      {
        const SaveRecord *r = &records[c][i];
        busy += r->kind == 'B';
        other += r->kind == 'F';
        if (r->kind == 'S')
          {
            successes[c]++;
            last[c] = r;
          }
      }
  tap_ok (busy > 0 && other == 0 && successes[0] + successes[1] > 0,
          "saves that met were refused as such: %d refused, %d other failures, %d and %d "
          "successes", busy, other, successes[0], successes[1]);

  /* whose weights the file holds */
  NnModel *file = build (RACE_SPEC, (NnInputShape){ 1, 28, 28 }, 1, 1);
  NnError error;
  nn_error_clear (&error);
  bool loaded = file != NULL && nn_model_load (file, path, &error) == NN_OK;
  float *have = loaded ? weights_of (file) : NULL;
  int holder = -1;
  for (int c = 0; c < 2 && have != NULL; c++)
    {
      NnModel *m = build (RACE_SPEC, (NnInputShape){ 1, 28, 28 }, 1, (uint64_t) (100 + c));
      float *w = m != NULL ? weights_of (m) : NULL;
      if (w != NULL && memcmp (have, w, sizeof (float) * (size_t) nn_model_param_count (m)) == 0)
        holder = c;
      free (w);
      nn_model_free (m);
    }
  int want = -1;
  if (last[0] != NULL && last[1] != NULL)
    {
      bool overlap = last[0]->start < last[1]->end && last[1]->start < last[0]->end;
      if (!overlap)
        want = last[0]->end > last[1]->end ? 0 : 1;
    }
  else
    want = last[0] != NULL ? 0 : last[1] != NULL ? 1 : -1;
  tap_ok (holder >= 0 && (want < 0 || holder == want),
          "the file is whole and holds the weights of the save that succeeded last (process "
          "%d, expected %d) %s", holder, want, error.message);
  char lock[4200];
  snprintf (lock, sizeof lock, "%s.lock", path);
  tap_ok (!test_exists (lock) && test_count_names (test_tmpdir (), "race.tbw.tmp") == 0,
          "no lock file and no temporary file left");
  free (have);
  nn_model_free (file);
  free (outs[0]);
  free (outs[1]);
}

int
main (int argc, char **argv)
{
  static const TestChildCase children[] = {
    { "save", child_save },
    { NULL, NULL },
  };
  test_child_main (argc, argv, children);
  data = test_make_dataset (100, 200, 4, 1, 8, 8, 11);
  test_initial_weights ();
  test_bad_models ();
  test_predict ();
  test_files ();
  test_sizes_first ();
  test_special_files ();
  test_save_in_progress ();
  test_two_savers ();
  nn_dataset_free (data);
  return tap_done ();
}
