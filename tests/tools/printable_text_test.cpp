// printableText (core/printable_text.h): what the kiln command and Kiln's default logger print of strings from models,
// plans and plugins. Control characters and terminal sequences come out escaped; printable UTF-8 as it is.
#include "core/printable_text.h"

#include <gtest/gtest.h>

namespace
{

using kiln::printableText;

TEST(PrintableText, KeepsPrintableTextAndUtf8)
{
    EXPECT_EQ(printableText("conv1 + relu1 (x.d0) \\ 'q'"), "conv1 + relu1 (x.d0) \\ 'q'");
    EXPECT_EQ(printableText("Gr\xc3\xb6\xc3\x9f"
                            "e \xe5\xbd\xa2\xe7\x8a\xb6 \xf0\x9f\x94\xa5"),
        "Gr\xc3\xb6\xc3\x9f"
        "e \xe5\xbd\xa2\xe7\x8a\xb6 \xf0\x9f\x94\xa5");
    EXPECT_EQ(printableText(""), "");
}

TEST(PrintableText, EscapesControlCharactersAndForgedLines)
{
    EXPECT_EQ(printableText("x\x1b[31m"), "x\\x1B[31m");
    EXPECT_EQ(printableText("y\n&&&& PASSED Kiln"), "y\\n&&&& PASSED Kiln");
    EXPECT_EQ(printableText("a\rb\tc\x7f"
                            "d"),
        "a\\rb\\tc\\x7Fd");
    EXPECT_EQ(printableText(std::string_view("nul\0here", 8)), "nul\\x00here");
}

TEST(PrintableText, EscapesUnicodeThatActsOnTheTerminalOrTheLine)
{
    EXPECT_EQ(printableText("r\xc2\x9b"
                            "31m"),
        "r\\u{9B}31m"); // C1 CSI
    EXPECT_EQ(printableText("a\xe2\x80\xae"
                            "cba"),
        "a\\u{202E}cba"); // right-to-left override
    EXPECT_EQ(printableText("line\xe2\x80\xa8"
                            "two"),
        "line\\u{2028}two"); // line separator
}

TEST(PrintableText, EscapesBytesThatAreNotUtf8)
{
    EXPECT_EQ(printableText("\xff\xfe"), "\\xFF\\xFE");
    EXPECT_EQ(printableText("\xc3"), "\\xC3");                            // a sequence cut short
    EXPECT_EQ(printableText("\xc0\xaf"), "\\xC0\\xAF");                   // an overlong '/'
    EXPECT_EQ(printableText("\xed\xa0\x80"), "\\xED\\xA0\\x80");          // a surrogate
    EXPECT_EQ(printableText("\xf4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80"); // past U+10FFFF
}

} // namespace
