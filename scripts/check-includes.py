#!/usr/bin/env python3
"""Checks Kiln's layering: which module may include which (docs/architecture.md, "Layering").

Reads every #include of the sources in include/, src/, plugins/, tools/, python/, triton/ and examples/, resolves it
to a file of the repository as the build's include paths would, maps both files to their modules, and names every
include that the rules below forbid, and every cycle between modules. Includes that scripts/include-exceptions.txt
lists are known violations being removed; a listed include that no longer breaks a rule must leave the list too.

The rules live here, in the tables below, and nowhere else. Exits 0 when the layering holds, 1 naming what breaks it.
"""

import argparse
import os
import re
import sys

# The library's modules, lowest first: (rank, module, the folders or files it owns). A module may include its own
# files and those of modules of a lower rank; modules of one rank (siblings) never include each other. A path
# belongs to the module with the longest matching prefix.
LIBRARY = [
    (0, "api", ["include/"]),
    (1, "device_common", ["src/device_common/"]),
    (2, "core", ["src/core/"]),
    (3, "serial", ["src/serial/"]),
    (4, "shape", ["src/shape/"]),
    (5, "plugin", ["src/plugin/"]),
    (6, "network", ["src/network/"]),
    (7, "plan", ["src/plan/"]),
    (8, "backend", ["src/backend/"]),
    (9, "backend/cpu", ["src/backend/cpu/"]),
    (9, "backend/cuda", ["src/backend/cuda/"]),
    (10, "backend choice", ["src/backend/choice/"]),
    (11, "builder", ["src/builder/"]),
    (11, "runtime", ["src/runtime/"]),
]

# What sits above the library, and what each may include besides its own files. "core base" is src/core/ less
# CORE_LIBRARY_ONLY: header-only code, compiled into the caller, that binds it to nothing of libkiln's.
UPPER = [
    ("onnx", ["src/onnx/"], ["api", "device_common", "core base"]),
    ("tools", ["tools/"], ["api", "device_common", "core base"]),
    ("python", ["python/"], ["api", "device_common", "core base"]),
    ("triton", ["triton/"], ["api"]),
    ("plugins", ["plugins/"], ["api", "device_common"]),
    ("examples", ["examples/"], ["api"]),
]

# Headers of src/core/ whose functions live in libkiln, which exports only its API: not for the folders above it.
CORE_LIBRARY_ONLY = {
    "src/core/logging.h": "libkiln's logger; above the library, log through getLogger() or kiln/Logging.h",
}

# Internal headers exported to named upper modules, each with why the public API does not serve. Their functions
# are exported from libkiln (TENSORRTAPI).
EXPORTED = [
    ("src/runtime/plan_description.h", ["tools"],
     "kiln inspect and --getPlanVersionOnly read a plan without loading it (no plugin library, no device); the "
     "public API reaches a plan only by deserializing it"),
]

# Tests may include anything: tests/ and bench/, and the tests kept in each plugin's folder (name_test.cpp and the
# name_test_*.h they share).
TEST_FOLDERS = ["tests/", "bench/"]
TEST_FILE = re.compile(r"_test(\.cpp|_\w+\.h)$")

SCANNED = ["include", "src", "plugins", "tools", "python", "triton", "examples"]
SOURCE = re.compile(r"\.(h|hpp|cpp|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*(["<])([^">]+)[">]')

# Where the build looks for an included name, by the including file's folder (after the file's own folder, for
# "..."): each target's include directories. Then FALLBACK, so that an include which only src/ would satisfy is
# named as the module it reaches rather than as a file not found.
SEARCH = [
    ("include/", ["include"]),
    ("src/", ["src", "include", "src/device_common/include"]),
    ("plugins/", ["plugins", "include", "src/device_common/include"]),
    ("tools/", ["tools/kiln", "src", "include", "src/device_common/include"]),
    ("python/", ["python/src", "include"]),
    ("triton/", ["triton/include", "triton/src", "include"]),
    ("examples/", ["examples/seed_plugins", "include"]),
]
FALLBACK = ["src", "include", "src/device_common/include"]

EXCEPTIONS_FILE = "scripts/include-exceptions.txt"


def longest_prefix(path, entries):
    best = None
    for prefix, value in entries:
        if path.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, value)
    return best[1] if best else None


OWNERS = [(prefix, name) for _, name, prefixes in LIBRARY for prefix in prefixes]
OWNERS += [(prefix, name) for name, prefixes, _ in UPPER for prefix in prefixes]
OWNERS += [(prefix, "tests") for prefix in TEST_FOLDERS]
RANK = {name: rank for rank, name, _ in LIBRARY}
UPPER_ALLOWED = {name: allowed for name, _, allowed in UPPER}


def module_of(path):
    """The module that owns a repository path, "tests" for test code, None for a path no table names."""
    if TEST_FILE.search(path) and path.startswith("plugins/"):
        return "tests"
    return longest_prefix(path, OWNERS)


def sources(root):
    for top in SCANNED:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if SOURCE.search(name):
                    yield os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")


