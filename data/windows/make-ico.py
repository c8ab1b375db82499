#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Pack PNG images into a Windows .ico file: make-ico.py OUT.ico IN.png...

Each image is stored as PNG, which Windows reads in icons since Vista; the
build then needs only rsvg-convert and Python, on Linux and under MSYS2 alike.
"""
import struct
import sys


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        sys.exit("make-ico.py: not a PNG file")
    return struct.unpack(">II", data[16:24])


def main():
    out, pngs = sys.argv[1], sys.argv[2:]
    images = []
    for path in pngs:
        with open(path, "rb") as f:
            data = f.read()
        w, h = png_size(data)
        if w > 256 or h > 256:
            sys.exit(f"make-ico.py: {path}: {w}x{h} is larger than 256x256")
        images.append((w, h, data))
    images.sort(key=lambda i: i[0])
    offset = 6 + 16 * len(images)
    head = struct.pack("<HHH", 0, 1, len(images))
    entries, body = b"", b""
    for w, h, data in images:
        # 256 is written as 0; 32 bits per pixel
        entries += struct.pack("<BBBBHHII", w % 256, h % 256, 0, 0, 1, 32,
                               len(data), offset + len(body))
        body += data
    with open(out, "wb") as f:
        f.write(head + entries + body)


if __name__ == "__main__":
    main()
