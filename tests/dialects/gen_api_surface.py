#!/usr/bin/env python3
# Writes a compile test from a list of TensorRT 10.x declarations (tests/dialects/surface/*.txt):
#   python3 gen_api_surface.py surface/runtime.txt runtime_surface_test.cpp
# The list's format, one declaration a line ('#' starts a comment):
#   include <Header.h>            a header the test includes
#   using NAMESPACE               a using-directive for the names that follow
#   class NAME [: BASE] [app]     the class the indented method lines below belong to; `app` marks a class that
#                                 applications or plugins implement (Kiln's rule: no noexcept on its virtuals)
#     NAME RET(PARAMS) [c] [loose] [final]
#                                 a method of exactly that type; `c` for const; every method of a class Kiln
#                                 implements is noexcept, except those marked `loose` (TensorRT itself leaves
#                                 noexcept off them, so either form is source compatible); `final` marks a method
#                                 of an `app` class that TensorRT's header implements and applications leave alone
#                                 (noexcept as TensorRT declares it, not overridden by the test)
#   enum[!] NAME: kA kB kC=7 ...  the enumerators in order, with their values (0, 1, ... unless given);
#                                 `enum!` for an enum that TensorRT gives no EnumMax
#       ...                       a line indented by four spaces continues the line before
#   type ALIAS = TYPE             an alias naming exactly that type
#   field STRUCT MEMBER TYPE      a data member of exactly that type
#   free NAME RET(PARAMS) [loose] a free function of exactly that type (noexcept unless `loose`)
#   assert EXPRESSION             a constant expression that must hold
# For an `app` class the test names each method with its type without noexcept and declares a class overriding
# every method without noexcept, which does not compile where Kiln's declaration carries noexcept.
import re
import subprocess
import sys


def split_signature(text):
    m = re.match(r'(\S+) (.+?)\((.*)\)((?: c| loose| final)*)$', text.strip())
    if not m:
        raise SystemExit(f'cannot read: {text}')
    name, ret, params, flags = m.groups()
    return name, ret, params, 'c' in flags.split(), 'loose' in flags.split(), 'final' in flags.split()


def method_type(ret, params, const, noexcept):
    return f'{ret}({params}){" const" if const else ""}{" noexcept" if noexcept else ""}'


def override_declaration(cls, name, ret, params, const):
    return f'    {ret} {name}({params}){" const" if const else ""} override;'


