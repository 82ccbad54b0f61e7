#include "backend/cpu/kernels/tensor/fill.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/random_fill.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace kiln::cpu
{
namespace
{

using nvinfer1::FillOperation;
using namespace tensor_detail;

constexpr char const* kKernel = "fill";

//! One delta per output dim: input 2's values, or the static beta for a 1-D output (none for a 0-D one).
std::vector<double> linspaceDeltas(LayerInputs const& inputs, int32_t outputRank, double staticBeta)
{
    std::vector<double> deltas;
    if (hasInput(inputs, 2))
    {
        for (int64_t i = 0; i < inputs[2].count(); ++i)
        {
            deltas.push_back(numberAt(inputs[2], i, kKernel));
        }
    }
    else if (outputRank == 1)
    {
        deltas.push_back(staticBeta);
    }
    else if (outputRank > 1)
    {
        fail(kKernel,
            "a kLINSPACE fill of rank " + std::to_string(outputRank)
                + " needs beta as input 2, one delta per output dim (a static beta is a single delta, for 0-D and 1-D "
                  "outputs)");
    }
    return deltas;
}

} // namespace

void fill(LayerInputs const& inputs, TensorView const& output, network::FillParams const& params)
{
    if (params.operation != FillOperation::kLINSPACE)
    {
        fail(kKernel, "the operation must be kLINSPACE (randomFill makes the random ones)");
    }
    double const alpha = numberOr(inputs, 1, params.alpha, kKernel);
    std::vector<double> const beta = linspaceDeltas(inputs, output.rank(), params.beta);
    if (beta.size() != output.shape.size())
    {
        fail(kKernel,
            "beta needs one delta per output dim: " + std::to_string(beta.size()) + " for rank "
                + std::to_string(output.shape.size()));
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
    Shape integerDeltas(beta.size());
    for (size_t d = 0; d < beta.size(); ++d)
    {
        integerDeltas[d] = static_cast<int64_t>(beta[d]);
    }
    int64_t const integerStart = static_cast<int64_t>(alpha);
    int64_t position = 0;
    Shape index(output.shape.size(), 0);
    forEachIndex<1>(output.shape, {integerDeltas}, [&](std::array<int64_t, 1> const& offsets) {
        if (integer)
        {
            writeInteger(output.data, output.type, position, integerStart + offsets[0]);
        }
        else
        {
            double value = alpha;
            for (size_t d = 0; d < index.size(); ++d)
            {
                value += beta[d] * static_cast<double>(index[d]);
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
    if (p.operation == nvinfer1::FillOperation::kLINSPACE)
    {
        fill(in, out[0], p);
    }
    else
    {
        randomFill(in, out[0], p);
    }
}

} // namespace kiln::cpu
