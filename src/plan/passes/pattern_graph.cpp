#include "plan/passes/pattern_graph.h"

#include "core/data_type.h"
#include "core/tensor_view.h"
#include "network/layers/constant.h"
#include "network/layers/elementwise.h"
#include "network/layers/unary.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cmath>

namespace kiln::plan
{

PatternGraph::PatternGraph(PlanModel& model)
    : mModel(model)
    , mReaders(readersOf(model))
    , mProducers(producersOf(model))
    , mRemoved(model.layers.size(), false)
{
}

std::optional<size_t> PatternGraph::producer(int32_t t) const
{
    if (t < 0 || mProducers[t] < 0 || mRemoved[mProducers[t]])
    {
        return std::nullopt;
    }
    return static_cast<size_t>(mProducers[t]);
}

std::optional<size_t> PatternGraph::soleReader(size_t l) const
{
    return plan::soleReader(mModel, mReaders, l);
}

std::optional<size_t> PatternGraph::soleReaderOf(int32_t t) const
{
    return plan::soleReaderOf(mModel, mReaders, t);
}

std::optional<SelfGated> PatternGraph::selfGated(int32_t t) const
{
    std::optional<SelfGated> const gated = plan::selfGatedOf(mModel, mReaders, t);
    return gated && !mRemoved[gated->activation] && !mRemoved[gated->product] ? gated : std::nullopt;
}

LayerRecord const* PatternGraph::elementWise(std::optional<size_t> l, nvinfer1::ElementWiseOperation operation) const
{
    if (!l || mRemoved[*l])
    {
        return nullptr;
    }
    LayerRecord const& record = mModel.layers[*l];
    auto const* params = paramsOf<network::ElementWiseParams>(record);
    bool const binary = record.inputs.size() == 2 && record.inputs[0] >= 0 && record.inputs[1] >= 0;
    return params != nullptr && params->operation == operation && binary && record.outputs.size() == 1 ? &record
                                                                                                       : nullptr;
}

LayerRecord const* PatternGraph::unary(std::optional<size_t> l, nvinfer1::UnaryOperation operation) const
{
    if (!l || mRemoved[*l])
    {
        return nullptr;
    }
    LayerRecord const& record = mModel.layers[*l];
    auto const* params = paramsOf<network::UnaryParams>(record);
    bool const oneInput = record.inputs.size() == 1 && record.inputs[0] >= 0;
    return params != nullptr && params->operation == operation && oneInput && record.outputs.size() == 1 ? &record
                                                                                                         : nullptr;
}

int32_t PatternGraph::otherOperand(LayerRecord const& layer, int32_t t)
{
    if (layer.inputs.size() != 2)
    {
        return -1;
    }
    return layer.inputs[0] == t ? layer.inputs[1] : layer.inputs[1] == t ? layer.inputs[0] : -1;
}

std::optional<float> PatternGraph::scalar(int32_t t) const
{
    return scalarConstant(mModel, t, [this](int32_t u) { return producer(u); });
}

bool PatternGraph::isScalar(int32_t t, double value) const
{
    std::optional<float> const held = scalar(t);
    return held && std::fabs(*held - value) <= 1e-6 * std::fabs(value);
}

bool PatternGraph::alike(std::vector<size_t> const& layers) const
{
    std::optional<nvinfer1::DataType> precision;
    for (size_t l : layers)
    {
        LayerRecord const& layer = mModel.layers[l];
        if (layer.guards != mModel.layers[layers.front()].guards || !linearThroughout(mModel, layer))
        {
            return false;
        }
        for (size_t slot = 0; slot < layer.inputs.size() + layer.outputs.size(); ++slot)
        {
            bool const absent = slot < layer.inputs.size() && layer.inputs[slot] < 0;
            if (!absent && !isFloatType(slotType(mModel, layer, slot)))
            {
                return false;
            }
        }
        if (layer.precision && precision && *layer.precision != *precision)
        {
            return false;
        }
        precision = layer.precision ? layer.precision : precision;
    }
    return true;
}

std::string PatternGraph::namesOf(std::vector<size_t> layers) const
{
    std::sort(layers.begin(), layers.end());
    std::string name;
    for (size_t l : layers)
    {
        name += (name.empty() ? "" : " + ") + mModel.layers[l].name;
    }
    return name;
}

void PatternGraph::replace(std::vector<size_t> const& absorbed, size_t at, LayerRecord record)
{
    std::vector<int32_t> read;
    for (size_t l : absorbed)
    {
        for (int32_t t : mModel.layers[l].inputs)
        {
            if (t >= 0)
            {
                std::erase(mReaders[t], l);
                read.push_back(t);
            }
        }
        for (int32_t t : mModel.layers[l].outputs)
        {
            mProducers[t] = -1;
        }
        mRemoved[l] = true;
    }
    mModel.layers[at] = std::move(record);
    mRemoved[at] = false;
    for (int32_t t : mModel.layers[at].inputs)
    {
        if (t >= 0)
        {
            mReaders[t].push_back(at);
        }
    }
    for (int32_t t : mModel.layers[at].outputs)
    {
        mProducers[t] = static_cast<int64_t>(at);
    }
    for (int32_t t : read)
    {
        dropUnread(t);
    }
}

//! Removes the layers that made tensor `t` (a constant, and shuffles of it) while nothing reads what they make.
void PatternGraph::dropUnread(int32_t t)
{
    while (t >= 0 && mReaders[t].empty() && !isObserved(mModel.tensors[t]))
    {
        std::optional<size_t> const p = producer(t);
        if (!p)
        {
            return;
        }
        LayerRecord const& layer = mModel.layers[*p];
        bool const shuffle = layer.type == nvinfer1::LayerType::kSHUFFLE && layer.inputs.size() == 1;
        if (layer.type != nvinfer1::LayerType::kCONSTANT && !shuffle)
        {
            return;
        }
        mRemoved[*p] = true;
        mProducers[t] = -1;
        t = shuffle ? layer.inputs[0] : -1;
        if (t >= 0)
        {
            std::erase(mReaders[t], *p);
        }
    }
}

void PatternGraph::retype(int32_t t, nvinfer1::DataType type)
{
    std::vector<std::pair<size_t, std::vector<nvinfer1::DataType>>> readAs;
    for (size_t l : mReaders[t])
    {
        LayerRecord const& reader = mModel.layers[l];
        std::vector<nvinfer1::DataType> types;
        for (size_t slot = 0; slot < reader.inputs.size() + reader.outputs.size(); ++slot)
        {
            bool const absent = slot < reader.inputs.size() && reader.inputs[slot] < 0;
            types.push_back(absent ? nvinfer1::DataType::kFLOAT : slotType(mModel, reader, slot));
        }
        readAs.emplace_back(l, std::move(types));
    }
    TensorRecord& tensor = mModel.tensors[t];
    tensor.maxBytes
        = tensor.maxBytes / static_cast<int64_t>(elementSize(tensor.type)) * static_cast<int64_t>(elementSize(type));
    tensor.type = type;
    for (auto& [l, types] : readAs)
    {
        setIoTypes(mModel, mModel.layers[l], std::move(types));
    }
}

void PatternGraph::commit()
{
    eraseLayers(mModel, mRemoved);
}

} // namespace kiln::plan
