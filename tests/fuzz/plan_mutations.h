// Seeds for the plan fuzzer that a byte mutator rarely finds: each seed plan with one record changed the way a
// hostile or corrupted writer would, to sizes that overflow (shape constants, integer constants, memory sizes and
// offsets, profile extents of 2^31 and 2^62) or to records that break a layer kind's contract (no inputs, INT64
// inputs and outputs). Each variant is written with a valid checksum, so the reader parses it; the fuzzer then loads
// and runs it, and mutates from there.
#pragma once

#include "core/data_type.h"
#include "network/layers/constant.h"
#include "plan/plan_format.h"
#include "shape/expr.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::fuzz
{

inline constexpr int64_t k2Pow31 = int64_t{1} << 31;
inline constexpr int64_t k2Pow62 = int64_t{1} << 62;
//! Records of each kind changed per seed plan, so that the variants of one seed stay a few dozen.
inline constexpr size_t kMutatedPerKind = 4;

using PlanMutation = std::pair<std::string, std::function<void(plan::PlanModel&)>>;

//! Integer constant layers' values all set to `value` (INT32 ones saturate at 2^31 - 1).
inline void setIntegerConstants(plan::LayerRecord& layer, int64_t value)
{
    auto const* constant = dynamic_cast<network::ConstantParams const*>(layer.params.get());
    if (constant == nullptr || !isIndexType(constant->weights.type()))
    {
        return;
    }
    auto params = std::make_unique<network::ConstantParams>(*constant);
    int64_t const count = constant->weights.count();
    bool const wide = constant->weights.type() == nvinfer1::DataType::kINT64;
    std::vector<int64_t> wideValues(static_cast<size_t>(count), value);
    std::vector<int32_t> narrowValues(static_cast<size_t>(count), static_cast<int32_t>(std::min(value, k2Pow31 - 1)));
    void const* values = wide ? static_cast<void const*>(wideValues.data()) : narrowValues.data();
    params->weights = network::WeightsBuffer(nvinfer1::Weights{constant->weights.type(), values, count});
    layer.params = std::move(params);
}

inline void addExprMutations(plan::PlanModel const& model, std::vector<PlanMutation>& out)
{
    size_t changed = 0;
    for (size_t e = 0; e < model.exprs.size() && changed < kMutatedPerKind; ++e)
    {
        if (model.exprs[e].kind != static_cast<uint8_t>(shape::ExprKind::kCONSTANT) || model.exprs[e].value < 2)
        {
            continue;
        }
        ++changed;
        for (int64_t value : {k2Pow31, k2Pow62})
        {
            out.emplace_back("expr" + std::to_string(e) + "_" + std::to_string(value),
                [e, value](plan::PlanModel& m) { m.exprs[e].value = value; });
        }
    }
}

inline void addLayerMutations(plan::PlanModel const& model, std::vector<PlanMutation>& out)
{
    size_t constants = 0;
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        std::string const at = "layer" + std::to_string(l);
        if (l < kMutatedPerKind)
        {
            out.emplace_back(at + "_no_inputs", [l](plan::PlanModel& m) { m.layers[l].inputs.clear(); });
            out.emplace_back(at + "_int64_io", [l](plan::PlanModel& m) {
                auto& layer = m.layers[l];
                layer.ioTypes.assign(layer.inputs.size() + layer.outputs.size(), nvinfer1::DataType::kINT64);
            });
        }
        if (model.layers[l].type == nvinfer1::LayerType::kCONSTANT && constants++ < kMutatedPerKind)
        {
            out.emplace_back(
                at + "_constant_2e62", [l](plan::PlanModel& m) { setIntegerConstants(m.layers[l], k2Pow62); });
        }
    }
}

inline void addMemoryMutations(plan::PlanModel const& model, std::vector<PlanMutation>& out)
{
    out.emplace_back("arena_2e62", [](plan::PlanModel& m) { m.arenaBytes = k2Pow62; });
    out.emplace_back("workspace_2e62", [](plan::PlanModel& m) { m.workspaceBytes = k2Pow62; });
    size_t changed = 0;
    for (size_t t = 0; t < model.tensors.size() && changed < kMutatedPerKind; ++t)
    {
        if (model.tensors[t].arenaOffset < 0)
        {
            continue;
        }
        ++changed;
        std::string const at = "tensor" + std::to_string(t);
        out.emplace_back(at + "_bytes_2e62", [t](plan::PlanModel& m) { m.tensors[t].maxBytes = k2Pow62; });
        out.emplace_back(at + "_offset_2e62", [t](plan::PlanModel& m) { m.tensors[t].arenaOffset = k2Pow62; });
    }
    if (!model.profiles.empty() && !model.profiles[0].inputs.empty())
    {
        out.emplace_back("profile_max_2e62", [](plan::PlanModel& m) {
            nvinfer1::Dims& max = m.profiles[0].inputs[0][2];
            for (int32_t d = 0; d < max.nbDims; ++d)
            {
                max.d[d] = k2Pow62;
            }
        });
    }
}

//! Every variant of a readable seed plan, by name (without the seed's).
inline std::vector<std::pair<std::string, std::vector<uint8_t>>> overflowVariants(std::vector<uint8_t> const& seed)
{
    plan::PlanModel model;
    std::string error;
    if (!plan::readPlan(seed.data(), seed.size(), model, error))
    {
        return {};
    }
    std::vector<PlanMutation> mutations;
    addExprMutations(model, mutations);
    addLayerMutations(model, mutations);
    addMemoryMutations(model, mutations);
    std::vector<std::pair<std::string, std::vector<uint8_t>>> variants;
    for (auto const& [name, mutate] : mutations)
    {
        plan::PlanModel copy;
        plan::readPlan(seed.data(), seed.size(), copy, error);
        mutate(copy);
        variants.emplace_back(name, plan::writePlan(copy));
    }
    return variants;
}

} // namespace kiln::fuzz
