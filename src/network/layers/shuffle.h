// IShuffleLayer: first transpose, reshape (0 = copy the extent when zeroIsPlaceholder, one -1 inferred; the
// dimensions may come from a shape tensor set as input 1), second transpose.
#pragma once

#include "network/layer.h"
#include "network/network.h"

#include <optional>

namespace kiln::network
{

struct ShuffleParams final : LayerParamsOf<ShuffleParams, nvinfer1::LayerType::kSHUFFLE, nvinfer1::IShuffleLayer>
{
    nvinfer1::Permutation firstTranspose{identityPermutation()};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.firstTranspose, "first transpose");
        field(self.reshape, "reshape dimensions");
        field(self.secondTranspose, "second transpose");
        field(self.zeroIsPlaceholder, "zero is placeholder");
    }
    std::optional<nvinfer1::Dims> reshape; //!< none: no reshape (unless input 1 gives the dimensions)
    nvinfer1::Permutation secondTranspose{identityPermutation()};
    bool zeroIsPlaceholder{true};

    static nvinfer1::Permutation identityPermutation();
    //! Whether the shuffle changes the shape alone: both transposes leave every axis where it is.
    bool reshapesOnly() const;

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
    ChannelsLast channelsLast() const override
    {
        return ChannelsLast::kREORDERS;
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
