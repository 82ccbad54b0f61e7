// Shared assertion of the layer-kind tests: a loaded engine serializes back to the very plan it came from.
#pragma once

#include "layer_harness.h"

#include <cstring>

namespace kiln::test
{

inline void expectRoundTrip(LayerHarness& h)
{
    ASSERT_NE(h.engine, nullptr);
    std::unique_ptr<nvinfer1::IHostMemory> again(h.engine->serialize());
    ASSERT_NE(again, nullptr);
    ASSERT_EQ(again->size(), h.plan->size());
    EXPECT_EQ(std::memcmp(again->data(), h.plan->data(), h.plan->size()), 0);
}

inline bool errorMentions(LayerHarness const& h, char const* text)
{
    return h.logger.errors().find(text) != std::string::npos;
}

} // namespace kiln::test
