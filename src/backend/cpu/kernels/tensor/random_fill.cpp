#include "backend/cpu/kernels/tensor/random_fill.h"

#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cmath>
#include <numbers>
#include <random>

namespace kiln::cpu
{
namespace
{

using nvinfer1::FillOperation;
using namespace tensor_detail;

constexpr char const* kKernel = "randomFill";

//! Any constant works; a fixed one makes every run reproducible.
constexpr uint64_t kSeed = 0x6b696c6eULL;

//! Uniform in [0, 1): the generator's top 53 bits, the precision of a double.
double unitInterval(std::mt19937_64& engine)
{
    return static_cast<double>(engine() >> 11) * 0x1.0p-53;
}

} // namespace

void randomFill(TensorView const& output, RandomFill const& params)
{
    if (params.operation != FillOperation::kRANDOM_UNIFORM && params.operation != FillOperation::kRANDOM_NORMAL)
    {
        fail(kKernel, "the operation must be kRANDOM_UNIFORM or kRANDOM_NORMAL");
    }
    if (!isFloatingType(output.type))
    {
        fail(kKernel, std::string("the output must be FP32, FP16 or BF16, not ") + typeName(output.type));
    }
    if (!std::isfinite(params.alpha) || !std::isfinite(params.beta))
    {
        fail(kKernel, "alpha and beta must be finite");
    }
    bool const uniform = params.operation == FillOperation::kRANDOM_UNIFORM;
    if (uniform && params.alpha > params.beta)
    {
        fail(kKernel, "the minimum alpha (" + std::to_string(params.alpha) + ") exceeds the maximum beta ("
                + std::to_string(params.beta) + ")");
    }
    if (!uniform && params.beta < 0.0)
    {
        fail(kKernel, "the standard deviation beta (" + std::to_string(params.beta) + ") is negative");
    }
    std::mt19937_64 engine(kSeed);
    int64_t const count = output.count();
    for (int64_t i = 0; i < count; ++i)
    {
        double value = 0.0;
        if (uniform)
        {
            value = params.alpha + (params.beta - params.alpha) * unitInterval(engine);
        }
        else
        {
            // Box-Muller: 1 - u lies in (0, 1], so the logarithm is finite.
            double const radius = std::sqrt(-2.0 * std::log(1.0 - unitInterval(engine)));
            double const angle = 2.0 * std::numbers::pi * unitInterval(engine);
            value = params.alpha + params.beta * radius * std::cos(angle);
        }
        writeFloat(output.data, output.type, i, static_cast<float>(value));
    }
}

} // namespace kiln::cpu