class Surface:
    def __init__(self):
        self.includes = []
        self.body = []
        self.counts = {'methods': 0, 'enumerators': 0, 'enums': 0, 'types': 0, 'fields': 0, 'free': 0,
                       'classes': 0, 'overridable': 0}
        self.cls = None
        self.app_methods = []

    def close_class(self):
        if self.cls and self.app_methods:
            name = self.cls
            safe = re.sub(r'\W', '_', name)
            self.body.append(f'// Overrides of every {name} method without noexcept (TensorRT 7 style).')
            self.body.append(f'class Overrides{safe} : public {name}')
            self.body.append('{')
            self.body.append('public:')
            for (mname, ret, params, const) in self.app_methods:
                self.body.append(override_declaration(name, mname, ret, params, const))
            self.body.append('};')
        self.cls = None
        self.app_methods = []

    def method(self, text):
        name, ret, params, const, loose, final = split_signature(text)
        overridable = self.app and not final
        noexcept = not (overridable or loose)
        sig = method_type(ret, params, const, noexcept)
        self.body.append(f'KILN_NAMES_METHOD({self.cls}, {name}, {sig})')
        self.counts['methods'] += 1
        if overridable:
            self.app_methods.append((name, ret, params, const))
            self.counts['overridable'] += 1

    def line(self, raw):
        text = raw.split('#', 1)[0].rstrip()
        if not text.strip():
            return
        if raw.startswith('  '):
            self.method(text)
            return
        self.close_class()
        word, _, rest = text.partition(' ')
        getattr(self, 'do_' + word.rstrip('!'))(rest, word.endswith('!'))

    def do_include(self, rest, _):
        self.includes.append(f'#include {rest}')

    def do_using(self, rest, _):
        self.body.append(f'using namespace {rest};')

    def do_class(self, rest, _):
        words = rest.split()
        self.app = words[-1] == 'app'
        if self.app:
            words = words[:-1]
        self.cls = words[0]
        self.counts['classes'] += 1
        self.body.append(f'// {self.cls}')
        if len(words) == 3 and words[1] == ':':
            self.body.append(f'static_assert(std::is_base_of_v<{words[2]}, {self.cls}>, '
                             f'"{self.cls} derives from {words[2]}");')

    def do_enum(self, rest, no_max):
        name, _, names = rest.partition(': ')
        value = 0
        items = names.split()
        values = set()
        for item in items:
            enumerator, eq, given = item.partition('=')
            if eq:
                value = int(given, 0)
            self.body.append(f'KILN_ENUMERATOR({name}, {enumerator}, {value})')
            values.add(value)
            value += 1
        if not no_max:
            # An alias (kWEIGHTLESS = kSTRIP_PLAN) adds a name, not a value: EnumMax counts the values.
            self.body.append(f'static_assert(EnumMax<{name}>() >= {len(values)});')
        self.counts['enums'] += 1
        self.counts['enumerators'] += len(items)

    def do_type(self, rest, _):
        alias, _, target = rest.partition(' = ')
        self.body.append(f'static_assert(std::is_same_v<{alias}, {target}>);')
        self.counts['types'] += 1

    def do_field(self, rest, _):
        struct, member, target = rest.split(' ', 2)
        self.body.append(f'static_assert(std::is_same_v<decltype({struct}::{member}), {target}>);')
        self.counts['fields'] += 1

    def do_free(self, rest, _):
        name, ret, params, _, loose, _ = split_signature(rest)
        self.counts['free'] += 1
        pointer = f'kFree{self.counts["free"]}'
        self.body.append(f'[[maybe_unused]] constexpr {ret} (*{pointer})({params}){"" if loose else " noexcept"} = '
                         f'&{name};')

    def do_assert(self, rest, _):
        self.body.append(f'static_assert({rest});')


def generate(source, target):
    surface = Surface()
    surface.app = False
    lines = []
    with open(source) as f:
        for raw in f:
            raw = raw.rstrip('\n')
            if raw.startswith('    ') and lines:
                lines[-1] += ' ' + raw.strip()  # a continuation of the line before
            else:
                lines.append(raw)
    for raw in lines:
        surface.line(raw)
    surface.close_class()
    name = source.split('/')[-1]
    out = [f'''// Generated by tests/dialects/gen_api_surface.py from tests/dialects/surface/{name}: do not edit.
// Every declaration listed there (TensorRT 10.x's, see docs/api-coverage.md for the version) named with TensorRT's
// types: each method's address is taken as a pointer of exactly TensorRT's signature (return type, parameters,
// const, noexcept), each class's base, each enumerator's value, each alias and field type is checked, and the
// classes applications implement are overridden without noexcept. A declaration missing from Kiln's headers, or
// declared with another type, fails to compile. Compiled as application code is (C++17, -Wall -Wextra -Werror).''']
    out.append('#include "surface_checks.h"\n')
    out += surface.includes
    out.append('''
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace
{
''')
    out += surface.body
    out.append('''
} // namespace
''')
    with open(target, 'w') as f:
        f.write('\n'.join(out))
    # The tree's layout (clang-format 14 and .clang-format), so the checked-in file passes the style check.
    subprocess.run(['clang-format', '-i', target], check=False)
    counts = surface.counts
    print(f'{name}: ' + ', '.join(f'{v} {k}' for k, v in counts.items()))


if __name__ == '__main__':
    generate(sys.argv[1], sys.argv[2])
