// IGridSampleLayer (TensorRT 10, ONNX GridSample): samples input [N, C, H, W] at the points of grid
// [N, H_out, W_out, 2], whose last dim holds (x, y) normalized to [-1, 1], into [N, C, H_out, W_out]. The
// interpolation mode (kLINEAR by default, kNEAREST, kCUBIC), alignCorners (whether -1 and 1 are the centres of the
// corner pixels rather than their outer edges) and the sample mode for points outside the input (kFILL: zeros, the
// default; kCLAMP: the border; kREFLECT: reflected at the border) follow ONNX GridSample-16. Input and grid are
// FLOAT, HALF or BF16, of one type, which the output has.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct GridSampleParams final
    : LayerParamsOf<GridSampleParams, nvinfer1::LayerType::kGRID_SAMPLE, nvinfer1::IGridSampleLayer>
{
    nvinfer1::InterpolationMode interpolationMode{nvinfer1::InterpolationMode::kLINEAR};
    bool alignCorners{false};
    nvinfer1::SampleMode sampleMode{nvinfer1::SampleMode::kFILL};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.interpolationMode, "grid sample interpolation mode");
        field(self.alignCorners, "grid sample align corners");
        field(self.sampleMode, "grid sample sample mode");
    }

    //! The sample modes a grid sample takes: kFILL, kCLAMP and kREFLECT.
    static bool isSupportedSampleMode(nvinfer1::SampleMode mode);

    bool infer(InferenceContext& ctx) const override;
};

class GridSampleLayer final : public LayerBase<nvinfer1::IGridSampleLayer, GridSampleParams>
{
public:
    using LayerBase::LayerBase;
    //! A value outside InterpolationMode is logged as an error and changes nothing.
    void setInterpolationMode(nvinfer1::InterpolationMode mode) noexcept override;
    nvinfer1::InterpolationMode getInterpolationMode() const noexcept override
    {
        return typedParams().interpolationMode;
    }
    void setAlignCorners(bool alignCorners) noexcept override
    {
        network().invalidate();
        mutableParams().alignCorners = alignCorners;
    }
    bool getAlignCorners() const noexcept override
    {
        return typedParams().alignCorners;
    }
    //! False (and no change) for kSTRICT_BOUNDS, kWRAP or a value outside SampleMode.
    bool setSampleMode(nvinfer1::SampleMode mode) noexcept override;
    nvinfer1::SampleMode getSampleMode() const noexcept override
    {
        return typedParams().sampleMode;
    }
};

} // namespace kiln::network
