/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-help.c: the --help texts of trainbench-cli, one per command, laid
 * out like a man page (synopsis, description, options, exit status,
 * examples) so `trainbench-cli COMMAND --help` answers without the docs.
 */

#include "tb-cli-common.h"

#include <string.h>

static const char help_overview[] =
  "NAME\n"
  "    trainbench-cli - train small neural networks and time them, CPU against GPU\n"
  "\n"
  "SYNOPSIS\n"
  "    trainbench-cli COMMAND [OPTIONS]\n"
  "    trainbench-cli help [COMMAND]\n"
  "    trainbench-cli --version\n"
  "\n"
  "COMMANDS\n"
  "    train       train one model on one device and write its result file\n"
  "    reproduce   the articles' experiment: every preset on every device, then a\n"
  "                table of median seconds per epoch and test accuracy\n"
  "    evaluate    test loss and accuracy of saved weights\n"
  "    summary     a model's layers, output shapes and parameter counts\n"
  "    devices     the CPU and each GPU, and why a GPU is not usable\n"
  "    datasets    the known data sets and where each was found\n"
  "    sysinfo     operating system, CPU, memory, BLAS, compiler and devices\n"
  "    help        this text, or a command's (also: COMMAND --help)\n"
  "\n"
  "PRESETS\n"
  "    mlp-small   flatten; dense 128 relu; dropout 0.2; dense 10 softmax\n"
  "                (Adam, batch 32, 10 epochs)\n"
  "    mlp-wide    two dense 1000 relu layers with dropout 0.2 (Adam, batch 32,\n"
  "                10 epochs)\n"
  "    cnn         two conv2d 3x3 layers, maxpool, dense 128 (Adadelta lr 1.0,\n"
  "                batch 256, 2 epochs)\n"
  "\n"
  "FILES\n"
  "    Results go to $XDG_DATA_HOME/trainbench/runs (~/.local/share/trainbench/runs),\n"
  "    one schema-1 JSON file per run, also for cancelled and failed runs.\n"
  "\n"
  "EXIT STATUS\n"
  "    0 success, 1 a run failed or was cancelled, 2 the command line is wrong:\n"
  "    also a data set or device it names that is not there or not usable, or\n"
  "    a model that does not fit the data set, all checked before any data set\n"
  "    loads (nothing runs, no result file is written).\n"
  "\n"
  "EXAMPLES\n"
  "    trainbench-cli train --preset mlp-small --dataset fashion-mnist --epochs 1\n"
  "    trainbench-cli reproduce --epochs 1\n"
  "    trainbench-cli summary --preset cnn\n";

