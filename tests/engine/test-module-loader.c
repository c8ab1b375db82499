/* test-module-loader.c: how the engine loads the CUDA module, against a
 * fake module (fake-cuda-module.c) whose op table claims one ABI version or
 * another: the current version is taken as it is; an older module's table
 * is copied into a full one whose newer slots stay NULL, so the engine runs
 * the separate ops there; a table too short for its version, a newer
 * version or no table is refused, with a reason that says which. The
 * loader keeps its answer for the life of the process, so each case runs
 * in a child process. No GPU needed.
 */

#include "test-util.h"

#include "nn-backend-abi.h"
#include "nn-os.h"
#include "nn-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum
{
  KEEPS_ALL,    /* the table as it is */
  KEEPS_TO_V10, /* slots of ABI 10 kept, ABI 11's NULL */
  KEEPS_TO_V9,  /* slots of ABI 9 kept, ABI 10's NULL */
  KEEPS_TO_V8,  /* slots of ABI 8 kept, ABI 9's NULL */
  KEEPS_TO_V7,  /* slots of ABI 7 kept, ABI 8's NULL */
  KEEPS_TO_V6,  /* ABI 6's kept, ABI 7's NULL */
  KEEPS_TO_V4,  /* version 5: ABI 4's kept, the pooling slots NULL */
  KEEPS_TO_V1,  /* ABI 1's kept, the fused ops NULL */
  REFUSED,
} Expect;

typedef struct
{
  const char *label;
  const char *abi, *size; /* FAKE_CUDA_ABI, FAKE_CUDA_SIZE */
  int no_table;
  Expect expect;
  const char *reason; /* part of the refusal's reason */
} Case;

