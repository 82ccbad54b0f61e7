// LayerHarness with an ONNX parser on its network: parse a model, then build and run it on the CPU.
#pragma once

#include "layer_harness.h"
#include "model_builder.h"

#include <NvOnnxParser.h>

#include <memory>
#include <string>

namespace kiln::test
{

struct OnnxHarness : LayerHarness
{
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};

    bool parse(std::string const& bytes, char const* path = nullptr)
    {
        return parser->parse(bytes.data(), bytes.size(), path);
    }
    //! Every parser error's description, one per line.
    std::string parserErrors() const
    {
        std::string all;
        for (int i = 0; i < parser->getNbErrors(); ++i)
        {
            all += std::string(parser->getError(i)->desc()) + "\n";
        }
        return all;
    }
};

//! Parses m and expects exactly one error, at the node named "bad" of operator `op`, with `code` and a description
//! that contains `text`.
inline void expectNodeError(
    ModelBuilder const& m, nvonnxparser::ErrorCode code, std::string const& op, char const* text)
{
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    ASSERT_EQ(h.parser->getNbErrors(), 1) << h.parserErrors();
    nvonnxparser::IParserError const* error = h.parser->getError(0);
    EXPECT_EQ(error->code(), code) << error->desc();
    EXPECT_STREQ(error->nodeName(), "bad");
    EXPECT_EQ(error->nodeOperator(), op);
    EXPECT_NE(std::string(error->desc()).find(text), std::string::npos) << error->desc();
}

} // namespace kiln::test
