// IScatterLayer (TensorRT 10, ONNX ScatterND, ScatterElements and Scatter): the output is a copy of the data (rank
// r >= 1, any byte-addressable type, which the updates share) in which the updates replace, or with a reduction
// (Kiln's extension, kiln/ScatterReduction.h) combine with, the elements the INT32/INT64 indices pick:
// - kELEMENT: indices and updates have one shape, of rank r, that fits in the data off the axis; update u lands on
//   u's coordinates with the one along the axis replaced by indices[u].
// - kND: indices [..., k] hold tuples of k coordinates (1 <= k <= r, k known when building) that each pick a slice
//   data[i0, ..., ik-1] the updates [indices dims but the last, data dims from k] fill.
// Negative indices count from the end of their axis. The output has the data's shape and type.
//
// The mode is addScatter's argument, so its rank and shape rules hold from the start; the axis and the reduction are
// set after the layer is added, so what depends on them (the axis in range, the indices within the data off the axis,
// a numeric type for an arithmetic reduction) is checked when the network is built. The kernels check again the
// extents known only at run time.
#pragma once

#include "network/layer.h"
#include "network/network.h"

#include <kiln/ScatterReduction.h>

namespace kiln::network
{

struct ScatterParams final : LayerParamsOf<ScatterParams, nvinfer1::LayerType::kSCATTER, nvinfer1::IScatterLayer>
{
    nvinfer1::ScatterMode mode{nvinfer1::ScatterMode::kELEMENT};
    int32_t axis{0};
    ScatterReduction reduction{ScatterReduction::kNONE};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.mode, "scatter mode");
        field(self.axis, "scatter axis");
        field(self.reduction, "scatter reduction");
    }

    //! The types an arithmetic reduction combines: FLOAT, HALF, BF16, INT8, UINT8, INT32 and INT64.
    static bool isReducibleType(nvinfer1::DataType type);

    bool infer(InferenceContext& ctx) const override;
    //! Exports build constants with scatters: Swin's shifted-window attention mask is zeros that ScatterND fills
    //! window by window, from extents known when building.
    bool foldsWhenConstant() const override
    {
        return true;
    }
};

//! ONNX's name of the reduction: "none", "add", "mul", "max" or "min" ("unknown" outside the enum).
char const* scatterReductionName(ScatterReduction reduction);

class ScatterLayer final : public LayerBase<nvinfer1::IScatterLayer, ScatterParams>
{
public:
    using LayerBase::LayerBase;
    //! A value outside ScatterMode is logged as an error and changes nothing.
    void setMode(nvinfer1::ScatterMode mode) noexcept override;
    nvinfer1::ScatterMode getMode() const noexcept override
    {
        return typedParams().mode;
    }
    void setAxis(int32_t axis) noexcept override
    {
        network().invalidate();
        mutableParams().axis = axis;
    }
    int32_t getAxis() const noexcept override
    {
        return typedParams().axis;
    }
    //! kiln::setScatterReduction's work: false (and no change) for a value outside ScatterReduction.
    bool setReduction(ScatterReduction reduction);
    ScatterReduction reduction() const
    {
        return typedParams().reduction;
    }
};

} // namespace kiln::network
