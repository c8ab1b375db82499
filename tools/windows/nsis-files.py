#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write the installer's file lists for a folder:

  nsis-files.py FOLDER OUTDIR [COMPONENT=RELPATH ...]

OUTDIR/install.nsh copies every file of FOLDER into $INSTDIR, but the files
given as COMPONENT=RELPATH, which go to OUTDIR/install-COMPONENT.nsh for an
optional section of their own (cuda=bin/trainbench-cuda.dll);
OUTDIR/uninstall.nsh removes exactly those files and then their folders,
deepest first, so the uninstaller never deletes what it did not install.
"""
import os
import sys


def nsis_path(rel):
    return rel.replace("/", "\\")


def write_install(path, folder, files):
    with open(path, "w", encoding="utf-8") as f:
        current = None
        for rel, name in files:
            if rel != current:
                f.write(f'SetOutPath "$INSTDIR\\{nsis_path(rel)}"\n' if rel
                        else 'SetOutPath "$INSTDIR"\n')
                current = rel
            f.write(f'File "{os.path.join(folder, rel, name)}"\n')
        f.write('SetOutPath "$INSTDIR"\n')


def main():
    folder, outdir = sys.argv[1], sys.argv[2]
    apart = {}
    for arg in sys.argv[3:]:
        component, _, rel = arg.partition("=")
        if not component or not os.path.isfile(os.path.join(folder, rel)):
            sys.exit("nsis-files.py: %s: not COMPONENT=RELPATH of a file in %s" % (arg, folder))
        apart[os.path.normpath(rel)] = component
    os.makedirs(outdir, exist_ok=True)
    dirs, files = [], []
    for top, dnames, fnames in os.walk(folder):
        dnames.sort()
        rel = os.path.relpath(top, folder)
        rel = "" if rel == "." else rel
        if rel:
            dirs.append(rel)
        for f in sorted(fnames):
            files.append((rel, f))

    main_files = [(r, n) for r, n in files if os.path.join(r, n) not in apart]
    write_install(os.path.join(outdir, "install.nsh"), folder, main_files)
    for component in sorted(set(apart.values())):
        write_install(os.path.join(outdir, "install-%s.nsh" % component), folder,
                      [(r, n) for r, n in files if apart.get(os.path.join(r, n)) == component])

    with open(os.path.join(outdir, "uninstall.nsh"), "w", encoding="utf-8") as f:
        for rel, name in files:
            f.write(f'Delete "$INSTDIR\\{nsis_path(os.path.join(rel, name))}"\n')
        for rel in sorted(dirs, key=lambda d: d.count(os.sep), reverse=True):
            f.write(f'RMDir "$INSTDIR\\{nsis_path(rel)}"\n')


if __name__ == "__main__":
    main()
