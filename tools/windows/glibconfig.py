#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write GLib's glibconfig.h for 64-bit Windows (mingw-w64 GCC) from GLib's
own template, glib/glibconfig.h.in, as GLib's meson.build would fill it there.

    glibconfig.py TEMPLATE VERSION OUTPUT

The Windows GLib DLLs come without headers; the headers are Debian's, and
glibconfig.h is the one among them that depends on the target. Each value
below is the branch GLib's meson.build takes for an LLP64 target (short 2,
int 4, long 4, long long 8, pointers and size_t 8 bytes) with host_system
'windows' and a GCC compiler; tools/windows/build-deps then compiles a probe
that checks the sizes and socket constants against mingw-w64's own headers.
"""
import re
import sys

WIN64_MINGW = {
    # meson.build: "if host_system == 'windows'" (G_OS_WIN32 + G_PLATFORM_WIN32)
    "glib_os": "#define G_OS_WIN32\n#define G_PLATFORM_WIN32",
    "gint16": "short", "gint16_modifier": '"h"',
    "gint16_format": '"hi"', "guint16_format": '"hu"',
    "gint32": "int", "gint32_modifier": '""',
    "gint32_format": '"i"', "guint32_format": '"u"',
    # long is 4 bytes: gint64 is long long, int64_m is 'll'
    "glib_extension": "G_GNUC_EXTENSION ", "gint64": "long long",
    "gint64_modifier": '"ll"', "gint64_format": '"lli"',
    "guint64_format": '"llu"',
    "gint64_constant": "(G_GNUC_EXTENSION (val##LL))",
    "guint64_constant": "(G_GNUC_EXTENSION (val##ULL))",
    "glib_void_p": "8", "glib_long": "4", "glib_size_t": "8",
    "glib_ssize_t": "8",
    # size_t is unsigned long long on Win64
    "glib_size_type_define": "long long", "gsize_modifier": '"ll"',
    "gssize_modifier": '"ll"', "gsize_format": '"llu"',
    "gssize_format": '"lli"', "glib_msize_type": "INT64",
    "g_pollfd_format": '"%#llx"',     # x86_64 Windows: SOCKET is 64 bits
    "glib_intptr_type_define": "long long", "gintptr_modifier": '"ll"',
    "gintptr_format": '"lli"', "guintptr_format": '"llu"',
    "glib_gpi_cast": "(gint64)", "glib_gpui_cast": "(guint64)",
    # mingw GCC has va_copy, and a Win64 va_list (a pointer) copies by value
    "glib_vacopy": "#define G_VA_COPY va_copy",
    "g_threads_impl_def": "WIN32",
    "g_bs_native": "LE", "g_bs_alien": "BE", "g_byte_order": "G_LITTLE_ENDIAN",
    "gintbits": "32", "glongbits": "32", "gsizebits": "64",
    "gssizebits": "64",
    # no sys/poll.h on Windows: GLib keeps its historical fixed values
    "g_pollin": "1", "g_pollout": "4", "g_pollpri": "2", "g_pollerr": "8",
    "g_pollhup": "16", "g_pollnval": "32",
    "g_module_suffix": "dll",
    "g_pid_type": "void*", "g_pid_format": '"p"',
    # winsock2.h values, checked by the probe
    "g_af_unix": "1", "g_af_inet": "2", "g_af_inet6": "23",
    "g_msg_oob": "1", "g_msg_peek": "2", "g_msg_dontroute": "4",
    "g_dir_separator": "\\\\", "g_searchpath_separator": ";",
}

# #mesondefine symbols: defined (with this value) or left undefined
WIN64_MINGW_DEFINES = {
    "GLIB_HAVE_ALLOCA_H": None,        # mingw-w64 has malloc.h, no alloca.h
    "GLIB_USING_SYSTEM_PRINTF": None,  # GLib on Windows uses its own printf
    "GLIB_STATIC_COMPILATION": None,   # the DLLs: a shared GLib
    "GOBJECT_STATIC_COMPILATION": None,
    "G_INTL_STATIC_COMPILATION": None,
    "FFI_STATIC_BUILD": None,
    "G_HAVE_GROWING_STACK": "0",       # set10: x86_64 stacks grow down
    "G_HAVE_GNUC_VISIBILITY": None,    # PE has no ELF visibility
    "G_ATOMIC_LOCK_FREE": "1",         # GCC's __atomic builtins on x86_64
}


def fill(template, version):
    major, minor, micro = version.split(".")
    values = dict(WIN64_MINGW, GLIB_MAJOR_VERSION=major,
                  GLIB_MINOR_VERSION=minor, GLIB_MICRO_VERSION=micro)
    out = []
    for line in template.splitlines():
        m = re.match(r"#mesondefine\s+(\w+)\s*$", line)
        if m:
            name = m.group(1)
            if name not in WIN64_MINGW_DEFINES:
                sys.exit(f"glibconfig.py: no Windows value for #mesondefine {name}")
            value = WIN64_MINGW_DEFINES[name]
            out.append(f"/* #undef {name} */" if value is None
                       else f"#define {name} {value}")
            continue

        def sub(mo):
            name = mo.group(1)
            if name not in values:
                sys.exit(f"glibconfig.py: no Windows value for @{name}@")
            return values[name]
        out.append(re.sub(r"@(\w+)@", sub, line))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: glibconfig.py TEMPLATE VERSION OUTPUT")
    with open(sys.argv[1], encoding="utf-8") as f:
        text = fill(f.read(), sys.argv[2])
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