static const char help_train[] =
  "NAME\n"
  "    trainbench-cli train - train one model on one device\n"
  "\n"
  "SYNOPSIS\n"
  "    trainbench-cli train (--preset NAME | --model SPEC) [OPTIONS]\n"
  "\n"
  "DESCRIPTION\n"
  "    Trains a preset or a model given as a spec, evaluates it on the test set\n"
  "    after every epoch and writes a result file (schema 1 JSON). A preset's\n"
  "    optimizer, learning rate, batch size and epochs are the defaults; the\n"
  "    options below override them. On a terminal a progress bar shows the\n"
  "    epoch, step, loss, accuracy, samples/s and ETA; otherwise one plain line\n"
  "    is printed per progress report and per epoch. Ctrl-C, SIGTERM (timeout,\n"
  "    kill, systemctl stop, a CI job cancelled) and SIGHUP (the terminal going\n"
  "    away) stop the run within a step and save it as cancelled; a second one\n"
  "    quits at once. On Windows Ctrl-C, Ctrl-Break and the console closing do\n"
  "    the same.\n"
  "\n"
  "OPTIONS\n"
  "    --preset NAME         mlp-small, mlp-wide or cnn\n"
  "    --model SPEC          layers separated by ';', e.g.\n"
  "                          'flatten; dense 64 relu; dense 10 softmax'\n"
  "    --dataset NAME|PATH   mnist, fashion-mnist, a folder of IDX files or a .npz\n"
  "                          file (default: mnist if found, else fashion-mnist)\n"
  "    --device DEV          cpu (default), cuda or cuda:N (N from 0 to 1023)\n"
  "    --threads N           CPU threads, 0 = all cores (default 0), at most 1024\n"
  "    --epochs N            passes over the training set (1 to 100000)\n"
  "    --batch-size N        samples per step (1 to 65536)\n"
  "    --optimizer NAME      sgd, adam, adadelta, rmsprop or adagrad (with Keras'\n"
  "                          defaults, learning rate included)\n"
  "    --lr X                learning rate (more than 0; at least about 1.2e-38,\n"
  "                          the smallest a float holds in full)\n"
  "    --loss NAME           sparse_categorical_crossentropy (sparse, the\n"
  "                          default), categorical_crossentropy (categorical) or\n"
  "                          mean_squared_error (mse)\n"
  "    --seed N              seed of weights, shuffling and dropout (default 42)\n"
  "    --tf32 on|off         allow TF32 on the GPU (recorded in the result)\n"
  "    --max-steps N         stop after N steps in all (0 = no limit)\n"
  "    --limit-train N       use only the first N training samples (0 = all)\n"
  "    --limit-test N        use only the first N test samples (0 = all)\n"
  "    --breakdown on|off    measure where a step's time goes and record it\n"
  "                          (default on; printed after the run)\n"
  "    --out FILE            the result file (default: <runs folder>/<run id>.json)\n"
  "    --save-weights FILE   save the trained weights (for evaluate)\n"
  "    --quiet               no progress or epoch lines\n"
  "\n"
  "FILES\n"
  "    --out and --save-weights write a new file beside FILE and put it in\n"
  "    FILE's place in one step, so FILE is whole or untouched, never half\n"
  "    written; an existing FILE is replaced. A symbolic link is followed: the\n"
  "    file it points to is replaced (or created) that way and the link stays.\n"
  "    A character device or a pipe (/dev/null, /dev/stdout, a FIFO that a\n"
  "    program reads; on Windows NUL or CON) is written through, never\n"
  "    replaced. A block device, a socket or a FIFO that nothing reads is\n"
  "    refused. One --save-weights to a file at a time: a save that meets\n"
  "    another to the same file (FILE.lock is held while one is written) fails\n"
  "    and saves nothing, so a run never reports weights saved that are not in\n"
  "    the file. Without --out the result goes into the runs folder as a new\n"
  "    file named after the run id, which never replaces another run's file\n"
  "    (two runs that drew the same id in the same second: the second gets\n"
  "    another id).\n"
  "\n"
  "MEMORY\n"
  "    What the run needs is added up from the model's shapes and checked\n"
  "    against the memory available (MemAvailable, or a container's cgroup\n"
  "    limit when lower) before anything is allocated: a batch too large fails\n"
  "    at once and says which batch would fit. TRAINBENCH_MEMORY_LIMIT=SIZE\n"
  "    (bytes, or 512M, 4G) sets a lower limit.\n"
  "\n"
  "EXIT STATUS\n"
  "    0 the run completed, 1 it failed or was cancelled (the result file still\n"
  "    records it), 2 the command line is wrong: an option or its value, a data\n"
  "    set that is not there, a device that is not there or not usable, a model\n"
  "    that does not fit the data set's images or classes. These are checked\n"
  "    before the data set loads (from its headers); nothing runs and no result\n"
  "    file is written.\n"
  "\n"
  "EXAMPLES\n"
  "    trainbench-cli train --preset mlp-small --dataset fashion-mnist --epochs 1\n"
  "    trainbench-cli train --preset cnn --device cuda:0 --tf32 on\n"
  "    trainbench-cli train --model 'flatten; dense 32 relu; dense 10 softmax' \\\n"
  "        --optimizer sgd --lr 0.1 --epochs 3 --save-weights small.tbw\n";

