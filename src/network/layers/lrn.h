// ILRNLayer (TensorRT's local response normalization across channels, AlexNet's and GoogLeNet's LRN): each element
// divided by (k + alpha / window * the sum of the squares in its channel window)^beta. The channels are the third axis
// from the end (the C of [N, C, H, W] and of [C, H, W]), so the input has rank 3 or more; the window of channel c holds
// channels c - (window - 1) / 2 to c + (window - 1) / 2 that exist. Input and output are FLOAT, HALF or BF16, of one
// type and shape. The parameters keep TensorRT's ranges: the window odd in [1, 15], alpha in [-1e20, 1e20], beta in
// [0.01, 1e5], k in [1e-5, 1e10]; addLRN and the setters refuse values outside them.
//
// TensorRT's operator documentation writes the sum as running from c - window to c + window and alpha undivided, but
// its own worked example (window 3, alpha 1, beta 1, k 0.1 over channels holding 0 to 4) gives the values of the
// formula above, which is also ONNX LRN's for odd sizes.
#pragma once

#include "network/layer.h"
#include "network/network.h"

#include <string>

namespace kiln::network
{

struct LRNParams final : LayerParamsOf<LRNParams, nvinfer1::LayerType::kLRN, nvinfer1::ILRNLayer>
{
    // addLRN sets every field; these (ONNX's defaults, AlexNet's window) only seed a plan's reading.
    int64_t window{5};
    float alpha{1.0e-4F};
    float beta{0.75F};
    float k{1.0F};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.window, "LRN window");
        field(self.alpha, "LRN alpha");
        field(self.beta, "LRN beta");
        field(self.k, "LRN k");
    }

    //! Why each parameter lies outside TensorRT's range for it, or "" where it lies inside (NaN never does).
    static std::string windowError(int64_t window);
    static std::string alphaError(float alpha);
    static std::string betaError(float beta);
    static std::string kError(float k);
    //! The first of those errors these parameters have, or "".
    std::string parameterError() const;

    bool infer(InferenceContext& ctx) const override;
};

class LRNLayer final : public LayerBase<nvinfer1::ILRNLayer, LRNParams>
{
public:
    using LayerBase::LayerBase;
    // A value outside TensorRT's range is logged as an error naming the layer, and changes nothing.
    void setWindowSize(int64_t windowSize) noexcept override;
    int64_t getWindowSize() const noexcept override
    {
        return typedParams().window;
    }
    void setAlpha(float alpha) noexcept override;
    float getAlpha() const noexcept override
    {
        return typedParams().alpha;
    }
    void setBeta(float beta) noexcept override;
    float getBeta() const noexcept override
    {
        return typedParams().beta;
    }
    void setK(float k) noexcept override;
    float getK() const noexcept override
    {
        return typedParams().k;
    }

private:
    //! Stores `value` in `field` unless `error` says why not, which is then logged for `setter`.
    template <typename T>
    void set(char const* setter, std::string const& error, T LRNParams::*field, T value);
};

} // namespace kiln::network
