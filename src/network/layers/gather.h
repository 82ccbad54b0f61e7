// IGatherLayer: kDEFAULT gathers slices along one axis, kELEMENT one element per index, kND coordinate tuples
// (the last indices dim) into the leading data dims; numElementWiseDims leading dims are shared batch dims.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct GatherParams final : LayerParamsOf<GatherParams, nvinfer1::LayerType::kGATHER, nvinfer1::IGatherLayer>
{
    int32_t gatherAxis{0};
    int32_t numElementWiseDims{0};
    nvinfer1::GatherMode mode{nvinfer1::GatherMode::kDEFAULT};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.gatherAxis, "gather axis");
        field(self.numElementWiseDims, "gather element-wise dims");
        field(self.mode, "gather mode");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
    //! A kDEFAULT gather of one axis of channels-last data by a vector of indices (a channel shuffle) gathers along
    //! the data's storage order, as the CUDA kernel does; its indices stay row-major.
    ChannelsLast channelsLast() const override
    {
        return mode == nvinfer1::GatherMode::kDEFAULT && numElementWiseDims == 0 ? ChannelsLast::kCONTINUES
                                                                                 : ChannelsLast::kNO;
    }
};

class GatherLayer final : public LayerBase<nvinfer1::IGatherLayer, GatherParams>
{
public:
    using LayerBase::LayerBase;
    void setGatherAxis(int32_t axis) noexcept override
    {
        change().gatherAxis = axis;
    }
    int32_t getGatherAxis() const noexcept override
    {
        return typedParams().gatherAxis;
    }
    void setNbElementWiseDims(int32_t elementWiseDims) noexcept override
    {
        change().numElementWiseDims = elementWiseDims;
    }
    int32_t getNbElementWiseDims() const noexcept override
    {
        return typedParams().numElementWiseDims;
    }
    void setMode(nvinfer1::GatherMode mode) noexcept override
    {
        change().mode = mode;
    }
    nvinfer1::GatherMode getMode() const noexcept override
    {
        return typedParams().mode;
    }

private:
    GatherParams& change()
    {
        network().invalidate();
        return mutableParams();
    }
};

} // namespace kiln::network
