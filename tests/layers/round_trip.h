// Shared assertion of the layer-kind tests: a loaded engine serializes back to the very plan it came from.
#pragma once

#include "layer_harness.h"
#include "plan/plan_format.h"

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

//! The parameters of every layer of kind `Params` in the harness's plan, read back from its bytes: what the plan
//! keeps of the layer's fields.
template <typename Params>
std::vector<Params> paramsInPlan(LayerHarness const& h)
{
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(h.plan->data(), h.plan->size(), model, error)) << error;
    std::vector<Params> found;
    for (kiln::plan::LayerRecord const& record : model.layers)
    {
        if (record.type == Params::kLayerType)
        {
            found.push_back(static_cast<Params const&>(*record.params));
        }
    }
    return found;
}

inline bool errorMentions(LayerHarness const& h, char const* text)
{
    return h.logger.errors().find(text) != std::string::npos;
}

} // namespace kiln::test