static const char help_evaluate[] =
  "NAME\n"
  "    trainbench-cli evaluate - test loss and accuracy of saved weights\n"
  "\n"
  "SYNOPSIS\n"
  "    trainbench-cli evaluate --weights FILE [OPTIONS]\n"
  "\n"
  "DESCRIPTION\n"
  "    Reads a weights file written by train --save-weights (its model spec and\n"
  "    input shape are stored in it), and prints the loss and accuracy on the\n"
  "    test split of a data set.\n"
  "\n"
  "OPTIONS\n"
  "    --weights FILE        the weights file (required)\n"
  "    --dataset NAME|PATH   as for train (default: mnist if found, else\n"
  "                          fashion-mnist)\n"
  "    --device DEV          cpu (default), cuda or cuda:N\n"
  "    --threads N           CPU threads, 0 = all cores, at most 1024\n"
  "    --batch-size N        samples per forward pass (default 256, at most 65536)\n"
  "    --loss NAME           the loss to report (default\n"
  "                          sparse_categorical_crossentropy)\n"
  "    --limit-test N        use only the first N test samples\n"
  "    --tf32 on|off         allow TF32 on the GPU\n"
  "\n"
  "EXIT STATUS\n"
  "    0 success, 1 loading or evaluating failed, 2 the command line is wrong:\n"
  "    an option or its value, a weights file, data set or device that cannot\n"
  "    be used, a model that does not fit the data set (checked before the\n"
  "    data set loads).\n"
  "\n"
  "EXAMPLES\n"
  "    trainbench-cli evaluate --weights small.tbw --dataset fashion-mnist\n";

static const char help_reproduce[] =
  "NAME\n"
  "    trainbench-cli reproduce - the articles' experiment in one command\n"
  "\n"
  "SYNOPSIS\n"
  "    trainbench-cli reproduce [OPTIONS]\n"
  "\n"
  "DESCRIPTION\n"
  "    Trains each preset on each device, writes one result file per run, then\n"
  "    prints a table: preset, device, median seconds per epoch (the median\n"
  "    of the epochs' times, as the app gives it), final test accuracy, and\n"
  "    for GPU rows the speed-up against the CPU on the same preset. A run\n"
  "    that fails (a GPU out of memory, say) is reported in the table and the\n"
  "    others go on. Ctrl-C (or SIGTERM, SIGHUP) cancels the current run,\n"
  "    saved as cancelled, and skips the rest.\n"
  "\n"
  "OPTIONS\n"
  "    --presets LIST        comma-separated presets (default:\n"
  "                          mlp-small,mlp-wide,cnn)\n"
  "    --devices LIST        comma-separated devices, e.g. cpu,cuda:0 (default:\n"
  "                          every usable device)\n"
  "    --epochs N            override every preset's epochs (1 to 100000)\n"
  "    --dataset NAME|PATH   as for train\n"
  "    --threads N           CPU threads, 0 = all cores, at most 1024\n"
  "    --seed N              seed of every run (default 42)\n"
  "    --limit-train N       use only the first N training samples\n"
  "    --limit-test N        use only the first N test samples\n"
  "    --max-steps N         stop each run after N steps\n"
  "    --out-dir DIR         where the result files go (default: the runs folder)\n"
  "    --quiet               no progress or epoch lines, only the table\n"
  "\n"
  "EXIT STATUS\n"
  "    0 every run completed, 1 one or more failed or were cancelled, 2 the\n"
  "    command line is wrong; as for train, every device of --devices, the data\n"
  "    set and every preset against it are checked before any run starts.\n"
  "\n"
  "EXAMPLES\n"
  "    trainbench-cli reproduce\n"
  "    trainbench-cli reproduce --presets mlp-small,cnn --devices cpu,cuda:0 --epochs 1\n";

