/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-runner.c: one recorded run (nn-run.c), as the CLI and the GUI start
 * it: every run leaves a result file, whatever stops it: a data set that
 * cannot be read, a model that does not fit, a cancel before the start or
 * during training; the file named, or a new one in a folder. A runs folder
 * that cannot take the result refuses the run before it starts; one that
 * stops taking it while the run trains leaves the result with the runner,
 * to be saved elsewhere.
 */

#include "test-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <sys/stat.h>
#include <unistd.h>
#endif

#define MLP "flatten; dense 16 relu; dense 4 softmax"

static NnDataset *data;

static void
request_for (NnRunRequest *request, const char *spec, int32_t epochs, const char *folder)
{
  nn_run_request_init (request);
  request->config.spec_text = spec;
  request->config.model_name = "runner-test";
  request->config.epochs = epochs;
  request->config.batch_size = 32;
  request->config.device.threads = 2;
  request->dataset = data;
  request->result_folder = folder;
}

/* The result file's text; "" when there is none (a static buffer). */
static const char *
file_text (const char *path)
{
  static char text[256 * 1024];
  size_t size = 0;
  char *contents = path != NULL ? test_read_file (path, &size) : NULL;

  text[0] = '\0';
  if (contents != NULL)
    snprintf (text, sizeof text, "%.*s", (int) size, contents);
  free (contents);
  return text;
}

static bool
has (const char *text, const char *part)
{
  return strstr (text, part) != NULL;
}

static void
test_completed (void)
{
  NnRunRequest request;
  NnRunner *runner = NULL;
  NnError error;
  const char *folder = test_path ("completed");

  request_for (&request, MLP, 2, folder);
  tap_ok (nn_runner_new (&request, &runner, &error) == NN_OK, "a runner is made");
  NnStatus status = nn_runner_run (runner, &error);
  tap_ok (status == NN_OK, "a run on a good data set completes (%s)", error.message);
  tap_ok (nn_runner_write_status (runner, &error) == NN_OK, "its result file is written");
  const char *path = nn_runner_result_path (runner);
  const char *text = file_text (path);
  tap_ok (path != NULL && test_count_names (folder, ".json") == 1,
          "a new file in the folder asked for: %s", path ? path : "(none)");
  tap_ok (has (text, "\"completed\"") && has (text, "runner-test"),
          "the file records the completed run and its model");
  tap_ok (nn_runner_result (runner)->epoch_count == 2, "the result holds both epochs");
  tap_ok (nn_runner_model (runner) != NULL, "the trained model is kept");
  tap_ok (nn_runner_dataset (runner) == data, "the data set lent is the one used");
  tap_ok (nn_runner_take_dataset (runner) == NULL, "a lent data set is not handed over");
  tap_ok (nn_runner_run (runner, &error) == NN_ERROR_INVALID_ARGUMENT,
          "a runner runs once: %s", error.message);
  nn_runner_free (runner);
}

static void
test_missing_dataset (void)
{
  NnRunRequest request;
  NnRunner *runner = NULL;
  NnError error;
  const char *missing = test_path ("no-such-data");

  request_for (&request, MLP, 1, test_path ("missing"));
  request.dataset = NULL;
  request.dataset_name = missing;
  nn_runner_new (&request, &runner, &error);
  NnStatus status = nn_runner_prepare (runner, &error);
  tap_ok (status != NN_OK && nn_runner_dataset (runner) == NULL,
          "prepare says the data set cannot be read: %s", error.message);
  tap_ok (nn_runner_model (runner) == NULL, "no model without a data set");
  status = nn_runner_run (runner, &error);
  tap_ok (status != NN_OK && has (error.message, "no-such-data"),
          "the run fails naming the data set: %s", error.message);
  const char *text = file_text (nn_runner_result_path (runner));
  tap_ok (has (text, "\"failed\"") && has (text, "no-such-data"),
          "the result file records it as failed, with the message");
  tap_ok (has (text, MLP), "and the model it would have trained");
  tap_ok (strcmp (nn_runner_result (runner)->error, error.message) == 0,
          "the result's error is the run's");
  nn_runner_free (runner);
}

