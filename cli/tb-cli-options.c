/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-options.c: the options each command of trainbench-cli takes, in
 * the small library of the command line (with tb-cli-args.c and
 * tb-cli-help.c) that the CLI and its fuzzer both link.
 */

#include "tb-cli-common.h"

const TbCliOption tb_cli_train_options[] = {
  { "preset", "NAME", false },
  { "model", "SPEC", false },
  { "dataset", "NAME|PATH", false },
  { "device", "cpu|cuda[:N]", false },
  { "threads", "N", false },
  { "epochs", "N", false },
  { "batch-size", "N", false },
  { "optimizer", "NAME", false },
  { "lr", "X", false },
  { "loss", "NAME", false },
  { "seed", "N", false },
  { "tf32", "on|off", false },
  { "max-steps", "N", false },
  { "limit-train", "N", false },
  { "limit-test", "N", false },
  { "out", "FILE", false },
  { "save-weights", "FILE", false },
  { "quiet", NULL, false },
  { NULL, NULL, false },
};

const TbCliOption tb_cli_evaluate_options[] = {
  { "weights", "FILE", false },
  { "dataset", "NAME|PATH", false },
  { "device", "cpu|cuda[:N]", false },
  { "threads", "N", false },
  { "batch-size", "N", false },
  { "loss", "NAME", false },
  { "limit-test", "N", false },
  { "tf32", "on|off", false },
  { NULL, NULL, false },
};

const TbCliOption tb_cli_reproduce_options[] = {
  { "presets", "NAME,...", false },
  { "devices", "DEV,...", false },
  { "epochs", "N", false },
  { "dataset", "NAME|PATH", false },
  { "threads", "N", false },
  { "seed", "N", false },
  { "limit-train", "N", false },
  { "limit-test", "N", false },
  { "max-steps", "N", false },
  { "out-dir", "DIR", false },
  { "quiet", NULL, false },
  { NULL, NULL, false },
};

const TbCliOption tb_cli_summary_options[] = {
  { "preset", "NAME", false },
  { "model", "SPEC", false },
  { "input", "CxHxW", false },
  { "plan", NULL, false },
  { "device", "cpu|cuda[:N]", false },
  { "tf32", "on|off", false },
  { "batch-size", "N", false },
  { "optimizer", "NAME", false },
  { "loss", "NAME", false },
  { NULL, NULL, false },
};

const TbCliOption tb_cli_sweep_options[] = {
  { "family", "mlp|cnn", false },
  { "spec", "TEMPLATE", false },
  { "axis", "NAME=V1,V2,...", true },
  { "devices", "DEV,...", false },
  { "steps", "N", false },
  { "warmup", "N", false },
  { "data", "NAME|PATH", false },
  { "threads", "N", false },
  { "batch-size", "N", false },
  { "optimizer", "NAME", false },
  { "seed", "N", false },
  { "limit-train", "N", false },
  { "out-dir", "DIR", false },
  { "quiet", NULL, false },
  { NULL, NULL, false },
};

const TbCliOption tb_cli_no_options[] = {
  { NULL, NULL, false },
};
