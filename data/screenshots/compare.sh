#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# compare.sh [TRAINBENCH]: draws compare.png, the metainfo's comparison
# screenshot, from real runs: the Linux build and the Windows build under
# wine 8.0 on the same 2-core AMD EPYC machine, each preset at one CPU
# thread, the median of three runs each
# (bench/results/local2core-windows-wine-cpu-2026-12-01.md, the "after" runs). The app
# opens the six result files (unpacked from the results file's archive
# of runs), the Runs page is grouped by OS and the window is captured.
# Needs Xvfb, xdotool and ImageMagick's import.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
app=${1:-$root/build/app/trainbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$root/bench/results/local2core-windows-wine-cpu-2026-12-01-runs.tar.xz" -C "$tmp"
runs=$tmp/local2core-windows-wine-cpu-2026-12-01-runs
files=()
for run in linux-cnn-t1-r2 windows-cnn-t1-r2 linux-mlp-wide-t1-r2 windows-mlp-wide-t1-r2 \
           linux-mlp-small-t1-r3 windows-mlp-small-t1-r2; do
  files+=("$runs/$run.json")
done

Xvfb -displayfd 3 -screen 0 1280x900x24 -nolisten tcp 3>"$tmp/display" >/dev/null 2>&1 &
xvfb=$!
trap 'kill $app_pid $xvfb 2>/dev/null; rm -rf "$tmp"' EXIT
app_pid=
for _ in $(seq 100); do [ -s "$tmp/display" ] && break; sleep 0.1; done
export DISPLAY=":$(head -n 1 "$tmp/display")"

HOME=$tmp XDG_DATA_HOME=$tmp/data XDG_CONFIG_HOME=$tmp/config GSETTINGS_BACKEND=memory \
  GSK_RENDERER=cairo LC_ALL=C.UTF-8 "$app" "${files[@]}" >/dev/null 2>&1 &
app_pid=$!
window=
for _ in $(seq 100); do
  window=$(xdotool search --onlyvisible --name '^Trainbench$' 2>/dev/null | head -n 1) && [ -n "$window" ] && break
  sleep 0.2
done
# past the import toast
sleep 8
# the Runs page's "Group by: OS" button, then the pointer out of the way
xdotool mousemove --window "$window" 1055 80 click 1
sleep 1
xdotool mousemove 1270 890
sleep 1
import -window "$window" "$here/compare.png"
echo "wrote $here/compare.png"
