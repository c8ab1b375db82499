#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# gpu/dev/device-run.sh: everything one run on the GPU machine does: the
# GPU tests, compute-sanitizer on the parity test, cuDNN's Find for the cnn
# convolutions (gpu/dev/conv-find.cu), the launch-latency floor,
# a kernel listing of a few steps of each preset (ncu; NCU_PRESETS picks),
# one-epoch timings of the three presets on CUDA (TF32 off and on) and the
# PyTorch peer (eager, graph).
# Run it from the repository root of a clone on the GPU machine; the
# environment says where things are:
#   BUILD   a build with -Dcuda=enabled (default: build)
#   DATA    Fashion-MNIST's four IDX files (default: /usr/share/datasets/fashion-mnist)
#   PROBES  where conv-find and launch-floor were built, for "find" and "floor"
#           (default: the repository root, where gpu/dev/README.md's commands
#           build them from gpu/dev/conv-find.cu and gpu/dev/launch-floor.cu)
#   OUT     the folder the logs, taps and result files go to (default: device-out)
#   EPOCHS  epochs of each "train" run (default: 2)
# The peer is bench/peers/torch_seed_models.py (PyTorch with CUDA).
#   usage: [BUILD=...] [DATA=...] gpu/dev/device-run.sh [tests] [sanitizer] [find] [floor] [ncu] [train] [eager] [bench] [torch]
set -u
B=${BUILD:-build}
DATA=${DATA:-/usr/share/datasets/fashion-mnist}
PROBES=${PROBES:-.}
OUT=${OUT:-device-out}
EPOCHS=${EPOCHS:-2}
mkdir -p "$OUT"
parts="${*:-tests sanitizer floor ncu train torch}"
has () { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

# cuDNN and cuBLAS from the system, else from the Python wheels.
if ! ldconfig -p | grep -q 'libcudnn.so.9 '; then
  extra=$(python3 - <<'PY'
import importlib, os
dirs = []
for m in ("nvidia.cudnn", "nvidia.cublas", "nvidia.cu13", "nvidia.cuda_runtime"):
    try:
        mod = importlib.import_module(m)
        for p in mod.__path__:
            for sub in ("lib", "lib64"):
                if os.path.isdir(os.path.join(p, sub)):
                    dirs.append(os.path.join(p, sub))
    except Exception:
        pass
print(":".join(dirs))
PY
)
  export LD_LIBRARY_PATH="$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "cuDNN from the wheels: $extra"
fi
export PATH=$PATH:/usr/local/cuda/bin
# The build was made in another folder (the carried copy): its programs
# are not inside the build tree they were built in, so the module is named.
export TRAINBENCH_CUDA_MODULE=$PWD/$B/gpu/libtrainbench-cuda.so
date -u
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
$B/cli/trainbench-cli devices

if has tests; then
  for t in test-cuda-devices test-cuda-parity test-cuda-lost test-cuda-training; do
    start=$SECONDS
    timeout 300 $B/tests/gpu/$t > "$OUT/$t.tap" 2>&1
    rc=$?
    printf '%s: rc %d, %s ok, %s not ok, %d s\n' $t $rc "$(grep -c '^ok' "$OUT/$t.tap")" \
      "$(grep -c '^not ok' "$OUT/$t.tap")" $((SECONDS - start))
    grep -B1 -A0 '^not ok\|^# ' "$OUT/$t.tap" | grep -v '^--' | head -40
  done
  cat "$OUT"/test-cuda-*.tap > "$OUT/tests.tap"
  rm -f "$OUT"/test-cuda-*.tap
fi

if has sanitizer; then
  TRAINBENCH_TEST_SKIP_OOM=1 timeout 240 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
    $B/tests/gpu/test-cuda-parity > "$OUT/memcheck.txt" 2>&1
  echo "memcheck on test-cuda-parity: rc $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|not ok" "$OUT/memcheck.txt" | head
fi

if has find; then
  "$PROBES/conv-find" | tee "$OUT/conv-find.txt"
fi

if has floor; then
  "$PROBES/launch-floor" | tee "$OUT/launch-floor.txt"
fi

if has ncu; then
  # Kernels of a few steps of each preset (TF32 on), one line each.
  for p in ${NCU_PRESETS:-mlp-small mlp-wide cnn}; do
    echo "== ncu $p"
    ncu --clock-control none --metrics gpu__time_duration.sum --csv \
      $B/cli/trainbench-cli train --preset $p --device cuda --dataset $DATA --epochs 1 --tf32 on \
      --max-steps 4 --limit-train 1024 --limit-test 64 --quiet --out /tmp/ncu-run.json 2>&1 \
      | grep gpu__time_duration
  done > "$OUT/ncu.csv"
  echo "ncu: $(grep -c gpu__time_duration "$OUT/ncu.csv") kernels measured"
fi

if has train; then
  for p in mlp-small mlp-wide cnn; do
    for tf in off on; do
      # --epochs 2: the first epoch also pays the first step and the capture;
      # the second is the steady state.
      echo "== $p tf32 $tf: $B/cli/trainbench-cli train --preset $p --device cuda --epochs $EPOCHS --dataset $DATA --tf32 $tf"
      $B/cli/trainbench-cli train --preset $p --device cuda --epochs $EPOCHS --dataset $DATA --tf32 $tf \
        --out "/tmp/run-$p-$tf.json" 2>&1 | tail -3
      python3 -c "
import json
r = json.load(open('/tmp/run-$p-$tf.json'))
for e in r['epochs']:
    print('RESULT $p tf32=$tf epoch %d: %.4f s, test accuracy %.4f, train loss %.4f' % (e['epoch'], e['seconds'], e['test_accuracy'], e['train_loss']))
s = r['steps']
print('RESULT $p tf32=$tf steps %d, step median %.1f us (p10 %.1f, p90 %.1f), first step after %.3f s' % (s['count'], 1e6 * s['seconds_median'], 1e6 * s['seconds_p10'], 1e6 * s['seconds_p90'], r['time_to_first_step_seconds']))
" || true
    done
  done | tee "$OUT/train.txt"
  tar cf "$OUT/runs.tar" -C /tmp $(cd /tmp && ls run-*.json)
fi

if has eager; then
  # Is the first epoch's extra time lazy kernel loading? The same run with
  # every kernel loaded when CUDA starts.
  for mode in LAZY EAGER; do
    CUDA_MODULE_LOADING=$mode $B/cli/trainbench-cli train --preset mlp-small --device cuda \
      --epochs 2 --dataset $DATA --tf32 on --quiet --out /tmp/eager-$mode.json > /dev/null 2>&1
    python3 -c "
import json
r = json.load(open('/tmp/eager-$mode.json'))
print('CUDA_MODULE_LOADING=$mode mlp-small epochs', ['%.4f' % e['seconds'] for e in r['epochs']], 'first step after %.3f s' % r['time_to_first_step_seconds'])
" | tee -a "$OUT/train.txt"
  done
fi

if has bench; then
  # The project's driver: our one-epoch runs and the PyTorch peer (eager and
  # graph) in the same run; writes <label>.jsonl and <label>.md.
  python3 bench/bench.py --cli $B/cli/trainbench-cli --data $DATA --devices cuda \
    --peer bench/peers/torch_seed_models.py --tf32 on --label gpu \
    --results /tmp/bench-results > /dev/null 2>&1
  echo "bench.py: rc $?"
  cat /tmp/bench-results/*.md
  tar cf "$OUT/bench.tar" -C /tmp/bench-results .
fi

if has torch; then
  PYTHONUNBUFFERED=1 python3 bench/peers/torch_seed_models.py $DATA --devices cuda > "$OUT/torch.jsonl" 2>&1
  PYTHONUNBUFFERED=1 python3 bench/peers/torch_seed_models.py $DATA --devices cuda --graph >> "$OUT/torch.jsonl" 2>&1
  grep -i epoch "$OUT/torch.jsonl" | cut -c1-220
fi
date -u
