// ISelectLayer: condition ? then : else element by element, with numpy broadcasting of all three inputs.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct SelectParams final : LayerParams
{
    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kSELECT;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter&) const override {}
    bool read(plan::ByteReader&) override
    {
        return true;
    }
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<SelectParams>(*this);
    }
};

class SelectLayer final : public LayerBase<nvinfer1::ISelectLayer, SelectParams>
{
public:
    using LayerBase::LayerBase;
};

} // namespace kiln::network
