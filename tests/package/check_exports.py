#!/usr/bin/env python3
"""Fails naming every dynamic symbol of a shared library that its API list (cmake/exports/<target>.api) does not
allow, and every listed entry point, function or class the library does not export.

    check_exports.py LIBRARY API_LIST [--nm NM]

Allowed: version KILN_1 for what the list names (extern "C" entry points, every symbol of a listed namespace, every
overload of a listed function, a listed class's members, type information and virtual table), version KILN_PRIVATE
for Kiln's own internals (namespace kiln). Anything else (an unversioned symbol, the standard library's or a
third-party library's code, an internal name in KILN_1) is a failure. Symbols are read with `nm -D --defined-only -C`.
"""
import argparse
import subprocess
import sys

# How the demangler prefixes the symbols a class or variable brings besides its functions.
SPECIAL_FORMS = ("typeinfo name for ", "typeinfo for ", "vtable for ", "VTT for ", "non-virtual thunk to ",
                 "virtual thunk to ", "guard variable for ", "construction vtable for ")


class Api:
    """The entries of one API list."""

    def __init__(self, lines):
        self.entry_points, self.namespaces, self.functions, self.classes = set(), [], [], []
        for line in lines:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            kind, _, name = line.partition(" ")
            if kind == "namespace":
                self.namespaces.append(name)
            elif kind == "function":
                self.functions.append(name)
            elif kind == "class":
                self.classes.append(name)
            else:
                self.entry_points.add(line)

    def names(self, symbol):
        """The listed entry, function or class that symbol belongs to, or None."""
        if symbol in self.entry_points:
            return symbol
        bare = strip_form(symbol)
        for namespace in self.namespaces:
            if bare.startswith(namespace + "::"):
                return namespace
        for function in self.functions:
            if bare.startswith(function + "(") or bare.startswith(function + "[abi:"):
                return function
        for cls in self.classes:
            if bare == cls or bare.startswith(cls + "::"):
                return cls
        return None


def strip_form(symbol):
    for form in SPECIAL_FORMS:
        if symbol.startswith(form):
            return symbol[len(form):]
    return symbol


def exported(library, nm):
    """(name, version) of each symbol the library defines in its dynamic symbol table."""
    text = subprocess.run([nm, "-D", "--defined-only", "-C", library], check=True, capture_output=True,
                          text=True).stdout
    symbols = []
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3 or parts[1] == "A":  # "A": a version's own definition
            continue
        name, at, version = parts[2].rpartition("@")
        if not at:
            name, version = parts[2], ""
        symbols.append((name.rstrip("@"), version))
    return symbols


def problems(symbols, api):
    found = []
    seen = set()
    for name, version in symbols:
        if version == "KILN_1":
            entry = api.names(name)
            if entry is None:
                found.append("exported as API (KILN_1) but not listed: %s" % name)
            seen.add(entry)
        elif version == "KILN_PRIVATE":
            if not strip_form(name).startswith("kiln::"):
                found.append("exported as Kiln's internal (KILN_PRIVATE) but not in namespace kiln: %s" % name)
        else:
            found.append("exported %s: %s" % ("without a version" if not version else "as " + version, name))
    for entry in sorted(api.entry_points | set(api.functions) | set(api.classes)):
        if entry not in seen:
            found.append("listed but not exported: %s" % entry)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("library")
    parser.add_argument("api_list")
    parser.add_argument("--nm", default="nm")
    args = parser.parse_args()
    with open(args.api_list) as f:
        api = Api(f.readlines())
    symbols = exported(args.library, args.nm)
    found = problems(symbols, api)
    for problem in found:
        print("%s: %s" % (args.library, problem))
    if found:
        print("%d problem(s) among %d exported symbols; the list is %s" % (len(found), len(symbols), args.api_list))
        return 1
    print("%s: %d exported symbols, all as %s allows" % (args.library, len(symbols), args.api_list))
    return 0


if __name__ == "__main__":
    sys.exit(main())
