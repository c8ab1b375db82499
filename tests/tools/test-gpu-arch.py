#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# test-gpu-arch.py: tools/test builds the CUDA module for this machine's GPUs
# only (tools/gpu-arch): the architectures nvidia-smi lists, without a GPU
# the newest of gpu_arch's default; TRAINBENCH_GPU_ARCH=all gives the whole
# default, as the packages build, and any other value is taken as it is;
# tools/test configures its build with it and debian/rules keeps the default.
# Usage: test-gpu-arch.py SOURCE_ROOT   (TAP)
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = sys.argv[1]
script = os.path.join(root, "tools", "gpu-arch")
checks = []


def ok(cond, what):
    checks.append(bool(cond))
    print(("ok" if cond else "not ok") + " %d - %s" % (len(checks), what), flush=True)


default = re.search(r"option\('gpu_arch'.*?value: '([^']*)'",
                    open(os.path.join(root, "meson_options.txt")).read()).group(1)


def gpu_arch(tmp, smi=None, env_arch=None):
    # a PATH of the tools the script uses, and nvidia-smi when given
    bin_dir = os.path.join(tmp, "bin-%d" % len(checks))
    os.makedirs(bin_dir)
    for tool in ("bash", "sed", "tr", "grep", "sort", "paste", "dirname"):
        os.symlink(shutil.which(tool), os.path.join(bin_dir, tool))
    if smi is not None:
        fake = os.path.join(bin_dir, "nvidia-smi")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\nprintf '%s'\n" % smi.replace("\n", "\\n"))
        os.chmod(fake, 0o755)
    env = {"PATH": bin_dir}
    if env_arch is not None:
        env["TRAINBENCH_GPU_ARCH"] = env_arch
    p = subprocess.run([os.path.join(bin_dir, "bash"), script], capture_output=True, text=True,
                       env=env)
    return p.stdout.strip() if p.returncode == 0 else "failed: " + p.stderr.strip()


with tempfile.TemporaryDirectory() as tmp:
    got = gpu_arch(tmp)
    ok(got == default.split(";")[-1], "no GPU: the newest of %s alone (%s)" % (default, got))
    got = gpu_arch(tmp, smi="9.0\n8.6\n9.0\n")
    ok(got == "86;90", "the GPUs nvidia-smi lists, each once (%s)" % got)
    got = gpu_arch(tmp, smi="")
    ok(got == default.split(";")[-1], "nvidia-smi without a GPU: as without one (%s)" % got)
    got = gpu_arch(tmp, smi="9.0\n", env_arch="all")
    ok(got == default, "TRAINBENCH_GPU_ARCH=all: every one of the default (%s)" % got)
    got = gpu_arch(tmp, env_arch="80;90")
    ok(got == "80;90", "TRAINBENCH_GPU_ARCH='80;90': those (%s)" % got)

test = open(os.path.join(root, "tools", "test")).read()
ok(re.search(r'^gpu_arch=\$\(tools/gpu-arch\)$', test, re.M)
   and re.search(r'configure build [^\n]*-Dgpu_arch="\$gpu_arch"', test)
   and "set_gpu_arch build" in test,
   "tools/test configures its build (new or not) with tools/gpu-arch's architectures")
# every -Dgpu_arch of debian/rules is under its one-gpu-arch profile
rules = open(os.path.join(root, "debian", "rules")).read().splitlines()
narrowed = [i for i, line in enumerate(rules) if "-Dgpu_arch" in line]
ok(narrowed and all("pkg.trainbench.one-gpu-arch" in rules[i - 1] for i in narrowed),
   "debian/rules builds all of gpu_arch's default unless its one-gpu-arch profile asks")

print("1..%d" % len(checks))
sys.exit(0 if all(checks) else 1)
