#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run-fuzzer.sh FUZZER CORPUS ARTIFACTS [DICT]: the meson test of one libFuzzer
# target. Runs every input in CORPUS once; with FUZZ_SECONDS=N (N > 0) it
# then fuzzes for N seconds, new inputs going to a temporary folder so the
# committed corpus stays as it is. A crashing input is saved under ARTIFACTS.
set -u

fuzzer=$1
corpus=$2
artifacts=$3
dict=${4:-}
seconds=${FUZZ_SECONDS:-0}

case $seconds in
  ''|*[!0-9]*) echo "run-fuzzer.sh: FUZZ_SECONDS must be a whole number, got '$seconds'"; exit 1 ;;
esac
if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus")" ]; then
  echo "run-fuzzer.sh: the corpus folder $corpus is missing or empty"
  exit 1
fi
mkdir -p "$artifacts" || exit 1

if [ "$seconds" -eq 0 ]; then
  "$fuzzer" -runs=0 -artifact_prefix="$artifacts/" "$corpus"
  rc=$?
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/trainbench-fuzz-XXXXXX") || exit 1
  if [ -n "$dict" ]; then
    "$fuzzer" -max_total_time="$seconds" -timeout=25 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" -dict="$dict" "$work" "$corpus"
  else
    "$fuzzer" -max_total_time="$seconds" -timeout=25 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$work" "$corpus"
  fi
  rc=$?
  rm -rf "$work"
fi

if [ "$rc" -ne 0 ]; then
  echo "run-fuzzer.sh: $(basename "$fuzzer") failed (exit $rc); the input is under $artifacts/."
  echo "Fix it, then add the input to $corpus so it stays a test."
  # libFuzzer exits 77 on a finding by default, which meson reads as a
  # skipped test: any failure is reported as exit 1.
  exit 1
fi
exit 0
