/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-module-loader.c: how the engine loads the CUDA module, against a
 * fake module (fake-cuda-module.c) whose op table claims one ABI version or
 * another and has some slots NULL: the current version with a table that
 * keeps the rules of nn-backend-abi.h is taken as it is; any other version,
 * a table of another size, no table, or one that breaks a rule (a required
 * slot NULL, half a group of slots) is refused with a reason that names what
 * is wrong. Without TRAINBENCH_CUDA_MODULE, a module planted in a folder
 * above the program (copies of this program in a build tree's layout) is
 * never loaded. The loader keeps its answer for the life of the process,
 * so each case runs in a child process. No GPU needed.
 */

#include "test-util.h"

#include "nn-backend-abi.h"
#include "nn-os.h"
#include "nn-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  const char *label;
  const char *abi, *size; /* FAKE_CUDA_ABI, FAKE_CUDA_SIZE */
  int no_table;
  const char *clear;  /* FAKE_CUDA_CLEAR: the slots left NULL, as byte offsets */
  const char *reason; /* part of the refusal's reason; NULL: the table is taken */
} Case;

/* The fake module's full path: it is built next to this program. */
static const char *
fake_module_path (void)
{
  static char path[4200];
  char folder[4096];
  _nn_program_folder (folder, sizeof folder);
  snprintf (path, sizeof path, "%s" TEST_SEP "%s", folder, FAKE_CUDA_MODULE);
  return path;
}

static const Case *the_cases;
static size_t the_case_count;

/* In the child: load case `arg` (its index) and print "1 reason" or "0 reason". */
static int
child_load_case (const char *arg)
{
  size_t i = (size_t) atoi (arg);
  if (i >= the_case_count)
    return 2;
  const Case *c = &the_cases[i];
  test_setenv ("TRAINBENCH_CUDA_MODULE", fake_module_path ());
  test_setenv ("FAKE_CUDA_ABI", c->abi);
  test_setenv ("FAKE_CUDA_SIZE", c->size);
  test_setenv ("FAKE_CUDA_NULL", c->no_table ? "1" : "0");
  test_setenv ("FAKE_CUDA_CLEAR", c->clear != NULL ? c->clear : "");
  char reason[1024] = "";
  const NnBackendOps *ops = _nn_backend_cuda_load (reason, sizeof reason);
  int ok;
  if (c->reason != NULL)
    ok = ops == NULL && strstr (reason, c->reason) != NULL;
  else
    ok = ops != NULL && strcmp (ops->name, "fake") == 0;
  printf ("%d %s", ok, ops != NULL ? "(loaded)" : reason);
  return 0;
}

/* In the child: TRAINBENCH_CUDA_MODULE = "want|path"; "1 reason" when the
 * loader refuses it with a reason that says `want`. */
static int
child_load_named (const char *arg)
{
  const char *bar = strchr (arg, '|');
  if (bar == NULL)
    return 2;
  char want[256];
  snprintf (want, sizeof want, "%.*s", (int) (bar - arg), arg);
  test_setenv ("TRAINBENCH_CUDA_MODULE", bar + 1);
  char reason[1024] = "";
  const NnBackendOps *ops = _nn_backend_cuda_load (reason, sizeof reason);
  printf ("%d %s", ops == NULL && strstr (reason, want) != NULL, reason);
  return 0;
}

/* In the child, with TRAINBENCH_CUDA_MODULE unset: what the loader's own
 * search finds, "loaded NAME" or "none REASON". A fake module it finds
 * makes a table that would be taken. */
static int
child_load_default (const char *arg)
{
  (void) arg;
  test_setenv ("TRAINBENCH_CUDA_MODULE", NULL);
  test_setenv ("FAKE_CUDA_ABI", "current");
  test_setenv ("FAKE_CUDA_SIZE", "current");
  test_setenv ("FAKE_CUDA_NULL", "0");
  test_setenv ("FAKE_CUDA_CLEAR", "");
  char reason[1024] = "";
  const NnBackendOps *ops = _nn_backend_cuda_load (reason, sizeof reason);
  printf ("%s %s", ops != NULL ? "loaded" : "none", ops != NULL ? ops->name : reason);
  return 0;
}

