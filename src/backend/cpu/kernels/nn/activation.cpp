#include "backend/cpu/kernels/nn/activation.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/element_access.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace kiln::cpu
{
namespace
{

// log(1 + exp(z)) without overflow for large z and without losing small results for very negative z.
double softplusUnit(double z)
{
    return z > 0.0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
}

double sigmoid(double x)
{
    // Both branches keep exp's argument non-positive, so nothing overflows.
    if (x >= 0.0)
    {
        return 1.0 / (1.0 + std::exp(-x));
    }
    double const e = std::exp(x);
    return e / (1.0 + e);
}

} // namespace

float activate(network::ActivationParams const& params, float x)
{
    using nvinfer1::ActivationType;
    double const v = x;
    double const alpha = params.alpha;
    double const beta = params.beta;
    switch (params.activation)
    {
    case ActivationType::kRELU: return std::isnan(x) ? x : std::max(x, 0.0F);
    case ActivationType::kSIGMOID: return static_cast<float>(sigmoid(v));
    case ActivationType::kTANH: return std::tanh(x);
    case ActivationType::kLEAKY_RELU: return x >= 0.0F ? x : static_cast<float>(alpha * v);
    case ActivationType::kELU: return x >= 0.0F ? x : static_cast<float>(alpha * std::expm1(v));
    case ActivationType::kSELU: return static_cast<float>(x > 0.0F ? beta * v : beta * alpha * std::expm1(v));
    case ActivationType::kSOFTSIGN: return static_cast<float>(v / (1.0 + std::fabs(v)));
    case ActivationType::kSOFTPLUS: return static_cast<float>(alpha * softplusUnit(beta * v));
    case ActivationType::kCLIP: return std::isnan(x) ? x : std::max(params.alpha, std::min(params.beta, x));
    case ActivationType::kHARD_SIGMOID:
        return std::isnan(x) ? x : static_cast<float>(std::max(0.0, std::min(1.0, alpha * v + beta)));
    case ActivationType::kSCALED_TANH: return static_cast<float>(alpha * std::tanh(beta * v));
    case ActivationType::kTHRESHOLDED_RELU: return x > params.alpha ? x : (std::isnan(x) ? x : 0.0F);
    case ActivationType::kGELU_ERF: return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::numbers::sqrt2)));
    case ActivationType::kGELU_TANH:
    {
        double const inner = std::sqrt(2.0 / std::numbers::pi) * (v + 0.044715 * v * v * v);
        return static_cast<float>(0.5 * v * (1.0 + std::tanh(inner)));
    }
    }
    return x;
}

void runActivation(network::ActivationParams const& params, ConstTensorView const& input, TensorView const& output)
{
    requireShape(output.shape, input.shape, "activation output");
    requireFloatingPoint(input, "activation input");
    requireFloatingPoint(output, "activation output");
    if (static_cast<int32_t>(params.activation) < 0
        || static_cast<int32_t>(params.activation) >= nvinfer1::EnumMax<nvinfer1::ActivationType>())
    {
        throw std::invalid_argument("activation: unknown ActivationType");
    }
    int64_t const count = input.count();
    for (int64_t i = 0; i < count; ++i)
    {
        storeFloat(output, i, activate(params, loadFloat(input, i)));
    }
}

void run(network::ActivationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runActivation(params, inputs[0], outputs[0]);
}

} // namespace kiln::cpu
