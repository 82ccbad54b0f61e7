#include "backend/cpu/kernels/tensor/cumulative.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "cumulative";

} // namespace

void cumulative(
    ConstTensorView const& input, TensorView const& output, network::CumulativeParams const& params, int32_t axis)
{
    expectShape(output.shape, input.shape, kKernel, "output");
    if (input.type != output.type)
    {
        fail(kKernel,
            std::string("input is ") + dataTypeName(input.type) + " but output is " + dataTypeName(output.type));
    }
    if (params.operation != nvinfer1::CumulativeOperation::kSUM)
    {
        fail(kKernel, "unknown CumulativeOperation");
    }
    bool const integer = isIndexType(input.type);
    if (!integer && !isFloatType(input.type))
    {
        fail(kKernel, std::string("unsupported type ") + dataTypeName(input.type));
    }
    auto const dim = static_cast<size_t>(normalizeAxis(axis, input.rank(), kKernel));
    if (input.count() == 0)
    {
        return;
    }
    int64_t const extent = input.shape[dim];
    int64_t inner = 1;
    for (size_t d = dim + 1; d < input.shape.size(); ++d)
    {
        inner *= input.shape[d];
    }
    int64_t const outer = input.count() / (extent * inner);
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            double realSum = 0.0;
            uint64_t integerSum = 0; // unsigned: wraps instead of overflowing
            for (int64_t step = 0; step < extent; ++step)
            {
                int64_t const j = params.reverse ? extent - 1 - step : step;
                int64_t const position = (o * extent + j) * inner + i;
                if (integer)
                {
                    uint64_t const value = static_cast<uint64_t>(readInteger(input.data, input.type, position));
                    uint64_t const result = params.exclusive ? integerSum : integerSum + value;
                    integerSum += value;
                    writeInteger(output.data, output.type, position, static_cast<int64_t>(result));
                }
                else
                {
                    double const value = readFloat(input.data, input.type, position);
                    double const result = params.exclusive ? realSum : realSum + value;
                    realSum += value;
                    writeFloat(output.data, output.type, position, static_cast<float>(result));
                }
            }
        }
    }
}

void run(network::CumulativeParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    auto const axis = static_cast<int32_t>(tensor_detail::readInteger(in[1].data, in[1].type, 0));
    cumulative(in[0], out[0], p, axis);
}

} // namespace kiln::cpu
