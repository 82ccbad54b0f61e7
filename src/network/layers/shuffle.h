// IShuffleLayer: first transpose, reshape (0 = copy the extent when zeroIsPlaceholder, one -1 inferred; the
// dimensions may come from a shape tensor set as input 1), second transpose.
#pragma once

#include "network/layer.h"
#include "network/network.h"

#include <optional>

namespace kiln::network
{

struct ShuffleParams final : LayerParams
{
    nvinfer1::Permutation firstTranspose{identityPermutation()};
    std::optional<nvinfer1::Dims> reshape; //!< none: no reshape (unless input 1 gives the dimensions)
    nvinfer1::Permutation secondTranspose{identityPermutation()};
    bool zeroIsPlaceholder{true};

    static nvinfer1::Permutation identityPermutation();

    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kSHUFFLE;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter& writer) const override;
    bool read(plan::ByteReader& reader) override;
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<ShuffleParams>(*this);
    }
};

class ShuffleLayer final : public LayerBase<nvinfer1::IShuffleLayer, ShuffleParams>
{
public:
    using LayerBase::LayerBase;
    void setFirstTranspose(nvinfer1::Permutation permutation) noexcept override
    {
        change().firstTranspose = permutation;
    }
    nvinfer1::Permutation getFirstTranspose() const noexcept override
    {
        return typedParams().firstTranspose;
    }
    void setReshapeDimensions(nvinfer1::Dims const& dimensions) noexcept override
    {
        change().reshape = dimensions;
    }
    nvinfer1::Dims getReshapeDimensions() const noexcept override
    {
        // TensorRT reports nbDims -1 when no static reshape is set.
        return typedParams().reshape.value_or(nvinfer1::Dims{-1, {}});
    }
    void setSecondTranspose(nvinfer1::Permutation permutation) noexcept override
    {
        change().secondTranspose = permutation;
    }
    nvinfer1::Permutation getSecondTranspose() const noexcept override
    {
        return typedParams().secondTranspose;
    }
    void setZeroIsPlaceholder(bool zeroIsPlaceholder) noexcept override
    {
        change().zeroIsPlaceholder = zeroIsPlaceholder;
    }
    bool getZeroIsPlaceholder() const noexcept override
    {
        return typedParams().zeroIsPlaceholder;
    }

private:
    ShuffleParams& change()
    {
        network().invalidate();
        return mutableParams();
    }
};

} // namespace kiln::network