static const char help_summary[] =
  "NAME\n"
  "    trainbench-cli summary - a model's layers and parameter counts\n"
  "\n"
  "SYNOPSIS\n"
  "    trainbench-cli summary (--preset NAME | --model SPEC) [--input CxHxW]\n"
  "                           [--plan [--device DEV] [--tf32 on|off] [--batch-size N]\n"
  "                            [--optimizer NAME] [--loss NAME]]\n"
  "\n"
  "DESCRIPTION\n"
  "    Prints a Keras-like summary: each layer, its output shape and parameter\n"
  "    count, and the total. Nothing is trained, and without --plan nothing is\n"
  "    allocated.\n"
  "\n"
  "    With --plan it also prints the plan of one training step, as a run on\n"
  "    that device would make it: one line a step, forward then backward, with\n"
  "    the layers each covers and what the device runs fused into one op (the\n"
  "    result file of every run records the same plan). The model is built on\n"
  "    the device for this, but not trained.\n"
  "\n"
  "OPTIONS\n"
  "    --preset NAME         mlp-small, mlp-wide or cnn\n"
  "    --model SPEC          a model spec (see train --help)\n"
  "    --input CxHxW         one sample's shape (default 1x28x28)\n"
  "    --plan                print the plan of a training step too\n"
  "    --device DEV          the plan's device: cpu (default), cuda or cuda:N\n"
  "    --tf32 on|off         the plan's TF32 on a GPU (default off, as train's): it\n"
  "                          decides which convolutions and layers the GPU fuses\n"
  "    --batch-size N        the plan's batch size (default: the preset's, or 32)\n"
  "    --optimizer NAME      the plan's optimizer (default: the preset's, or adam)\n"
  "    --loss NAME           the plan's loss (default sparse_categorical_crossentropy)\n"
  "\n"
  "EXIT STATUS\n"
  "    0 success, 1 the plan's model cannot be built on the device, 2 the\n"
  "    command line is wrong (a spec that does not parse or a model that does\n"
  "    not fit the input included).\n"
  "\n"
  "EXAMPLES\n"
  "    trainbench-cli summary --preset cnn\n"
  "    trainbench-cli summary --preset cnn --plan --device cuda --tf32 on\n"
  "    trainbench-cli summary --model 'conv2d 8 5 relu; flatten; dense 10 softmax' --input 3x32x32\n";

static const char help_devices[] =
  "NAME\n"
  "    trainbench-cli devices - the devices Trainbench can train on\n"
  "\n"
  "SYNOPSIS\n"
  "    trainbench-cli devices\n"
  "\n"
  "DESCRIPTION\n"
  "    Lists the CPU and each CUDA GPU with its name, memory, compute\n"
  "    capability, driver and runtime versions. When no GPU is usable it says\n"
  "    why (no NVIDIA driver, a missing library, the CUDA module not built).\n"
  "\n"
  "EXIT STATUS\n"
  "    0 success, 2 the command line is wrong.\n";

static const char help_datasets[] =
  "NAME\n"
  "    trainbench-cli datasets - the known data sets and where they are\n"
  "\n"
  "SYNOPSIS\n"
  "    trainbench-cli datasets\n"
  "\n"
  "DESCRIPTION\n"
  "    For mnist and fashion-mnist, where each was found (the Keras cache,\n"
  "    Trainbench's data folder, Debian's packages) or why it was not.\n"
  "\n"
  "EXIT STATUS\n"
  "    0 success, 2 the command line is wrong.\n";

static const char help_sysinfo[] =
  "NAME\n"
  "    trainbench-cli sysinfo - what this machine is, as results record it\n"
  "\n"
  "SYNOPSIS\n"
  "    trainbench-cli sysinfo\n"
  "\n"
  "DESCRIPTION\n"
  "    Operating system, kernel, CPU model, cores and threads, memory, the BLAS\n"
  "    library (name, version, kernel core, threads, and a note when it could\n"
  "    not use the best core), the compiler, and the devices.\n"
  "\n"
  "EXIT STATUS\n"
  "    0 success, 2 the command line is wrong.\n";

static const char help_help[] =
  "NAME\n"
  "    trainbench-cli help - show the help of a command\n"
  "\n"
  "SYNOPSIS\n"
  "    trainbench-cli help [COMMAND]\n";

const char *
tb_cli_help_text (const char *command)
{
  static const struct
  {
    const char *name;
    const char *text;
  } texts[] = {
    { "train", help_train },
    { "evaluate", help_evaluate },
    { "reproduce", help_reproduce },
    { "summary", help_summary },
    { "devices", help_devices },
    { "datasets", help_datasets },
    { "sysinfo", help_sysinfo },
    { "help", help_help },
  };

  if (command == NULL || command[0] == '\0')
    return help_overview;
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    if (strcmp (texts[i].name, command) == 0)
      return texts[i].text;
  return NULL;
}

void
tb_cli_print_help (const char *command)
{
  const char *text = tb_cli_help_text (command);
  fputs (text ? text : help_overview, stdout);
}