def resolve(root, path, quoted, name):
    """The repository file that `#include name` in path reaches, or None (a system or third-party header)."""
    roots = ([os.path.dirname(path)] if quoted else []) + longest_prefix(path, SEARCH) + FALLBACK
    for folder in roots:
        candidate = os.path.normpath(os.path.join(folder, name)).replace(os.sep, "/")
        if not candidate.startswith("../") and os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def includes(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as source:
        for number, line in enumerate(source, 1):
            match = INCLUDE.match(line)
            if match:
                yield number, match.group(1) == '"', match.group(2)


def rule_broken(source, target, target_path):
    """Why source's module may not include target_path (of module target), or None when it may."""
    if source == target:
        return None
    exported = [(header, users) for header, users, _ in EXPORTED if header == target_path]
    if exported and source in exported[0][1]:
        return None
    if source in RANK:
        if target in RANK and RANK[target] < RANK[source]:
            return None
        if target in RANK and RANK[target] == RANK[source]:
            return f"{source} and {target} are siblings, which never include each other"
        return f"{source} may include only modules below it, not {target}"
    allowed = UPPER_ALLOWED[source]
    if target in allowed or (target == "core" and "core base" in allowed and target_path not in CORE_LIBRARY_ONLY):
        return None
    why = f" ({CORE_LIBRARY_ONLY[target_path]})" if target_path in CORE_LIBRARY_ONLY else ""
    return f"{source} may include only {', '.join(allowed)} and the interfaces exported to it, not {target}{why}"


def read_exceptions(root):
    """{(file, included file): line number} of scripts/include-exceptions.txt: "file -> included file  # why"."""
    listed = {}
    path = os.path.join(root, EXCEPTIONS_FILE)
    if not os.path.isfile(path):
        return listed
    with open(path, encoding="utf-8") as text:
        for number, line in enumerate(text, 1):
            entry = line.split("#", 1)[0].strip()
            if entry:
                source, arrow, target = entry.partition(" -> ")
                if not arrow:
                    raise SystemExit(f"{EXCEPTIONS_FILE}:{number}: expected \"file -> included file  # why\"")
                listed[(source.strip(), target.strip())] = number
    return listed


def find_cycles(edges):
    """The cycles of a module graph ({module: set of modules}), each once, as lists of modules."""
    cycles = []
    seen = set()
    for start in sorted(edges):
        stack = [(start, [start])]
        while stack:
            module, trail = stack.pop()
            for following in sorted(edges.get(module, ())):
                if following == start:
                    cycle = trail + [start]
                    key = frozenset(trail)
                    if key not in seen:
                        seen.add(key)
                        cycles.append(cycle)
                elif following not in trail and following > start:
                    stack.append((following, trail + [following]))
    return cycles


def consistency_errors(root):
    """What makes the tables themselves untrue of the tree."""
    errors = []
    for header, _, _ in EXPORTED:
        if not os.path.isfile(os.path.join(root, header)):
            errors.append(f"{header}: listed as exported, but there is no such file")
    core = os.path.join(root, "src/core")
    for name in sorted(os.listdir(core)) if os.path.isdir(core) else []:
        header = "src/core/" + re.sub(r"\.cpp$", ".h", name)
        if name.endswith(".cpp") and os.path.isfile(os.path.join(root, header)) and header not in CORE_LIBRARY_ONLY:
            errors.append(f"{header}: its functions are defined in libkiln (src/core/{name}), so the folders above "
                          "the library may not include it: list it in CORE_LIBRARY_ONLY or make it header-only")
    return errors


def check(root):
    errors = consistency_errors(root)
    exceptions = read_exceptions(root)
    used = set()
    edges = {}
    files = list(sources(root))
    for path in files:
        source = module_of(path)
        if source is None:
            errors.append(f"{path}: belongs to no module of scripts/check-includes.py's tables")
            continue
        if source == "tests":
            continue
        for number, quoted, name in includes(root, path):
            target_path = resolve(root, path, quoted, name)
            if target_path is None:
                if quoted:
                    errors.append(f"{path}:{number}: \"{name}\" is no file of the repository")
                continue
            target = module_of(target_path)
            why = rule_broken(source, target, target_path) if target else "it belongs to no module"
            if why is not None and (path, target_path) in exceptions:
                used.add((path, target_path))
                continue
            if why is not None:
                errors.append(f"{path}:{number}: includes {target_path}: {why}")
            if target is not None and source != target:
                edges.setdefault(source, set()).add(target)
    for cycle in find_cycles(edges):
        errors.append("modules include each other in a cycle: " + " -> ".join(cycle))
    for (path, target_path), number in sorted(exceptions.items(), key=lambda item: item[1]):
        if (path, target_path) not in used:
            errors.append(f"{EXCEPTIONS_FILE}:{number}: {path} -> {target_path} breaks no rule now: remove the line")
    return files, errors, len(used)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                        help="the repository to check (default: this script's)")
    root = os.path.abspath(parser.parse_args().root)
    files, errors, known = check(root)
    for error in errors:
        print(error)
    if errors:
        print(f"check-includes: {len(errors)} problem(s) with the layering (docs/architecture.md, \"Layering\")")
        return 1
    print(f"check-includes: {len(files)} files follow the layering ({known} known exceptions in {EXCEPTIONS_FILE})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
