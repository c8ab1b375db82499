#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""check-manifest.py: the Flatpak manifest's rules, checked offline (TAP).

flatpak-builder-lint, Flathub's linter, installs neither from Debian nor
from PyPI, and a build needs the GNOME SDK from Flathub; so these are the
rules of this manifest that can be checked without either:

- the id is the app's (desktop file, metainfo, icons), on the GNOME runtime;
- every source fetched from the network is pinned: an archive or file by
  sha256, a git source by commit; only the app's own module builds from
  this checkout (a dir source);
- finish-args: only permissions listed below with the reason the app needs
  each, and none of the combinations Flathub refuses;
- OpenBLAS is a DYNAMIC_ARCH build (the engine picks its kernel core), and
  its install step repeats the build's options (OpenBLAS's Makefile derives
  the installed names from them);
- the data set folder the engine is pointed at is one the sandbox can see.

Usage: check-manifest.py [MANIFEST]   (default: the one next to this file)
"""

import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The permissions this app may ask for, each with why.
ALLOWED = {
    "--socket=wayland": "the window",
    "--socket=fallback-x11": "the window where there is no Wayland",
    "--share=ipc": "X11's shared memory",
    "--device=dri": "GTK 4's GL renderer",
    "--share=network": "Download MNIST",
    "--filesystem=host-os:ro": "the host's /usr/share/datasets (dataset-fashion-mnist)",
}
ENV_ALLOWED = {"TRAINBENCH_DATA_DIR"}
# Paths a sandbox sees of the host, by the permission that shows them.
HOST_VIEWS = {"--filesystem=host-os:ro": "/run/host/usr/"}

results = []


def check(name, ok, detail=""):
    results.append((bool(ok), name, detail))


def sources_of(module):
    for source in module.get("sources", []):
        yield module.get("name", "?"), source
    for sub in module.get("modules", []):
        if isinstance(sub, dict):
            yield from sources_of(sub)


def make_vars(command):
    return sorted(w for w in command.split() if re.match(r"^[A-Z_0-9]+=", w)
                  and not w.startswith("PREFIX="))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "org.trainbench.Trainbench.yml")
    with open(path, encoding="utf-8") as f:
        manifest = yaml.safe_load(f)

    app_id = manifest.get("id") or manifest.get("app-id")
    check("the id is org.trainbench.Trainbench", app_id == "org.trainbench.Trainbench", app_id)
    for rel in ("data/org.trainbench.Trainbench.desktop.in",
                "data/org.trainbench.Trainbench.metainfo.xml.in",
                "data/icons/hicolor/scalable/apps/org.trainbench.Trainbench.svg"):
        check(f"{rel} is named by the id", os.path.exists(os.path.join(ROOT, rel.replace(
            "org.trainbench.Trainbench", app_id or "?"))))
    metainfo = open(os.path.join(ROOT, "data/org.trainbench.Trainbench.metainfo.xml.in"),
                    encoding="utf-8").read()
    check("the metainfo's id and launchable are the id",
          f"<id>{app_id}</id>" in metainfo
          and f'<launchable type="desktop-id">{app_id}.desktop</launchable>' in metainfo)
    check("GNOME runtime and SDK", manifest.get("runtime") == "org.gnome.Platform"
          and manifest.get("sdk") == "org.gnome.Sdk")
    version = manifest.get("runtime-version")
    check("runtime-version is a quoted release number",
          isinstance(version, str) and re.fullmatch(r"\d+", version), repr(version))
    check("the command is the app", manifest.get("command") == "trainbench")

    # sources
    modules = manifest.get("modules", [])
    own = modules[-1] if modules else {}
    for module_name, source in (s for m in modules for s in sources_of(m)):
        kind = source.get("type")
        label = f"module {module_name}: {kind} source"
        if kind in ("archive", "file"):
            url = source.get("url", "")
            check(f"{label} is fetched over https", url.startswith("https://"), url)
            check(f"{label} is pinned by sha256",
                  re.fullmatch(r"[0-9a-f]{64}", source.get("sha256", "")))
            check(f"{label} has no md5 or sha1 in place of sha256",
                  not source.get("md5") and not source.get("sha1"))
        elif kind == "git":
            check(f"{label} is fetched over https", source.get("url", "").startswith("https://"))
            check(f"{label} is pinned by commit",
                  re.fullmatch(r"[0-9a-f]{40}", source.get("commit", "")))
        elif kind == "dir":
            check(f"{label} is the app's own module, from this checkout",
                  module_name == own.get("name") == "trainbench"
                  and os.path.realpath(os.path.join(HERE, source.get("path", ""))) == ROOT)
        elif kind == "patch":
            check(f"{label} is a file here", os.path.isfile(os.path.join(HERE, source.get("path", ""))))
        else:
            check(f"{label} is a kind these rules know", False, kind)

    # finish-args
    args = manifest.get("finish-args", [])
    for arg in args:
        if arg.startswith("--env="):
            name = arg[len("--env="):].split("=", 1)[0]
            check(f"{arg}: an environment variable of the app's", name in ENV_ALLOWED)
        else:
            check(f"{arg}: {ALLOWED.get(arg, 'not a permission this app needs')}", arg in ALLOWED)
    check("finish-args listed once each", len(args) == len(set(args)))
    sockets = {a.split("=", 1)[1] for a in args if a.startswith("--socket=")}
    check("not both x11 and fallback-x11", not {"x11", "fallback-x11"} <= sockets)
    check("fallback-x11 only with wayland", "fallback-x11" not in sockets or "wayland" in sockets)
    check("X11 with IPC", not sockets & {"x11", "fallback-x11"} or "--share=ipc" in args)
    check("no session or system bus", not sockets & {"session-bus", "system-bus"})
    for arg in args:
        if arg.startswith("--filesystem="):
            target = arg.split("=", 1)[1]
            check(f"{arg} is not the home or host folder or a reserved path",
                  not re.fullmatch(r"(home|host|~/?)(:\w+)?", target)
                  and not re.match(r"/(usr|app|etc|lib|bin|sbin|proc|dev|run/host|run/flatpak)(/|:|$)",
                                   target))
    check("nothing is built with network access",
          "--share=network" not in (manifest.get("build-options") or {}).get("build-args", []))
    for arg in args:
        if arg.startswith("--env=TRAINBENCH_DATA_DIR="):
            folder = arg.split("=", 2)[2]
            check("TRAINBENCH_DATA_DIR is a folder the sandbox sees",
                  any(arg_ in args and folder.startswith(view) for arg_, view in HOST_VIEWS.items()),
                  folder)

    # OpenBLAS
    blas = next((m for m in modules if isinstance(m, dict) and m.get("name") == "openblas"), None)
    check("an openblas module, before the app's", blas is not None and modules.index(blas) < len(modules) - 1)
    if blas is not None:
        commands = blas.get("build-commands", [])
        builds = [c for c in commands if c.startswith("make") and " install" not in c]
        installs = [c for c in commands if c.startswith("make install")]
        check("OpenBLAS is built with DYNAMIC_ARCH=1", builds and all("DYNAMIC_ARCH=1" in c for c in builds))
        check("OpenBLAS's install repeats the build's options",
              builds and installs and make_vars(builds[0]) == make_vars(installs[0]),
              f"{make_vars(builds[0]) if builds else []} / {make_vars(installs[0]) if installs else []}")
        for arch, options in ((blas.get("build-options") or {}).get("arch") or {}).items():
            check(f"OpenBLAS has a baseline TARGET for {arch}",
                  (options.get("env") or {}).get("OPENBLAS_TARGET"))

    # the app's own module
    opts = own.get("config-opts", [])
    check("the app is built without the CUDA module (no nvcc in the SDK)", "-Dcuda=disabled" in opts)
    check("the app is built with its GUI", "-Dgui=enabled" in opts)
    check("the programs hold no build path (-Dbuild_tree_module=false)",
          "-Dbuild_tree_module=false" in opts)

    failed = 0
    print(f"1..{len(results)}")
    for i, (ok, name, detail) in enumerate(results, 1):
        failed += not ok
        print(f"{'ok' if ok else 'not ok'} {i} - {name}" + ("" if ok or not detail else f"  # {detail}"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