#ifdef _WIN32
#define PROGRAM_NAME "test-module-loader.exe"
#else
#define PROGRAM_NAME "test-module-loader"
#endif

/* A copy of this program at `program` (under the test's folder, made with
 * its folders) and the fake module planted as the real module's file at
 * `planted`; what the copy's loader finds, into `line`. */
static int
run_copy (const char *program, const char *planted, char *line, size_t size)
{
  char path[8192];
  size_t fake_size = 0;
  char *fake = test_read_file (fake_module_path (), &fake_size);

  /* each folder of both paths, from the test's folder down */
  for (int which = 0; which < 2; which++)
    {
      const char *name = which == 0 ? program : planted;
      for (const char *slash = strchr (name, '/'); slash != NULL; slash = strchr (slash + 1, '/'))
        {
          snprintf (path, sizeof path, "%.*s", (int) (slash - name), name);
          test_make_folder (test_path (path));
        }
    }
  snprintf (path, sizeof path, "%s", test_path (planted));
  bool ready = fake != NULL && test_write_file (path, fake, fake_size)
               && test_copy_program (test_path (program));
  free (fake);
  if (!ready)
    {
      snprintf (line, size, "none could not make the copy");
      return -1;
    }
  snprintf (path, sizeof path, "%s", test_path (program));
  return test_child_run_program (path, "load-default", "", line, size);
}

/* In the child: a broken module (one that ends the process when loaded) is
 * named, and a CPU run trains and writes its result: "1 path" when it
 * completed and the result file was written. With arg "list" the child
 * lists the devices instead, which must load the module (and so die). */
static int
child_cpu_run (const char *arg)
{
  test_setenv ("TRAINBENCH_CUDA_MODULE", fake_module_path ());
  test_setenv ("FAKE_CUDA_ABORT", "1");
  if (strcmp (arg, "list") == 0)
    {
      NnDeviceInfo devices[4];
      printf ("1 listed %d devices", nn_device_list (devices, 4));
      return 0;
    }

  NnDataset *ds = test_make_dataset (64, 16, 4, 1, 8, 8, 5);
  NnTrainConfig config;
  NnTrainer *trainer = NULL;
  NnRunResult result;
  NnError error;
  nn_train_config_init (&config);
  config.spec_text = "flatten; dense 4 softmax";
  config.epochs = 1;
  config.batch_size = 16;
  config.device.threads = 1;
  nn_error_clear (&error);
  NnStatus st = nn_trainer_new (&config, ds, &trainer, &error);
  if (st == NN_OK)
    st = nn_trainer_run (trainer, &result, &error);
  if (st == NN_OK)
    st = nn_result_write (&result, NULL, test_path ("cpu-run.json"), &error);
  printf ("%d %s", st == NN_OK, st == NN_OK ? "completed and written" : error.message);
  if (trainer != NULL)
    nn_run_result_clear (&result);
  nn_trainer_free (trainer);
  nn_dataset_free (ds);
  return 0;
}

/* Runs one case in a child; its verdict and the loader's reason come back
 * on its output. */
static void
run_case (size_t index)
{
  char arg[32], line[1200];
  snprintf (arg, sizeof arg, "%zu", index);
  int status = test_child_run ("load-case", arg, line, sizeof line);
  tap_ok (status == 0 && line[0] == '1', "%s: %s", the_cases[index].label,
          line[0] != '\0' ? line + 2 : "the child said nothing");
}

