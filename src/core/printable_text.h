// Strings from files and plugins made safe to print. Names and paths from models, plans and plugin libraries are not
// trusted: an escape sequence or a newline in one could rewrite the terminal or forge a line (a "&&&& PASSED" that
// scripts read). Kiln's default logger and the kiln command print every such string through printableText.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace kiln
{
namespace detail
{

//! The length of the well-formed UTF-8 sequence at text[i] (2 to 4) and its code point; 0 when it is not one.
inline size_t utf8Sequence(std::string_view text, size_t i, uint32_t& codePoint)
{
    auto const byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
    uint8_t const lead = byte(i);
    size_t const length = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 0;
    if (length == 0 || lead > 0xF4 || i + length > text.size())
    {
        return 0;
    }
    codePoint = lead & (0x7FU >> length);
    for (size_t k = 1; k < length; ++k)
    {
        if ((byte(i + k) & 0xC0U) != 0x80U)
        {
            return 0;
        }
        codePoint = codePoint << 6U | (byte(i + k) & 0x3FU);
    }
    uint32_t const smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    bool const surrogate = codePoint >= 0xD800 && codePoint <= 0xDFFF;
    return codePoint < smallest[length] || codePoint > 0x10FFFF || surrogate ? 0 : length;
}

//! Code points beyond ASCII that act on the terminal or the line rather than print: C1 controls (0x9B opens an
//! escape sequence on some terminals), marks and overrides that reorder text, line and paragraph separators.
inline bool isUnicodeControl(uint32_t c)
{
    return (c >= 0x80 && c <= 0x9F) || c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E)
        || (c >= 0x2066 && c <= 0x2069) || c == 0xFEFF;
}

inline void appendHex(std::string& out, char const* prefix, uint32_t value, char const* suffix)
{
    char text[16];
    std::snprintf(text, sizeof(text), "%s%02X%s", prefix, static_cast<unsigned>(value), suffix);
    out += text;
}

} // namespace detail

//! text as it may be printed to a terminal or a log. Control characters become \n, \r, \t or \xHH, bytes that are
//! not UTF-8 \xHH, and the Unicode characters that reorder or break lines (C1 controls, bidirectional marks and
//! overrides, line separators) \u{HHHH}; printable text, non-ASCII letters included, is kept as it is. Backslashes
//! are kept too, so an escape in the output may also be a backslash in the name.
inline std::string printableText(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();)
    {
        auto const c = static_cast<uint8_t>(text[i]);
        if (c >= 0x20 && c < 0x7F)
        {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        uint32_t codePoint = 0;
        size_t const length = c >= 0x80 ? detail::utf8Sequence(text, i, codePoint) : 0;
        if (length > 0 && !detail::isUnicodeControl(codePoint))
        {
            out.append(text.substr(i, length));
        }
        else if (length > 0)
        {
            detail::appendHex(out, "\\u{", codePoint, "}");
        }
        else
        {
            char const* named = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : nullptr;
            if (named != nullptr)
            {
                out += named;
            }
            else
            {
                detail::appendHex(out, "\\x", c, "");
            }
        }
        i += length > 0 ? length : 1;
    }
    return out;
}

} // namespace kiln
