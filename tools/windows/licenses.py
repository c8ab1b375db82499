#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Copy the licence text of every component bundled in the Windows folder
into one folder, as tools/windows/licenses says, and list them.

    licenses.py TABLE SYSROOT OUTDIR DLL...

Fails when a DLL matches no line of TABLE, or when none of a line's sources
exists on this machine.
"""
import fnmatch
import os
import re
import sys


def parse(table):
    rows = []
    with open(table, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = re.split(r"\s{2,}", line.strip(), maxsplit=3)
            if len(fields) != 4:
                sys.exit(f"licenses.py: {table}: cannot read: {line}")
            pattern, component, spdx, sources = fields
            sources = re.split(r"\s+(?=(?:deb|sysroot|common|notice):)", sources)
            rows.append((pattern, component, spdx, sources))
    return rows


def text_for(component, spdx, sources, sysroot):
    notice = None
    for src in sources:
        kind, _, arg = src.partition(":")
        if kind == "notice":
            notice = arg
        elif kind == "deb":
            for pkg in arg.split("|"):
                path = f"/usr/share/doc/{pkg}/copyright"
                if os.path.isfile(path):
                    return path, None
        elif kind == "sysroot":
            path = os.path.join(sysroot, arg)
            if os.path.isfile(path):
                return path, None
        elif kind == "common":
            path = f"/usr/share/common-licenses/{arg}"
            if os.path.isfile(path):
                return path, notice or f"{component}: {spdx}"
    sys.exit(f"licenses.py: no licence text for {component} on this machine "
             f"(looked for {' '.join(sources)})")


def main():
    table, sysroot, outdir, *dlls = sys.argv[1:]
    rows = parse(table)
    os.makedirs(outdir, exist_ok=True)
    done = {}
    for dll in sorted(dlls, key=str.lower):
        name = os.path.basename(dll)
        for pattern, component, spdx, sources in rows:
            if fnmatch.fnmatch(name.lower(), pattern.lower()):
                break
        else:
            sys.exit(f"licenses.py: {name}: not in {table}; say whose it is and "
                     "under which licence")
        done.setdefault(component, (spdx, sources, []))[2].append(name)

    index = []
    for component, (spdx, sources, names) in sorted(done.items()):
        path, notice = text_for(component, spdx, sources, sysroot)
        fname = re.sub(r"[^A-Za-z0-9.+-]+", "-", component).strip("-") + ".txt"
        with open(path, encoding="utf-8", errors="replace") as f:
            body = f.read()
        with open(os.path.join(outdir, fname), "w", encoding="utf-8", newline="\r\n") as f:
            f.write(f"{component} ({', '.join(names)})\nLicence: {spdx}\n\n")
            if notice:
                f.write(notice + "\n\n")
            f.write(body)
        index.append(f"{fname:40} {component}: {spdx} ({', '.join(names)})")
    with open(os.path.join(outdir, "README.txt"), "w", encoding="utf-8", newline="\r\n") as f:
        f.write("Licences of the components in this folder, one file each:\n\n")
        f.write("\n".join(index) + "\n")


if __name__ == "__main__":
    main()
