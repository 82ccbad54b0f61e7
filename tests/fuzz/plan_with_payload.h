// What the plugin payload fuzzer does to a seed plan, shared with the regression tests that replay its findings: the
// plan's first plugin layer gets other payload bytes, and the plan is written again (with a valid checksum).
#pragma once

#include "network/plugin_layer.h"
#include "plan/plan_format.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace kiln::fuzz
{

inline std::vector<uint8_t> readBytes(std::string const& path)
{
    std::ifstream file(path, std::ios::binary);
    return std::vector<uint8_t>{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

//! The first plugin layer's record, or null.
inline plan::LayerRecord* firstPluginLayer(plan::PlanModel& model)
{
    for (auto& layer : model.layers)
    {
        if (dynamic_cast<network::PluginParams const*>(layer.params.get()) != nullptr)
        {
            return &layer;
        }
    }
    return nullptr;
}

//! `seedPlan` with `payload` as its first plugin layer's bytes; empty where the seed is unreadable or has no plugin.
inline std::vector<uint8_t> planWithPayload(std::vector<uint8_t> const& seedPlan, uint8_t const* payload, size_t size)
{
    plan::PlanModel model;
    std::string error;
    plan::LayerRecord* layer = plan::readPlan(seedPlan.data(), seedPlan.size(), model, error) ? firstPluginLayer(model)
                                                                                              : nullptr;
    if (layer == nullptr)
    {
        return {};
    }
    auto params = std::make_unique<network::PluginParams>(static_cast<network::PluginParams const&>(*layer->params));
    params->payload.bytes.assign(payload, payload + size);
    layer->params = std::move(params);
    return plan::writePlan(model);
}

//! A fuzzer input, "<seed>\n<payload>": the seed plan's name (its file name without ".plan") and the bytes.
struct PayloadInput
{
    std::string seed;
    uint8_t const* payload{nullptr};
    size_t size{0};
};

//! False where the input has no newline.
inline bool splitInput(uint8_t const* data, size_t size, PayloadInput& input)
{
    uint8_t const* end = data + size;
    uint8_t const* newline = std::find(data, end, '\n');
    if (newline == end)
    {
        return false;
    }
    input.seed.assign(reinterpret_cast<char const*>(data), newline - data);
    input.payload = newline + 1;
    input.size = static_cast<size_t>(end - input.payload);
    return true;
}

} // namespace kiln::fuzz
