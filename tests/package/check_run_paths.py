#!/usr/bin/env python3
"""Fails naming every ELF program or shared library under a folder whose run path (DT_RUNPATH or DT_RPATH) has an
entry the loader would resolve against the current directory: an empty one (as a leading, trailing or doubled ':'
gives) or a relative one. A library planted in the directory a program is run from would be loaded through it.

    check_run_paths.py FOLDER [--installed BUILD_TREE]

With --installed, FOLDER is an installed prefix: entries must also name nothing inside BUILD_TREE, which a moved or
packaged install does not have. The ELF files are read directly (no readelf), 32- and 64-bit, either byte order.
"""
import argparse
import os
import struct
import sys

ET_EXEC, ET_DYN = 2, 3
SHT_DYNAMIC = 6
DT_NULL, DT_RPATH, DT_RUNPATH = 0, 15, 29


def run_paths(path):
    """The run path strings of the ELF file at path, or None when it is not an executable or shared ELF file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return None
    wide = data[4] == 2
    order = "<" if data[5] == 1 else ">"
    (kind,) = struct.unpack_from(order + "H", data, 16)
    if kind not in (ET_EXEC, ET_DYN):
        return None
    if wide:
        shoff, = struct.unpack_from(order + "Q", data, 40)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 58)
        section = order + "IIQQQQIIQQ"
    else:
        shoff, = struct.unpack_from(order + "I", data, 32)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 46)
        section = order + "IIIIIIIIII"
    sections = []
    for i in range(shnum):
        start = shoff + i * shentsize
        if start + struct.calcsize(section) > len(data):
            raise ValueError("section header %d lies past the end of the file" % i)
        sections.append(struct.unpack_from(section, data, start))
    found = []
    entry = order + ("qQ" if wide else "iI")
    for _, sh_type, _, _, offset, size, link, _, _, _ in sections:
        if sh_type != SHT_DYNAMIC:
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, struct.calcsize(entry)):
            tag, value = struct.unpack_from(entry, data, at)
            if tag == DT_NULL:
                break
            if tag in (DT_RPATH, DT_RUNPATH):
                end = data.index(b"\0", strings + value)
                found.append(data[strings + value:end].decode("utf-8", "replace"))
    return found


def problems(run_path, build_tree):
    """What is wrong with each entry of one run path string."""
    wrong = []
    for entry in run_path.split(":"):
        if entry == "":
            wrong.append("an empty entry (the current directory)")
        elif not (entry.startswith("/") or entry.startswith("$ORIGIN") or entry.startswith("${ORIGIN}")):
            wrong.append("the relative entry '%s' (resolved against the current directory)" % entry)
        elif build_tree and (entry == build_tree or entry.startswith(build_tree + "/")):
            wrong.append("the entry '%s', inside the build tree" % entry)
    return sorted(set(wrong))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--installed", metavar="BUILD_TREE", help="FOLDER is an install made from BUILD_TREE")
    args = parser.parse_args()
    build_tree = os.path.realpath(args.installed) if args.installed else None
    checked = 0
    failures = []
    for root, _, files in os.walk(args.folder):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            try:
                paths = run_paths(path)
            except (OSError, ValueError, struct.error) as e:
                failures.append("%s: cannot read its ELF headers: %s" % (path, e))
                continue
            if paths is None:
                continue
            checked += 1
            for run_path in paths:
                for wrong in problems(run_path, build_tree):
                    failures.append("%s: run path [%s] has %s" % (path, run_path, wrong))
    for failure in failures:
        print(failure)
    print("%d ELF programs and shared libraries checked under %s, %d problems" % (checked, args.folder, len(failures)))
    if checked == 0:
        print("no ELF program or shared library found: nothing was checked")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
