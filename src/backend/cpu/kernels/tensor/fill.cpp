#include "backend/cpu/kernels/tensor/fill.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/random_fill.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cmath>
#include <cstring>

namespace kiln::cpu
{
namespace
{

using nvinfer1::FillOperation;
using namespace tensor_detail;

constexpr char const* kKernel = "fill";

} // namespace

void fill(TensorView const& output, Fill const& params)
{
    if (params.operation != FillOperation::kLINSPACE)
    {
        fail(kKernel, "only kLINSPACE has a reference kernel (random fills are not reproducible)");
    }
    if (params.beta.size() != output.shape.size())
    {
        fail(kKernel, "beta needs one delta per output dim: " + std::to_string(params.beta.size()) + " for rank " +
                std::to_string(output.shape.size()));
    }
    bool const integer = isIndexType(output.type);
    if (!integer && !isFloatType(output.type))
    {
        fail(kKernel, std::string("unsupported type ") + dataTypeName(output.type));
    }
    if (output.count() == 0)
    {
        return;
    }
    // For integer outputs offsets[0] is the exact sum of beta[d] * i_d; real outputs recompute it in double.
    Shape integerDeltas(params.beta.size());
    for (size_t d = 0; d < params.beta.size(); ++d)
    {
        integerDeltas[d] = static_cast<int64_t>(params.beta[d]);
    }
    int64_t const integerStart = static_cast<int64_t>(params.alpha);
    int64_t position = 0;
    Shape index(output.shape.size(), 0);
    forEachIndex<1>(output.shape, {integerDeltas},
        [&](std::array<int64_t, 1> const& offsets)
        {
            if (integer)
            {
                writeInteger(output.data, output.type, position, integerStart + offsets[0]);
            }
            else
            {
                double value = params.alpha;
                for (size_t d = 0; d < index.size(); ++d)
                {
                    value += params.beta[d] * static_cast<double>(index[d]);
                }
                writeFloat(output.data, output.type, position, static_cast<float>(value));
            }
            ++position;
            for (size_t d = index.size(); d-- > 0;)
            {
                if (++index[d] < output.shape[d])
                {
                    break;
                }
                index[d] = 0;
            }
        });
}

void fillWithValue(TensorView const& output, ConstTensorView const& value)
{
    if (value.count() != 1 || value.type != output.type)
    {
        fail("fillWithValue", "value must be one element of the output's type");
    }
    size_t const bytes = byteSizeOf(output.type, "fillWithValue");
    auto* destination = static_cast<uint8_t*>(output.data);
    int64_t const count = output.count();
    for (int64_t i = 0; i < count; ++i)
    {
        std::memcpy(destination + static_cast<size_t>(i) * bytes, value.data, bytes);
    }
}

int64_t rangeLength(double start, double limit, double delta)
{
    if (delta == 0.0)
    {
        fail("range", "delta must not be 0");
    }
    return std::max<int64_t>(static_cast<int64_t>(std::ceil((limit - start) / delta)), 0);
}

int64_t rangeLength(int64_t start, int64_t limit, int64_t delta)
{
    if (delta == 0)
    {
        fail("range", "delta must not be 0");
    }
    int64_t const span = limit - start;
    // Ceiling division that is exact for every sign combination.
    int64_t quotient = span / delta;
    if (span % delta != 0 && ((span > 0) == (delta > 0)))
    {
        ++quotient;
    }
    return std::max<int64_t>(quotient, 0);
}

void run(network::FillParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    // Alpha (input 1) and beta (input 2) each come from their input when it is given, else from the parameters.
    double const alpha = hasInput(in, 1) ? numberAt(in[1], 0) : p.alpha;
    if (p.operation != nvinfer1::FillOperation::kLINSPACE)
    {
        randomFill(out[0], RandomFill{p.operation, alpha, hasInput(in, 2) ? numberAt(in[2], 0) : p.beta});
        return;
    }
    Fill params;
    params.operation = p.operation;
    params.alpha = alpha;
    params.beta.clear();
    if (hasInput(in, 2))
    {
        for (int64_t i = 0; i < in[2].count(); ++i)
        {
            params.beta.push_back(numberAt(in[2], i));
        }
    }
    else if (out[0].rank() == 1)
    {
        params.beta.push_back(p.beta);
    }
    else if (out[0].rank() > 1)
    {
        throw std::invalid_argument("fill: a kLINSPACE fill of rank " + std::to_string(out[0].rank())
            + " needs beta as input 2, one delta per output dim (a static beta is a single delta, for 0-D and 1-D "
              "outputs)");
    }
    fill(out[0], params);
}

} // namespace kiln::cpu
