#!/usr/bin/env python3
"""Checks that Kiln's headers declare each class's methods in TensorRT's order.

The lists of TensorRT's declarations the surface tests compile from (surface/*.txt, and gen_network_surface.py's
network list) follow TensorRT's headers line by line. For every class they list, this finds the class in Kiln's
headers (include/) and compares the order in which the listed methods' names first appear there, overloads counted
in turn, with the list's order.

  check_declaration_order.py INCLUDE_DIR SURFACE_DIR    exits 1, naming each class out of order
"""

import pathlib
import re
import sys


def listed_methods(surface_dir):
    """[(list, class, [method name, ...])] in TensorRT's order, from the surface lists and the network list (a class
    both name, as IBuilderConfig, is checked against each on its own: each lists part of its methods)."""
    lists = []
    for path in sorted(pathlib.Path(surface_dir, "surface").glob("*.txt")):
        classes = {}
        current = None
        for line in path.read_text().splitlines():
            if line.startswith("class "):
                current = line.split()[1]
                classes.setdefault(current, [])
            elif line.startswith("  ") and not line.startswith("    ") and current and line.strip():
                if not line.strip().startswith("#"):
                    classes[current].append(line.split()[0])
            elif line and not line.startswith(" "):
                current = None
        lists += [(path.name, name, methods) for name, methods in classes.items() if methods]
    network = pathlib.Path(surface_dir, "gen_network_surface.py").read_text()
    block = network.split("methods = \'\'\'", 1)[1].split("\'\'\'", 1)[0]
    classes = {}
    for line in block.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            classes.setdefault(parts[0], []).append(parts[1])
    lists += [("gen_network_surface.py", name, methods) for name, methods in classes.items()]
    return lists


def without_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def closing_brace(text, start):
    """The index of the brace that closes the one at `start`."""
    depth = 0
    for end in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return end
    return len(text)


def class_bodies(include_dir):
    """{class: body text} for every class the headers define, by its name, and by the alias naming a versioned one
    (`using IPluginV3OneBuildV2 = v_2_0::IPluginV3OneBuild;`); unversioned or v_1_0 definitions name the class."""
    bodies = {}
    for path in sorted(pathlib.Path(include_dir).glob("*.h")):
        text = without_comments(path.read_text())
        namespaces = []  # (start, end, name) of each namespace block
        for match in re.finditer(r"\bnamespace\s+(\w+)\s*\{", text):
            namespaces.append((match.end() - 1, closing_brace(text, match.end() - 1), match.group(1)))
        versioned = {}
        for match in re.finditer(r"\bclass\s+(?:TENSORRTAPI\s+)?(\w+)\s*(?:final\s*)?(?::[^{;]*)?\{", text):
            start = match.end() - 1
            body = text[start : closing_brace(text, start)]
            inner = [name for begin, end, name in namespaces if begin < start < end and re.fullmatch(r"v_\d+_\d+", name)]
            version = inner[-1] if inner else None
            versioned[(version, match.group(1))] = body
            if version in (None, "v_1_0") and match.group(1) not in bodies:
                bodies[match.group(1)] = body
        for match in re.finditer(r"\busing\s+(\w+)\s*=\s*(v_\d+_\d+)::(\w+)\s*;", text):
            if (match.group(2), match.group(3)) in versioned:
                bodies[match.group(1)] = versioned[(match.group(2), match.group(3))]
    return bodies


def public_part(body):
    """The public sections of a class body (TensorRT's classes start public; Kiln's compatibility overloads hide in
    protected or private sections)."""
    parts = re.split(r"\b(public|protected|private)\s*:", body)
    kept, access = [parts[0]], "public"
    for i in range(1, len(parts), 2):
        access = parts[i]
        if access == "public":
            kept.append(parts[i + 1])
    return "".join(kept)


def declared_order(body, names):
    """The listed names in the order the body declares them (each declaration, so overloads count in turn)."""
    body = public_part(body)
    wanted = set(names)
    found = []
    # `using ILayer::setInput;` declares the base's method in the class, as TensorRT's layer classes do.
    for match in re.finditer(r"\busing\s+\w+::(\w+)\s*;|\b(\w+)\s*\(", body):
        if match.group(1):
            if match.group(1) in wanted:
                found.append(match.group(1))
            continue
        name = match.group(2)
        # A declaration, not a call inside an inline body: preceded by a type, `virtual`, or `~`.
        before = body[: match.start()].rstrip()
        if name in wanted and before and (before[-1] in "*&>" or re.search(r"(\w)$", before)):
            if not re.search(r"(return|=|\(|,)\s*$", before):
                found.append(name)
    return found


def collapsed(names):
    """Consecutive overloads as one entry: Kiln adds some next to TensorRT's (TensorRT 7's IPluginV2::enqueue)."""
    return [name for i, name in enumerate(names) if i == 0 or names[i - 1] != name]


def main():
    include_dir, surface_dir = sys.argv[1], sys.argv[2]
    bodies = class_bodies(include_dir)
    lists = listed_methods(surface_dir)
    failures = []
    for source, name, methods in lists:
        if name not in bodies:
            failures.append(f"{name} ({source}): not defined in {include_dir}")
            continue
        declared = collapsed(declared_order(bodies[name], methods))
        methods = collapsed(methods)
        if declared != methods:
            first = next((i for i, (a, b) in enumerate(zip(declared, methods)) if a != b), min(len(declared), len(methods)))
            failures.append(f"{name} ({source}): method {first + 1} is "
                            f"{declared[first] if first < len(declared) else 'missing'}, TensorRT declares "
                            f"{methods[first] if first < len(methods) else 'nothing more'} there")
    for failure in failures:
        print(failure)
    print(f"{len(lists) - len(failures)} classes in TensorRT's order, {len(failures)} not")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
