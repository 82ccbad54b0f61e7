// IParametricReLULayer: x >= 0 ? x : slope * x, element by element, the slope (input 1) of x's rank broadcast to x
// (each of its extents 1 or x's). Both backends run it as a point-wise program (network/fused/pointwise.h), so it
// has no kernel of its own.
#pragma once

#include "network/fused/pointwise.h"
#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct ParametricReLUParams final
    : LayerParamsOf<ParametricReLUParams, nvinfer1::LayerType::kPARAMETRIC_RELU, nvinfer1::IParametricReLULayer>
{
    bool infer(InferenceContext& ctx) const override;

    //! What both backends run, over inputs (x, slope): relu(x) + slope * (x - relu(x)). For x >= 0 the second term
    //! is slope * 0, for x < 0 the first is 0: exact wherever the slope is finite.
    static PointwiseParams const& program();
};

class ParametricReLULayer final : public LayerBase<nvinfer1::IParametricReLULayer, ParametricReLUParams>
{
public:
    using LayerBase::LayerBase;
};

} // namespace kiln::network