static void
test_bad_spec (void)
{
  NnRunRequest request;
  NnRunner *runner = NULL;
  NnError error;
  const char *spec = "flatten; dense 4 softmax; conv2d 8 3 relu";
  const char *path = test_path ("bad-spec.json");

  request_for (&request, spec, 1, NULL);
  request.result_path = path;
  nn_runner_new (&request, &runner, &error);
  NnStatus status = nn_runner_run (runner, &error);
  tap_ok (status == NN_ERROR_SHAPE || status == NN_ERROR_SPEC, "a model that does not fit fails: %s",
          error.message);
  tap_ok (nn_runner_result_path (runner) != NULL
            && strcmp (nn_runner_result_path (runner), path) == 0,
          "the result goes to the file named");
  const char *text = file_text (path);
  tap_ok (has (text, "\"failed\"") && has (text, "conv2d"),
          "the file records it as failed, naming the layer");
  tap_ok (has (text, "\"train_samples\": 200") || has (text, "\"train_samples\":200"),
          "and the data set it was given");
  nn_runner_free (runner);
}

static void
test_cancel_before_start (void)
{
  NnRunRequest request;
  NnRunner *runner = NULL;
  NnError error;

  request_for (&request, MLP, 1, test_path ("cancel-early"));
  nn_runner_new (&request, &runner, &error);
  nn_runner_cancel (runner);
  NnStatus status = nn_runner_run (runner, &error);
  tap_ok (status == NN_ERROR_CANCELLED, "a run cancelled before it starts is cancelled: %s",
          error.message);
  const char *text = file_text (nn_runner_result_path (runner));
  tap_ok (has (text, "\"cancelled\""), "and recorded as cancelled");
  tap_ok (nn_runner_result (runner)->step_count == 0, "with no step");
  nn_runner_free (runner);
}

/* A cancel that comes while training, as a signal handler or another
 * thread sends it: here from the progress callback, at the 5th report. */
typedef struct
{
  NnRunner *runner;
  int reports;
} CancelAt;

static bool
cancel_cb (const NnProgress *progress, void *user_data)
{
  CancelAt *at = user_data;

  if (++at->reports == 5)
    nn_runner_cancel (at->runner);
  return true; /* the cancel, not the callback's answer, stops the run */
}

static void
test_cancel_during (void)
{
  NnRunRequest request;
  NnRunner *runner = NULL;
  NnError error;
  CancelAt at = { 0 };

  request_for (&request, MLP, 1000, test_path ("cancel-during"));
  request.config.progress_every = 1;
  request.progress = cancel_cb;
  request.progress_data = &at;
  nn_runner_new (&request, &runner, &error);
  at.runner = runner;
  NnStatus status = nn_runner_run (runner, &error);
  const NnRunResult *r = nn_runner_result (runner);
  tap_ok (status == NN_ERROR_CANCELLED, "a cancel while training stops it: %s", error.message);
  tap_ok (r->step_count >= 5 && r->step_count <= 6,
          "within a step of the cancel (%lld steps)", (long long) r->step_count);
  const char *text = file_text (nn_runner_result_path (runner));
  tap_ok (has (text, "\"cancelled\""), "the run is recorded as cancelled");
  tap_ok (nn_runner_model (runner) != NULL, "its model is kept");
  nn_runner_free (runner);
}

/* A runs folder that cannot take a result file: the run is refused before
 * anything loads or trains, with the folder's name, and records nothing. */