int
main (int argc, char **argv)
{
  static const TestChildCase children[] = {
    { "load-case", child_load_case },
    { "load-named", child_load_named },
    { "cpu-run", child_cpu_run },
    { "load-default", child_load_default },
    { NULL, NULL },
  };

  char short_current[32], long_current[32];
  snprintf (short_current, sizeof short_current, "%zu", sizeof (NnBackendOps) - sizeof (void *));
  snprintf (long_current, sizeof long_current, "%zu", sizeof (NnBackendOps) + sizeof (void *));

  char gemm[16], supported[16], run[16], capture_end[16], steps_pair[40], fused_none[200];
  char upload_wait[16];
  snprintf (upload_wait, sizeof upload_wait, "%zu", offsetof (NnBackendOps, upload_wait));
  snprintf (gemm, sizeof gemm, "%zu", offsetof (NnBackendOps, gemm));
  snprintf (supported, sizeof supported, "%zu", offsetof (NnBackendOps, step_supported));
  snprintf (run, sizeof run, "%zu", offsetof (NnBackendOps, step_run));
  snprintf (capture_end, sizeof capture_end, "%zu", offsetof (NnBackendOps, capture_end));
  snprintf (steps_pair, sizeof steps_pair, "%zu,%zu", offsetof (NnBackendOps, step_supported),
            offsetof (NnBackendOps, step_run));
  /* every optional slot NULL: the CPU table's shape */
  {
    size_t used = 0;
    for (size_t off = offsetof (NnBackendOps, capture_begin); off < sizeof (NnBackendOps);
         off += sizeof (void *))
      used += (size_t) snprintf (fused_none + used, sizeof fused_none - used, "%s%zu",
                                 used ? "," : "", off);
  }

  const Case cases[] = {
    { "the current ABI: the table as it is", "current", "current", 0, NULL, NULL },
    { "every optional slot NULL: taken", "current", "current", 0, fused_none, NULL },
    { "no fused steps (step_supported, step_run both NULL): taken", "current", "current", 0,
      steps_pair, NULL },
    { "an older ABI: refused, the module and the engine go together", "14", "current", 0, NULL,
      "ABI mismatch (module 14, engine" },
    { "a newer ABI: refused", "99", "current", 0, NULL, "ABI mismatch (module 99, engine" },
    { "the current ABI with a short table: refused, saying so", "current", short_current, 0,
      NULL, "op table has" },
    { "the current ABI with a longer table: refused, saying so", "current", long_current, 0,
      NULL, "op table has" },
    { "no table: refused", "current", "current", 1, NULL, "ABI mismatch (module 0, engine" },
    { "a required slot NULL: refused, naming it", "current", "current", 0, gemm,
      "broken: gemm is NULL" },
    { "step_supported NULL, step_run set: refused", "current", "current", 0, supported,
      "step_supported is NULL but step_run is not" },
    { "step_run NULL, step_supported set: refused", "current", "current", 0, run,
      "step_run is NULL but step_supported is not" },
    { "capture_end NULL: refused", "current", "current", 0, capture_end,
      "capture_end is NULL but capture_begin is not" },
    { "upload_wait NULL, host_alloc set: refused", "current", "current", 0, upload_wait,
      "upload_wait is NULL but host_alloc is not" },
  };
  the_cases = cases;
  the_case_count = sizeof cases / sizeof cases[0];
  test_child_main (argc, argv, children);
  test_isolate_home ();
  for (size_t i = 0; i < the_case_count; i++)
    run_case (i);

  {
    char why[512] = "";
    tap_ok (_nn_backend_ops_valid (nn_backend_cpu_get (), why, sizeof why),
            "the CPU table keeps the rules the loader checks%s%s", why[0] ? ": " : "", why);
  }

  /* A file that is no shared object, then no file at all, named as the
   * module: refused with the reason, never replaced by another module. */
  for (int missing = 0; missing < 2; missing++)
    {
      const char *bogus = test_path (missing ? "no-such-module" : NN_OS_CUDA_MODULE);
      const char *want = missing ? "(TRAINBENCH_CUDA_MODULE) not found" : "not loadable";
      char arg[8192], line[1200];
      if (!missing)
        test_write_file (bogus, "not a module\n", 13);
      snprintf (arg, sizeof arg, "%s|%s", want, bogus);
      int status = test_child_run ("load-named", arg, line, sizeof line);
      tap_ok (status == 0 && line[0] == '1', "%s: refused: %s",
              missing ? "a module path with no file" : "a file that is not a module",
              line[0] != '\0' ? line + 2 : "the child said nothing");
    }

  /* Without TRAINBENCH_CUDA_MODULE the module is looked for only where
   * this program's build or installation put it, never in a folder above
   * the program: a build tree in /tmp/build made /tmp/gpu/ such a folder,
   * which any local user can make. A copy of this program in a build
   * tree's layout under the test's folder, with a module planted in
   * build/tests/gpu/ (../gpu/), then in build/gpu/ (../../gpu/). */
  {
    static const struct
    {
      const char *label, *program, *planted;
    } planted[] = {
      { "../gpu/", "up1/build/tests/engine/" PROGRAM_NAME,
        "up1/build/tests/gpu/" NN_OS_CUDA_MODULE },
      { "../../gpu/", "up2/build/tests/engine/" PROGRAM_NAME, "up2/build/gpu/" NN_OS_CUDA_MODULE },
    };
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++)
      {
        char line[1200] = "";
        int status = run_copy (planted[i].program, planted[i].planted, line, sizeof line);
        tap_ok (status == 0 && strncmp (line, "loaded fake", 11) != 0
                  && strncmp (line, "none could not", 14) != 0,
                "a module planted in the folder above the program (%s) is not loaded: %s",
                planted[i].label, line[0] != '\0' ? line : "the child said nothing");
#ifdef TEST_BUILD_TREE
        /* nor does a program outside the build tree look into it */
        if (strncmp (test_tmpdir (), TEST_BUILD_TREE, strlen (TEST_BUILD_TREE)) != 0)
          tap_ok (strstr (line, TEST_BUILD_TREE) == NULL,
                  "a copy of the program outside the build tree does not look into it: %s", line);
#endif
      }
  }

  /* The program's own folder: the Windows layout (bin\ holds the
   * programs and the module) takes a module beside the program; elsewhere
   * the module is never beside the program (it may sit in a folder others
   * can write to, as /tmp), so one planted there is not loaded. */
  {
    char line[1200] = "";
    int status = run_copy ("beside/bin/" PROGRAM_NAME, "beside/bin/" NN_OS_CUDA_MODULE, line,
                           sizeof line);
#ifdef _WIN32
    tap_ok (status == 0 && strncmp (line, "loaded fake", 11) == 0,
            "the module beside the program (bin\\) is loaded: %s", line);
#else
    tap_ok (status == 0 && strncmp (line, "loaded fake", 11) != 0
              && strncmp (line, "none could not", 14) != 0,
            "a module planted beside the program is not loaded: %s", line);
#endif
  }

