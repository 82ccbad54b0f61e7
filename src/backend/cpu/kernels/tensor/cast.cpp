#include "backend/cpu/kernels/tensor/cast.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cstring>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "cast";

//! Integer types, BOOL included (read as 0 or 1), hold exact int64 values.
int64_t readExactInteger(void const* data, DataType type, int64_t i)
{
    switch (type)
    {
    case DataType::kINT8: return static_cast<int8_t const*>(data)[i];
    case DataType::kUINT8: return static_cast<uint8_t const*>(data)[i];
    case DataType::kBOOL: return static_cast<uint8_t const*>(data)[i] != 0 ? 1 : 0;
    default: return readInteger(data, type, i);
    }
}

void writeWrappedInteger(void* data, DataType type, int64_t i, int64_t value)
{
    switch (type)
    {
    case DataType::kINT8: static_cast<int8_t*>(data)[i] = static_cast<int8_t>(value); return;
    case DataType::kUINT8: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(value); return;
    case DataType::kBOOL: static_cast<uint8_t*>(data)[i] = value != 0 ? 1 : 0; return;
    default: writeInteger(data, type, i, value); return;
    }
}

} // namespace

void cast(ConstTensorView const& input, TensorView const& output)
{
    expectShape(output.shape, input.shape, kKernel, "output");
    int64_t const count = input.count();
    if (input.type == output.type && elementSize(input.type) > 0)
    {
        // A copy, which serves the types only quantization layers compute on (FP8) too: an identity between them.
        if (count > 0)
        {
            std::memmove(output.data, input.data, static_cast<size_t>(count) * elementSize(input.type));
        }
        return;
    }
    if (!isNumericType(input.type) || !isNumericType(output.type))
    {
        fail(kKernel, std::string("cannot cast ") + dataTypeName(input.type) + " to " + dataTypeName(output.type));
    }
    if (count == 0)
    {
        return;
    }
    bool const fromFloat = isFloatType(input.type);
    bool const toFloat = isFloatType(output.type);
    size_t const outputBytes = elementSize(output.type);
    for (int64_t i = 0; i < count; ++i)
    {
        if (toFloat)
        {
            float const value = fromFloat ? readFloat(input.data, input.type, i)
                                          : static_cast<float>(readExactInteger(input.data, input.type, i));
            writeFloat(output.data, output.type, i, value);
        }
        else if (!fromFloat)
        {
            writeWrappedInteger(output.data, output.type, i, readExactInteger(input.data, input.type, i));
        }
        else
        {
            // encodeScalar truncates toward zero and saturates, and gives value != 0 for BOOL.
            auto const bytes = encodeScalar(output.type, static_cast<double>(readFloat(input.data, input.type, i)));
            std::memcpy(
                static_cast<uint8_t*>(output.data) + static_cast<size_t>(i) * outputBytes, bytes.data(), outputBytes);
        }
    }
}

void run(network::ConstantParams const& p, LayerInputs const& /*inputs*/, LayerOutputs const& out)
{
    size_t const bytes = static_cast<size_t>(p.weights.count()) * elementSize(p.weights.type());
    if (out[0].type != p.weights.type() || out[0].count() != p.weights.count())
    {
        // The application asked for another output type: convert the weights.
        cast(weightsView(p.weights, out[0].shape), out[0]);
        return;
    }
    if (bytes > 0)
    {
        std::memcpy(out[0].data, p.weights.data(), bytes);
    }
}

void run(network::IdentityParams const& /*params*/, LayerInputs const& in, LayerOutputs const& out)
{
    cast(in[0], out[0]);
}

void run(network::CastParams const& /*params*/, LayerInputs const& in, LayerOutputs const& out)
{
    cast(in[0], out[0]);
}

void run(network::ShapeParams const& /*params*/, LayerInputs const& in, LayerOutputs const& out)
{
    for (size_t i = 0; i < in[0].shape.size(); ++i)
    {
        if (out[0].type == nvinfer1::DataType::kINT32)
        {
            out[0].as<int32_t>()[i] = static_cast<int32_t>(in[0].shape[i]);
        }
        else
        {
            out[0].as<int64_t>()[i] = in[0].shape[i];
        }
    }
}

} // namespace kiln::cpu