/* Whether the loaded table has exactly the slots `expect` says. */
static int
slots_as_expected (const NnBackendOps *ops, Expect expect)
{
  int v9 = ops->dense_loss_dx != NULL && ops->branch_begin != NULL && ops->branch_end != NULL
           && ops->branch_join != NULL;
  int none9 = ops->dense_loss_dx == NULL && ops->branch_begin == NULL && ops->branch_end == NULL
              && ops->branch_join == NULL;
  int v10 = ops->pool2d_forward_argmax != NULL && ops->pool2d_backward_argmax != NULL
            && ops->conv2d_pool_fits != NULL && ops->conv2d_forward_pool != NULL;
  int none10 = ops->pool2d_forward_argmax == NULL && ops->pool2d_backward_argmax == NULL
               && ops->conv2d_pool_fits == NULL && ops->conv2d_forward_pool == NULL;
  int v11 = ops->conv2d_below_fits != NULL && ops->conv2d_backward_below != NULL;
  int none11 = ops->conv2d_below_fits == NULL && ops->conv2d_backward_below == NULL;
  int v8 = ops->dense_backward_update_pays != NULL && ops->dense_backward_update != NULL;
  int v7 = ops->conv2d_backward_bias_act != NULL;
  int v6 = ops->pool2d_forward_dropout != NULL;
  int v4 = ops->dense_loss != NULL;
  int v2 = ops->dense_forward != NULL;
  int v1 = ops->gemm != NULL && ops->device_count != NULL;
  switch (expect)
    {
    case KEEPS_ALL:
      return v1 && v2 && v4 && v6 && v7 && v8 && v9 && v10 && v11;
    case KEEPS_TO_V10:
      return v1 && v2 && v4 && v6 && v7 && v8 && v9 && v10 && none11;
    case KEEPS_TO_V9:
      return v1 && v2 && v4 && v6 && v7 && v8 && v9 && none10 && none11;
    case KEEPS_TO_V8:
      return v1 && v2 && v4 && v6 && v7 && v8 && none9 && none10 && none11;
    case KEEPS_TO_V7:
      return v1 && v2 && v4 && v6 && v7 && !v8 && ops->dense_backward_update == NULL && none9
             && none10 && none11;
    case KEEPS_TO_V6:
      return v1 && v2 && v4 && v6 && !v7 && !v8 && none9 && none10 && none11;
    case KEEPS_TO_V4:
      return v1 && v2 && v4 && !v6 && !v7 && !v8 && none9 && none10 && none11;
    case KEEPS_TO_V1:
      return v1 && !v2 && !v4 && !v6 && !v7 && !v8 && none9 && none10 && none11;
    default:
      return 0;
    }
}

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
  char reason[1024] = "";
  const NnBackendOps *ops = _nn_backend_cuda_load (reason, sizeof reason);
  int ok;
  if (c->expect == REFUSED)
    ok = ops == NULL && strstr (reason, c->reason) != NULL;
  else
    ok = ops != NULL && strcmp (ops->name, "fake") == 0 && slots_as_expected (ops, c->expect);
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
    { NULL, NULL },
  };

  char v10[32], v9[32], v8[32], v7[32], v6[32], v4[32], v1[32], short_current[32], short_v7[32];
  snprintf (v10, sizeof v10, "%zu", (size_t) NN_BACKEND_OPS_V10_SIZE);
  snprintf (v9, sizeof v9, "%zu", (size_t) NN_BACKEND_OPS_V9_SIZE);
  snprintf (v8, sizeof v8, "%zu", (size_t) NN_BACKEND_OPS_V8_SIZE);
  snprintf (v7, sizeof v7, "%zu", (size_t) NN_BACKEND_OPS_V7_SIZE);
  snprintf (v6, sizeof v6, "%zu", (size_t) NN_BACKEND_OPS_V6_SIZE);
  snprintf (v4, sizeof v4, "%zu", (size_t) NN_BACKEND_OPS_V4_SIZE);
  snprintf (v1, sizeof v1, "%zu", (size_t) NN_BACKEND_OPS_V1_SIZE);
  snprintf (short_current, sizeof short_current, "%zu", sizeof (NnBackendOps) - sizeof (void *));
  snprintf (short_v7, sizeof short_v7, "%zu", (size_t) NN_BACKEND_OPS_V7_SIZE - sizeof (void *));

  const Case cases[] = {
    { "the current ABI: the table as it is", "current", "current", 0, KEEPS_ALL, NULL },
    { "ABI 10: its slots, and ABI 11's convolution with the layer below NULL", "10", v10, 0,
      KEEPS_TO_V10, NULL },
    { "ABI 10 built with a larger table: still only ABI 10's slots", "10", "current", 0,
      KEEPS_TO_V10, NULL },
    { "ABI 9: its slots, and ABI 10's pooling with argmax NULL", "9", v9, 0, KEEPS_TO_V9,
      NULL },
    { "ABI 8: its slots, and ABI 9's loss with dx and branches NULL", "8", v8, 0, KEEPS_TO_V8,
      NULL },
    { "ABI 7: its slots, and ABI 8's fused update NULL", "7", v7, 0, KEEPS_TO_V7, NULL },
    { "ABI 7 built with a larger table: still only ABI 7's slots", "7", "current", 0, KEEPS_TO_V7,
      NULL },
    { "ABI 6: the fused convolution backward NULL too", "6", v6, 0, KEEPS_TO_V6, NULL },
    { "ABI 5: its pooling slot (another signature) NULL", "5", v4, 0, KEEPS_TO_V4, NULL },
    { "ABI 1: no fused ops", "1", v1, 0, KEEPS_TO_V1, NULL },
    { "ABI 7 with a table shorter than ABI 7's: refused", "7", short_v7, 0, REFUSED,
      "ABI mismatch (module 7, engine" },
    { "the current ABI with a short table: refused, saying so", "current", short_current, 0,
      REFUSED, "op table has" },
    { "a newer ABI: refused", "99", "current", 0, REFUSED, "ABI mismatch (module 99, engine" },
    { "no table: refused", "current", "current", 1, REFUSED, "ABI mismatch (module 0, engine" },
  };
  the_cases = cases;
  the_case_count = sizeof cases / sizeof cases[0];
  test_child_main (argc, argv, children);
  for (size_t i = 0; i < the_case_count; i++)
    run_case (i);

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