static void
test_folder_refused (void)
{
  NnRunRequest request;
  NnRunner *runner = NULL;
  NnError error, werr;
  char folder[4096];

  /* a "folder" under a regular file: no result file can go there */
  test_write_file (test_path ("plain-file"), "x", 1);
  snprintf (folder, sizeof folder, "%s" TEST_SEP "runs", test_path ("plain-file"));
  request_for (&request, MLP, 3, folder);
  request.dataset = NULL;
  request.dataset_name = test_path ("no-such-data");
  tap_ok (nn_runner_check_folder (&request, &error) == NN_ERROR_IO && has (error.message, "plain-file"),
          "the check names the folder that cannot be: %s", error.message);
  nn_runner_new (&request, &runner, &error);
  NnStatus status = nn_runner_run (runner, &error);
  tap_ok (status == NN_ERROR_IO && has (error.message, "plain-file"),
          "the run is refused for its folder, not for its data set: %s", error.message);
  tap_ok (nn_runner_result (runner)->step_count == 0 && nn_runner_model (runner) == NULL
            && nn_runner_dataset (runner) == NULL,
          "nothing was loaded or trained");
  tap_ok (nn_runner_write_status (runner, &werr) == NN_ERROR_IO && nn_runner_result_path (runner) == NULL
            && strcmp (werr.message, error.message) == 0,
          "no result file; the write status says why");
  tap_ok (!nn_runner_result_unwritten (runner)
            && nn_runner_write_result (runner, test_path ("refused.json"), &error) != NN_OK,
          "a refused run has no result to save elsewhere: %s", error.message);
  nn_runner_free (runner);

  /* a disk without the room a result wants */
  tap_ok (nn_folder_check_writable (test_path ("roomy"), UINT64_MAX / 2, &error) == NN_ERROR_IO
            && has (error.message, "roomy") && has (error.message, "full"),
          "a folder without room is refused: %s", error.message);
  tap_ok (nn_folder_check_writable (test_path ("roomy"), 1024, &error) == NN_OK
            && test_count_names (test_path ("roomy"), "") == 0,
          "one with room passes, and the check leaves nothing behind");

  /* a folder of someone else's (only a user without root's rights is kept out) */
  request_for (&request, MLP, 3, test_path ("read-only"));
#ifndef _WIN32
  test_make_folder (test_path ("read-only"));
  chmod (test_path ("read-only"), 0555);
  if (geteuid () != 0)
    {
      nn_runner_new (&request, &runner, &error);
      status = nn_runner_run (runner, &error);
      tap_ok (status == NN_ERROR_IO && has (error.message, "cannot be written")
                && nn_runner_result (runner)->step_count == 0,
              "a read-only runs folder refuses the run: %s", error.message);
      nn_runner_free (runner);
    }
  else
    tap_skip ("root writes into a read-only folder", "a read-only runs folder refuses the run");
  chmod (test_path ("read-only"), 0755);
#endif
}

/* The runs folder taken away while the run trains (replaced by a file):
 * the result cannot be written at the end, and the runner keeps it. */
typedef struct
{
  const char *folder;
  int reports;
} TakeFolder;

static bool
take_folder_cb (const NnProgress *progress, void *user_data)
{
  TakeFolder *take = user_data;
  char away[4200];

  if (++take->reports == 3)
    {
      snprintf (away, sizeof away, "%s-away", take->folder);
      rename (take->folder, away);
      test_write_file (take->folder, "x", 1);
    }
  return true;
}

static void
test_unwritten_result (void)
{
  NnRunRequest request;
  NnRunner *runner = NULL;
  NnError error, werr;
  TakeFolder take = { test_path ("taken"), 0 };
  const char *elsewhere = test_path ("saved-elsewhere.json");

  request_for (&request, MLP, 2, take.folder);
  request.config.progress_every = 1;
  request.progress = take_folder_cb;
  request.progress_data = &take;
  nn_runner_new (&request, &runner, &error);
  NnStatus status = nn_runner_run (runner, &error);
  tap_ok (status == NN_OK && nn_runner_write_status (runner, &werr) == NN_ERROR_IO
            && nn_runner_result_path (runner) == NULL,
          "the run completes; its file cannot be written: %s", werr.message);
  tap_ok (nn_runner_result_unwritten (runner) && nn_runner_result (runner)->epoch_count == 2,
          "the runner keeps the result, both epochs, to be saved");
  status = nn_runner_write_result (runner, elsewhere, &error);
  const char *text = file_text (elsewhere);
  tap_ok (status == NN_OK && has (text, "\"completed\"") && has (text, "runner-test"),
          "saved elsewhere: the completed run (%s)", error.message);
  tap_ok (nn_runner_result_path (runner) != NULL && strcmp (nn_runner_result_path (runner), elsewhere) == 0
            && nn_runner_write_status (runner, NULL) == NN_OK && !nn_runner_result_unwritten (runner),
          "then the runner says it is saved, and where");
  nn_runner_free (runner);
}

int
main (void)
{
  test_isolate_home ();
  data = test_make_dataset (200, 50, 4, 1, 8, 8, 7);
  test_completed ();
  test_missing_dataset ();
  test_bad_spec ();
  test_cancel_before_start ();
  test_cancel_during ();
  test_folder_refused ();
  test_unwritten_result ();
  nn_dataset_free (data);
  return tap_done ();
}
