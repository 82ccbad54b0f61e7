// A fused point-wise chain (network::PointwiseParams) on the reference kernels: each output element evaluated
// through the chain's steps, each step as the reference kernel of the layer it replaced computes it. The fast path's
// kernel (backend/cpu/fast/pointwise.cpp) evaluates each step through PointwiseFunction too, so FP32 results agree
// with the unfused layers' reference bit for bit (a chain is fused only where every layer computes in FP32).
#pragma once

#include "core/tensor_view.h"
#include "network/fused/pointwise.h"
#include "network/layers/activation.h"

namespace kiln::cpu
{

//! One step's function of one element: f(a) or, for an element-wise step, f(a, b).
class PointwiseFunction
{
public:
    explicit PointwiseFunction(network::PointwiseStep const& step);

    float operator()(float a, float b) const;

private:
    network::PointwiseStep mStep;
    network::ActivationParams mActivation; //!< the activation step's parameters, made once
};

//! The shape every input broadcasts into (numpy-style, equal ranks). Throws std::invalid_argument where they do not.
Shape pointwiseOutputShape(std::vector<ConstTensorView> const& inputs);

//! Writes `output` (floating point, shape pointwiseOutputShape) from floating-point `inputs`. Throws
//! std::invalid_argument for an ill-formed chain or mismatched shapes.
void runPointwise(
    network::PointwiseParams const& params, std::vector<ConstTensorView> const& inputs, TensorView const& output);

} // namespace kiln::cpu
