// ISqueezeLayer and IUnsqueezeLayer: they run as a shuffle (their parameters are ShuffleParams, so the plan and both
// backends see a shuffle), derived from the axes when the layer is added or its axes input replaced. The axes input
// must be the output of an IConstantLayer (INT32 or INT64, rank 0 or 1), as TensorRT requires them to be build-time
// constants; it is reported as input 1 but is not an input of the shuffle.
//   squeeze:   a first transpose moves the removed axes (extent 1) to the end; the reshape keeps the rest (0s).
//   unsqueeze: the reshape keeps every axis (0s) and appends the new ones (1s); a second transpose puts them in place.
#pragma once

#include "core/logging.h"
#include "network/layer.h"
#include "network/layers/shuffle.h"
#include "network/network.h"

#include <string>
#include <vector>

namespace kiln::network
{

//! The values of `tensor`, which must be the output of an IConstantLayer of INT32 or INT64 weights and rank <= 1.
//! False with `why` otherwise.
bool constantAxes(nvinfer1::ITensor const& tensor, std::vector<int64_t>& axes, std::string& why);

//! The shuffle that removes `axes` (each in [-rank, rank), once) from a tensor of `rank`; false with `why`.
bool squeezeShuffle(int32_t rank, std::vector<int64_t> const& axes, ShuffleParams& params, std::string& why);

//! The shuffle that inserts unit axes at output positions `axes` (each in [-rank - n, rank + n), once, for n axes).
bool unsqueezeShuffle(int32_t rank, std::vector<int64_t> const& axes, ShuffleParams& params, std::string& why);

//! A shuffle that answers to TensorRT as `Api` of type `kType`, with the axes tensor as input 1.
template <typename Api, nvinfer1::LayerType kType>
class AxesShuffleLayer final : public LayerBase<Api, ShuffleParams>
{
public:
    using Base = LayerBase<Api, ShuffleParams>;

    AxesShuffleLayer(Network& network, std::string name, std::vector<Tensor*> inputs, ShuffleParams params,
        int32_t minInputs, int32_t maxInputs, Tensor* axes)
        : Base(network, std::move(name), std::move(inputs), std::move(params), minInputs, maxInputs)
        , mAxes(axes)
    {
    }

    //! TensorRT's answer; the plan records the layer as a shuffle.
    nvinfer1::LayerType getType() const noexcept override
    {
        return kType;
    }
    int32_t getNbInputs() const noexcept override
    {
        return 2;
    }
    nvinfer1::ITensor* getInput(int32_t index) const noexcept override
    {
        return index == 1 ? mAxes : Base::getInput(index);
    }
    //! Input 0 is the data, input 1 the axes; either derives the shuffle again (and is refused, logging why, when
    //! the axes do not fit the data).
    void setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept override
    {
        if (index != 0 && index != 1)
        {
            logError(std::string(kCall) + "::setInput: index " + std::to_string(index)
                + " is out of range: input 0 is the data, input 1 the axes");
            return;
        }
        nvinfer1::ITensor& data = index == 0 ? tensor : *Base::getInput(0);
        nvinfer1::ITensor& axes = index == 1 ? tensor : *mAxes;
        ShuffleParams params;
        std::string why;
        if (!derive(data, axes, params, why))
        {
            logError(std::string(kCall) + "::setInput: " + why);
            return;
        }
        if (index == 0)
        {
            Base::setInput(0, tensor);
        }
        else
        {
            mAxes = static_cast<Tensor*>(&tensor);
        }
        this->network().invalidate();
        this->mutableParams() = params;
    }

    //! The shuffle for `data` and `axes`; false with `why`.
    static bool derive(
        nvinfer1::ITensor const& data, nvinfer1::ITensor const& axes, ShuffleParams& params, std::string& why)
    {
        std::vector<int64_t> values;
        if (!constantAxes(axes, values, why))
        {
            return false;
        }
        int32_t const rank = data.getDimensions().nbDims;
        if (kType == nvinfer1::LayerType::kSQUEEZE)
        {
            return squeezeShuffle(rank, values, params, why);
        }
        return unsqueezeShuffle(rank, values, params, why);
    }

private:
    static constexpr char const* kCall = kType == nvinfer1::LayerType::kSQUEEZE ? "ISqueezeLayer" : "IUnsqueezeLayer";
    Tensor* mAxes;
};

using SqueezeLayer = AxesShuffleLayer<nvinfer1::ISqueezeLayer, nvinfer1::LayerType::kSQUEEZE>;
using UnsqueezeLayer = AxesShuffleLayer<nvinfer1::IUnsqueezeLayer, nvinfer1::LayerType::kUNSQUEEZE>;

} // namespace kiln::network
