#include "backend/cpu/kernels/tensor/random_fill.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"
#include "backend/shared/counter_random.h"

#include <cmath>

namespace kiln::cpu
{
namespace
{

using nvinfer1::FillOperation;
using namespace tensor_detail;

constexpr char const* kKernel = "randomFill";

} // namespace

void randomFill(LayerInputs const& inputs, TensorView const& output, network::FillParams const& params)
{
    if (params.operation != FillOperation::kRANDOM_UNIFORM && params.operation != FillOperation::kRANDOM_NORMAL)
    {
        fail(kKernel, "the operation must be kRANDOM_UNIFORM or kRANDOM_NORMAL");
    }
    if (!isFloatType(output.type))
    {
        fail(kKernel, std::string("the output must be FP32, FP16 or BF16, not ") + dataTypeName(output.type));
    }
    double const alpha = numberOr(inputs, 1, params.alpha, kKernel);
    double const beta = numberOr(inputs, 2, params.beta, kKernel);
    if (!std::isfinite(alpha) || !std::isfinite(beta))
    {
        fail(kKernel, "alpha and beta must be finite");
    }
    bool const uniform = params.operation == FillOperation::kRANDOM_UNIFORM;
    if (uniform && alpha > beta)
    {
        fail(kKernel,
            "the minimum alpha (" + std::to_string(alpha) + ") exceeds the maximum beta (" + std::to_string(beta)
                + ")");
    }
    if (!uniform && beta < 0.0)
    {
        fail(kKernel, "the standard deviation beta (" + std::to_string(beta) + ") is negative");
    }
    int64_t const count = output.count();
    for (int64_t i = 0; i < count; ++i)
    {
        auto const element = static_cast<uint64_t>(i);
        double const value = uniform ? counter_random::uniformElement(alpha, beta, element)
                                     : counter_random::normalElement(alpha, beta, element);
        writeFloat(output.data, output.type, i, static_cast<float>(value));
    }
}

} // namespace kiln::cpu
