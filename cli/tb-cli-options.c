/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tb-cli-options.c: the options each command of trainbench-cli takes, in
 * the small library of the command line (with tb-cli-args.c and
 * tb-cli-help.c) that the CLI and its fuzzer both link.
 */

#include "tb-cli-common.h"

const TbCliOption tb_cli_train_options[] = {
  { "preset", "NAME" },
  { "model", "SPEC" },
  { "dataset", "NAME|PATH" },
  { "device", "cpu|cuda[:N]" },
  { "threads", "N" },
  { "epochs", "N" },
  { "batch-size", "N" },
  { "optimizer", "NAME" },
  { "lr", "X" },
  { "loss", "NAME" },
  { "seed", "N" },
  { "tf32", "on|off" },
  { "max-steps", "N" },
  { "conditions", "default|article" },
  { "data-on", "device|pinned|pageable" },
  { "graph", "on|off" },
  { "loss-every-step", "on|off" },
  { "fusion", "on|off" },
  { "limit-train", "N" },
  { "limit-test", "N" },
  { "breakdown", "on|off" },
  { "out", "FILE" },
  { "save-weights", "FILE" },
  { "quiet", NULL },
  { NULL, NULL },
};

const TbCliOption tb_cli_evaluate_options[] = {
  { "weights", "FILE" },
  { "dataset", "NAME|PATH" },
  { "device", "cpu|cuda[:N]" },
  { "threads", "N" },
  { "batch-size", "N" },
  { "loss", "NAME" },
  { "limit-test", "N" },
  { "tf32", "on|off" },
  { NULL, NULL },
};

const TbCliOption tb_cli_reproduce_options[] = {
  { "presets", "NAME,..." },
  { "devices", "DEV,..." },
  { "epochs", "N" },
  { "dataset", "NAME|PATH" },
  { "threads", "N" },
  { "seed", "N" },
  { "limit-train", "N" },
  { "limit-test", "N" },
  { "max-steps", "N" },
  { "conditions", "default|article" },
  { "data-on", "device|pinned|pageable" },
  { "graph", "on|off" },
  { "loss-every-step", "on|off" },
  { "fusion", "on|off" },
  { "out-dir", "DIR" },
  { "quiet", NULL },
  { NULL, NULL },
};

const TbCliOption tb_cli_summary_options[] = {
  { "preset", "NAME" },
  { "model", "SPEC" },
  { "input", "CxHxW" },
  { "plan", NULL },
  { "device", "cpu|cuda[:N]" },
  { "tf32", "on|off" },
  { "batch-size", "N" },
  { "optimizer", "NAME" },
  { "loss", "NAME" },
  { "fusion", "on|off" },
  { NULL, NULL },
};

/* --axis may be given up to 3 times (tb_cli_arg_all). */
const TbCliOption tb_cli_sweep_options[] = {
  { "family", "mlp|cnn" },
  { "spec", "TEMPLATE" },
  { "axis", "NAME=V1,V2,..." },
  { "devices", "DEV,..." },
  { "steps", "N" },
  { "warmup", "N" },
  { "dataset", "NAME|PATH" },
  { "threads", "N" },
  { "batch-size", "N" },
  { "optimizer", "NAME" },
  { "seed", "N" },
  { "limit-train", "N" },
  { "conditions", "default|article" },
  { "data-on", "device|pinned|pageable" },
  { "graph", "on|off" },
  { "loss-every-step", "on|off" },
  { "fusion", "on|off" },
  { "breakdown", "on|off" },
  { "out-dir", "DIR" },
  { "quiet", NULL },
  { NULL, NULL },
};

const TbCliOption tb_cli_report_options[] = {
  { "runs", "DIR|FILE" },
  { "html", "FILE" },
  { "json", "FILE" },
  { "machine", "FILE" },
  { NULL, NULL },
};

const TbCliOption tb_cli_no_options[] = {
  { NULL, NULL },
};