#ifdef TEST_BUILD_TREE
  /* This program is inside its build tree: the module built there is the
   * one it loads, or the reason names the build tree's gpu/ folder. */
  {
    char line[1200] = "";
    int status = test_child_run ("load-default", "", line, sizeof line);
#ifdef TEST_CUDA_MODULE_BUILT
    tap_ok (status == 0 && strcmp (line, "loaded cuda") == 0,
            "a program of the build tree loads the build's module: %s", line);
#else
    tap_ok (status == 0 && strstr (line, TEST_BUILD_TREE TEST_SEP "gpu") != NULL,
            "a program of the build tree looks in the build's gpu/ folder: %s", line);
#endif
  }
#endif

  /* A CPU run never loads the CUDA module: a broken one (it ends the
   * process when loaded) must not stop a CPU run or its result file. The
   * device list, which does load it, shows the module is really there. */
  {
    char line[1200] = "";
    int status = test_child_run ("cpu-run", "list", line, sizeof line);
    tap_ok (status != 0, "the broken module ends a process that lists the devices (status %d)",
            status);
    line[0] = '\0';
    status = test_child_run ("cpu-run", "train", line, sizeof line);
    tap_ok (status == 0 && line[0] == '1',
            "a CPU run and its result file never load the CUDA module: %s",
            status != 0 ? "the child died" : line[0] != '\0' ? line + 2 : "the child said nothing");
  }
  return tap_done ();
}
