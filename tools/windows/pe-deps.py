#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""List the DLLs that Windows programs and modules need, by walking their PE
import tables (objdump -p) recursively.

    pe-deps.py --search DIR [--search DIR ...] ROOT...

ROOT are the programs and what they load at run time (modules, plug-ins).
Each imported DLL is looked up, case-insensitively, in the --search folders in
the order given (the first match wins); one not found there is the system's
(KERNEL32.dll, the UCRT's api-ms-win-crt-*.dll, ...). Prints one line per DLL
to bundle, "name<TAB>path", and then "system<TAB>name" lines, both sorted.
"""
import argparse
import os
import subprocess
import sys

OBJDUMP = os.environ.get("OBJDUMP", "x86_64-w64-mingw32-objdump")


def imports(path):
    out = subprocess.run([OBJDUMP, "-p", path], check=True,
                         capture_output=True, text=True).stdout
    names = []
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("DLL Name:"):
            names.append(line.split(":", 1)[1].strip())
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--search", action="append", default=[])
    ap.add_argument("roots", nargs="+")
    args = ap.parse_args()

    available = {}
    for d in args.search:
        for name in sorted(os.listdir(d)):
            if name.lower().endswith(".dll"):
                available.setdefault(name.lower(), os.path.join(d, name))

    bundled, system = {}, set()
    todo = list(args.roots)
    seen = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in imports(path):
            key = name.lower()
            if key in available:
                if key not in bundled:
                    bundled[key] = available[key]
                    todo.append(available[key])
            else:
                system.add(name)

    for key in sorted(bundled):
        print(f"{os.path.basename(bundled[key])}\t{bundled[key]}")
    for name in sorted(system, key=str.lower):
        print(f"system\t{name}")


if __name__ == "__main__":
    sys.exit(main())
