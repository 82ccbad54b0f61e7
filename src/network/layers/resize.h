// IResizeLayer: resizes every dimension of its input by nearest, linear or cubic interpolation. The output shape
// is, in order of precedence: input 1 (a 1-D INT32/INT64 shape tensor, TensorRT's dynamic resize), the output
// dimensions, the scales (extent = floor(input extent * scale)), or, when none is set, the input's shape.
// TensorRT's defaults: kNEAREST, kASYMMETRIC, kFORMULA, kFLOOR, cubic coefficient -0.75, no exclude-outside.
#pragma once

#include "network/layer.h"
#include "network/network.h"

#include <vector>

namespace kiln::network
{

struct ResizeParams final : LayerParamsOf<ResizeParams, nvinfer1::LayerType::kRESIZE, nvinfer1::IResizeLayer>
{
    bool hasOutputDimensions{false};
    nvinfer1::Dims outputDimensions{};
    std::vector<float> scales; //!< empty: not set
    nvinfer1::InterpolationMode resizeMode{nvinfer1::InterpolationMode::kNEAREST};
    nvinfer1::ResizeCoordinateTransformation coordinateTransformation{
        nvinfer1::ResizeCoordinateTransformation::kASYMMETRIC};
    nvinfer1::ResizeSelector selectorForSinglePixel{nvinfer1::ResizeSelector::kFORMULA};
    nvinfer1::ResizeRoundMode nearestRounding{nvinfer1::ResizeRoundMode::kFLOOR};
    float cubicCoeff{-0.75F};
    bool excludeOutside{false};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.hasOutputDimensions, "resize output dimensions flag");
        field(self.outputDimensions, "resize output dimensions");
        field(self.scales, "resize scales");
        field(self.resizeMode, "resize mode");
        field(self.coordinateTransformation, "resize coordinate transformation");
        field(self.selectorForSinglePixel, "resize selector");
        field(self.nearestRounding, "resize nearest rounding");
        field(self.cubicCoeff, "resize cubic coefficient");
        field(self.excludeOutside, "resize exclude outside");
    }

    bool infer(InferenceContext& ctx) const override;
    //! Input 1 gives the output shape or the scales.
    bool isParameterInput(size_t index) const override
    {
        return index == 1;
    }
};

class ResizeLayer final : public LayerBase<nvinfer1::IResizeLayer, ResizeParams>
{
public:
    using LayerBase::LayerBase;
    //! Replaces the scales and the output-shape input (as TensorRT's setters do).
    void setOutputDimensions(nvinfer1::Dims const& dimensions) noexcept override;
    //! nbDims -1 when the output shape comes from scales, input 1 or the input's shape.
    nvinfer1::Dims getOutputDimensions() const noexcept override;
    //! Replaces the output dimensions and the output-shape input.
    void setScales(float const* scales, int32_t nbScales) noexcept override;
    int32_t getScales(int32_t size, float* scales) const noexcept override;
    void setResizeMode(nvinfer1::InterpolationMode mode) noexcept override
    {
        change().resizeMode = mode;
    }
    nvinfer1::InterpolationMode getResizeMode() const noexcept override
    {
        return typedParams().resizeMode;
    }
    void setCoordinateTransformation(nvinfer1::ResizeCoordinateTransformation transformation) noexcept override
    {
        change().coordinateTransformation = transformation;
    }
    nvinfer1::ResizeCoordinateTransformation getCoordinateTransformation() const noexcept override
    {
        return typedParams().coordinateTransformation;
    }
    void setSelectorForSinglePixel(nvinfer1::ResizeSelector selector) noexcept override
    {
        change().selectorForSinglePixel = selector;
    }
    nvinfer1::ResizeSelector getSelectorForSinglePixel() const noexcept override
    {
        return typedParams().selectorForSinglePixel;
    }
    void setNearestRounding(nvinfer1::ResizeRoundMode value) noexcept override
    {
        change().nearestRounding = value;
    }
    nvinfer1::ResizeRoundMode getNearestRounding() const noexcept override
    {
        return typedParams().nearestRounding;
    }
    void setCubicCoeff(float coefficient) noexcept override
    {
        change().cubicCoeff = coefficient;
    }
    float getCubicCoeff() const noexcept override
    {
        return typedParams().cubicCoeff;
    }
    void setExcludeOutside(bool excludeFlag) noexcept override
    {
        change().excludeOutside = excludeFlag;
    }
    bool getExcludeOutside() const noexcept override
    {
        return typedParams().excludeOutside;
    }

private:
    ResizeParams& change()
    {
        network().invalidate();
        return mutableParams();
    }
};

} // namespace kiln::network
