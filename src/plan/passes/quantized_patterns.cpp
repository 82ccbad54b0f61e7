#include "plan/passes/quantized_patterns.h"

#include "core/data_type.h"
#include "network/layers/quantize.h"
#include "plan/plan_graph.h"

namespace kiln::plan
{

using nvinfer1::DataType;

std::optional<float> perTensorScale(
    LayerRecord const& record, std::function<std::optional<float>(int32_t)> const& valueOf)
{
    std::optional<float> const scale = record.inputs.size() > 1 ? valueOf(record.inputs[1]) : std::nullopt;
    bool const noZeroPoint = record.inputs.size() < 3 || record.inputs[2] < 0 || valueOf(record.inputs[2]) == 0.0F;
    return scale && noZeroPoint ? scale : std::nullopt;
}

std::optional<float> perTensorScale(PatternGraph const& graph, LayerRecord const& record)
{
    return perTensorScale(record, [&graph](int32_t t) { return graph.scalar(t); });
}

std::optional<Dequantization> dequantizationOf(PatternGraph const& graph, int32_t t)
{
    std::optional<size_t> const p = graph.producer(t);
    if (!p || graph.removed(*p) || paramsOf<network::DequantizeParams>(graph.layer(*p)) == nullptr)
    {
        return std::nullopt;
    }
    LayerRecord const& dq = graph.layer(*p);
    std::optional<float> const scale = perTensorScale(graph, dq);
    DataType const quantized = slotType(graph.model(), dq, 0);
    DataType const written = graph.model().tensors[t].type;
    bool const types = (quantized == DataType::kINT8 || quantized == DataType::kFP8) && isFloatType(written)
        && slotType(graph.model(), dq, dq.inputs.size()) == written;
    return scale && types ? std::optional<Dequantization>(Dequantization{*p, dq.inputs[0], *scale, quantized, written})
                          : std::nullopt;
}

std::optional<Dequantization> int8DequantizationOf(PatternGraph const& graph, int32_t t)
{
    std::optional<Dequantization> dq = dequantizationOf(graph, t);
    return dq && dq->quantizedType == DataType::kINT8 ? dq : std::nullopt;
}

bool readOnlyBy(PatternGraph const& graph, Dequantization const& dq, size_t reader)
{
    std::optional<size_t> const sole = graph.soleReader(dq.layer);
    return sole && *sole == reader;
}

std::optional<DataType> chainType(PatternGraph const& graph, LayerRecord const& record)
{
    std::optional<DataType> const type = record.precision;
    bool const one = type && isFloatType(*type) && computesIn(graph.model(), record, type, *type);
    return one ? type : std::nullopt;
}

bool joinsInFloat(PatternGraph const& graph, std::optional<size_t> next, size_t anchor)
{
    std::optional<DataType> const type = chainType(graph, graph.layer(anchor));
    return type && next && !graph.removed(*next) && graph.layer(*next).guards == graph.layer(anchor).guards
        && chainType(graph, graph.layer(*next)) == type;
}

bool isInt8Quantization(PatternGraph const& graph, std::optional<size_t> l, size_t anchor)
{
    return isQuantization(graph, l, anchor, DataType::kINT8);
}

bool isQuantization(PatternGraph const& graph, std::optional<size_t> l, size_t anchor, DataType quantizedType)
{
    if (!l || graph.removed(*l) || graph.layer(*l).guards != graph.layer(anchor).guards)
    {
        return false;
    }
    LayerRecord const& record = graph.layer(*l);
    auto const* params = paramsOf<network::QuantizeParams>(record);
    std::optional<DataType> const type = chainType(graph, graph.layer(anchor));
    return params != nullptr && params->toType == quantizedType && perTensorScale(graph, record) && type
        && slotType(graph.model(), record, 0) == *type
        && slotType(graph.model(), record, record.inputs.size()) == quantizedType;
}

bool runsWithFloatOutput(PatternGraph& graph, LayerRecord const& record,
    std::function<bool(PlanModel const&, LayerRecord const&)> const& runs)
{
    int32_t const output = record.outputs[0];
    DataType const stored = graph.model().tensors[output].type;
    bool const reduced = record.precision == DataType::kFLOAT
        && (stored == DataType::kHALF || stored == DataType::kBF16);
    if (reduced)
    {
        graph.retype(output, DataType::kFLOAT);
    }
    bool const accepted = runs(graph.model(), record);
    if (reduced && !accepted)
    {
        graph.retype(output, stored);
    }
    return accepted;
}

void dropUnreadDequantizations(PlanModel& model)
{
    std::vector<std::vector<size_t>> const readers = readersOf(model);
    std::vector<bool> unread(model.layers.size(), false);
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        unread[l] = paramsOf<network::DequantizeParams>(layer) != nullptr && layer.outputs.size() == 1
            && readers[layer.outputs[0]].empty() && !isObserved(model.tensors[layer.outputs[0]]);
    }
    eraseLayers(model, unread);
}

network::WeightsBuffer int8WeightsBuffer(std::vector<int8_t> const& values)
{
    return network::WeightsBuffer(
        nvinfer1::Weights{DataType::kINT8, values.data(), static_cast<int64_t>(values.size())});
}

network::WeightsBuffer fp8WeightsBuffer(std::vector<uint8_t> const& values)
{
    return network::WeightsBuffer(
        nvinfer1::Weights{DataType::kFP8, values.data(), static_cast<int64_t>(values.size())});
}

network::WeightsBuffer floatWeightsBuffer(std::vector<float> const& values)
{
    return network::WeightsBuffer(
        nvinfer1::Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())});
}

LayerRecord fusedChainRecord(PatternGraph const& graph, nvinfer1::LayerType type, LayerRecord const& anchor,
    std::vector<int32_t> inputs, std::vector<size_t> const& absorbed,
    std::shared_ptr<network::LayerParams const> params)
{
    LayerRecord record;
    record.type = type;
    record.precision = DataType::kFLOAT;
    record.guards = anchor.guards;
    record.inputs = std::move(inputs);
    record.outputs = graph.layer(absorbed.back()).outputs;
    record.name = graph.namesOf(absorbed);
    record.params = std::move(params);
    return record;
}

} // namespace kiln::plan
