// Element counts and byte sizes computed without wrapping around. Extents and counts come from files and callers
// that Kiln does not trust (ONNX models, plans, command-line flags): a product that overflows must become an error
// naming what was too large, never a small buffer that a later loop writes past.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>

namespace kiln
{

//! a * b for non-negative a and b; nullopt when the product does not fit in int64_t.
inline std::optional<int64_t> checkedMultiply(int64_t a, int64_t b)
{
    int64_t product = 0;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &product))
    {
        return std::nullopt;
    }
    return product;
}

//! a + b for non-negative a and b; nullopt when the sum does not fit in int64_t.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b)
{
    int64_t sum = 0;
    if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &sum))
    {
        return std::nullopt;
    }
    return sum;
}

//! The product of the extents [first, last); nullopt when an extent is negative or the product overflows int64_t.
//! An extent of 0 makes the count 0 whatever the others are.
template <typename Iterator>
std::optional<int64_t> checkedElementCount(Iterator first, Iterator last)
{
    if (std::any_of(first, last, [](auto extent) { return extent < 0; }))
    {
        return std::nullopt;
    }
    if (std::any_of(first, last, [](auto extent) { return extent == 0; }))
    {
        return 0;
    }
    std::optional<int64_t> count = 1;
    for (; first != last && count; ++first)
    {
        count = checkedMultiply(*count, static_cast<int64_t>(*first));
    }
    return count;
}

//! The product of a container's extents (a Shape, a std::vector<int64_t>...), as checkedElementCount(first, last).
template <typename Extents>
std::optional<int64_t> checkedElementCount(Extents const& extents)
{
    return checkedElementCount(std::begin(extents), std::end(extents));
}

//! count elements of elementSize bytes each, in bytes; nullopt when count is negative or the size overflows
//! what a size_t or a ptrdiff_t (the largest object C++ can address) holds.
inline std::optional<size_t> checkedByteSize(int64_t count, size_t elementSize)
{
    std::optional<int64_t> const bytes = elementSize > static_cast<size_t>(std::numeric_limits<int64_t>::max())
        ? std::nullopt
        : checkedMultiply(count, static_cast<int64_t>(elementSize));
    if (!bytes || static_cast<uint64_t>(*bytes) > static_cast<uint64_t>(std::numeric_limits<ptrdiff_t>::max()))
    {
        return std::nullopt;
    }
    return static_cast<size_t>(*bytes);
}

} // namespace kiln
