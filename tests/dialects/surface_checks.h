// The checks the generated *_surface_test.cpp files (gen_api_surface.py) are made of: a method named with exactly
// TensorRT's signature, and an enumerator with TensorRT's value. Each is a static_assert, so a declaration missing
// from Kiln's headers, or declared with another type, fails to compile.
#pragma once

#include <cstdint>

namespace kiln::surface
{

template <typename Class, typename Signature>
using MemberOf = Signature Class::*;

} // namespace kiln::surface

//! A method of `Class` named `name` whose type is exactly the signature given last (noexcept included).
#define KILN_NAMES_METHOD(Class, name, ...)                                                                            \
    static_assert(                                                                                                     \
        static_cast<::kiln::surface::MemberOf<Class, __VA_ARGS__>>(&Class::name) != nullptr, #Class "::" #name);

//! An enumerator `Enum::name` whose value is `value`.
#define KILN_ENUMERATOR(Enum, name, value) static_assert(static_cast<int64_t>(Enum::name) == (value), #Enum "::" #name);
