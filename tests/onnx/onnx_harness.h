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

} // namespace kiln::test
