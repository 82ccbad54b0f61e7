#include "network/fused/pointwise.h"

#include "core/data_type.h"

#include <cmath>
#include <string>

namespace kiln::network
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::LayerType;

//! The count of the enumeration of a step's operation: the range a plan's value must lie in.
int32_t operationCount(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kELEMENTWISE: return nvinfer1::EnumMax<nvinfer1::ElementWiseOperation>();
    case LayerType::kACTIVATION: return nvinfer1::EnumMax<nvinfer1::ActivationType>();
    case LayerType::kUNARY: return nvinfer1::EnumMax<nvinfer1::UnaryOperation>();
    default: return 0;
    }
}

} // namespace

void PointwiseStep::write(serial::ByteWriter& writer) const
{
    serial::writeEnum(writer, kind);
    writer.write(operation);
    writer.write(alpha);
    writer.write(beta);
    writer.write(first);
    writer.write(second);
    serial::writeEnum(writer, valueType);
}

bool PointwiseStep::read(serial::ByteReader& reader, char const* what)
{
    if (!serial::readEnum(reader, kind, what) || !reader.read(operation, what) || !reader.read(alpha, what)
        || !reader.read(beta, what) || !reader.read(first, what) || !reader.read(second, what)
        || !serial::readEnum(reader, valueType, what))
    {
        return false;
    }
    if (kind == LayerType::kQUANTIZE)
    {
        auto const codes = static_cast<DataType>(operation);
        bool const scaled = std::isfinite(alpha) && alpha > 0.0F;
        if ((codes != DataType::kINT8 && codes != DataType::kFP8) || !scaled || !isFloatType(valueType))
        {
            return reader.fail(std::string(what) + ": a Q -> DQ step needs INT8 or FP8 codes (type "
                + std::to_string(operation) + "), a positive finite scale (" + std::to_string(alpha)
                + ") and a FLOAT, HALF or BF16 value type");
        }
        return true;
    }
    if (operation < 0 || operation >= operationCount(kind))
    {
        return reader.fail(std::string(what) + ": operation " + std::to_string(operation) + " of layer kind "
            + std::to_string(static_cast<int32_t>(kind)) + " is out of range");
    }
    return true;
}

PointwiseStep quantizationStep(DataType codes, float scale, DataType valueType, int32_t first)
{
    PointwiseStep step;
    step.kind = LayerType::kQUANTIZE;
    step.operation = static_cast<int32_t>(codes);
    step.alpha = scale;
    step.valueType = valueType;
    step.first = first;
    return step;
}

bool PointwiseParams::infer(InferenceContext& ctx) const
{
    return ctx.fail("a point-wise chain is made by the CPU backend's fusion, never added to a network");
}

bool wellFormed(std::vector<PointwiseStep> const& steps, size_t inputs)
{
    auto const valid = [&](int32_t operand, size_t step) {
        return PointwiseOperand::isStep(operand) ? static_cast<size_t>(PointwiseOperand::stepOf(operand)) < step
                                                 : static_cast<size_t>(operand) < inputs;
    };
    for (size_t s = 0; s < steps.size(); ++s)
    {
        if (!valid(steps[s].first, s) || (steps[s].binary() && !valid(steps[s].second, s)))
        {
            return false;
        }
    }
    return !steps.empty();
}

} // namespace kiln::network
