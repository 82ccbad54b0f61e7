#include "backend/cuda/passes/shuffle_edits.h"

#include "network/layers/shuffle.h"
#include "plan/plan_graph.h"
#include "shape/expr.h"

#include <memory>

namespace kiln::cuda
{
using plan::LayerRecord;
using plan::PlanModel;

namespace
{

//! A shuffle's per-slot list (LayerRecord::ioTypes or ioFormats; empty: its tensors' own) without its shape input's.
template <typename Slot>
void dropShapeSlot(std::vector<Slot>& slots)
{
    if (slots.size() == 3)
    {
        slots.erase(slots.begin() + 1);
    }
}

} // namespace

bool plainShuffle(LayerRecord const& layer)
{
    return plan::paramsOf<network::ShuffleParams>(layer) != nullptr && !layer.inputs.empty() && layer.inputs[0] >= 0
        && layer.outputs.size() == 1 && !layer.epilogue.any() && layer.guards.empty();
}

bool keepsType(PlanModel const& model, LayerRecord const& layer)
{
    nvinfer1::DataType const type = model.tensors[layer.inputs[0]].type;
    return model.tensors[layer.outputs[0]].type == type && slotType(model, layer, 0) == type
        && slotType(model, layer, layer.inputs.size()) == type;
}

std::optional<nvinfer1::Dims> reshapeDimensions(
    PlanModel const& model, std::vector<int32_t> const& input, std::vector<int32_t> const& extents)
{
    nvinfer1::Dims dims{static_cast<int32_t>(extents.size()), {}};
    bool inferred = false;
    for (size_t a = 0; a < extents.size(); ++a)
    {
        plan::ExprNode const& node = model.exprs[static_cast<size_t>(extents[a])];
        if (node.kind == static_cast<uint8_t>(shape::ExprKind::kCONSTANT) && node.value > 0)
        {
            dims.d[a] = node.value;
        }
        else if (a < input.size() && plan::sameExpr(model, input[a], extents[a]))
        {
            dims.d[a] = 0;
        }
        else if (!inferred && node.kind != static_cast<uint8_t>(shape::ExprKind::kCONSTANT))
        {
            dims.d[a] = -1;
            inferred = true;
        }
        else
        {
            return std::nullopt;
        }
    }
    return dims;
}

void dropShapeInput(LayerRecord& layer)
{
    if (layer.inputs.size() > 1 && layer.inputs[1] >= 0)
    {
        dropShapeSlot(layer.ioTypes);
        dropShapeSlot(layer.ioFormats);
    }
    layer.inputs.resize(1);
}

void restateReshape(LayerRecord& layer, nvinfer1::Dims const& dimensions)
{
    auto reshape = std::make_shared<network::ShuffleParams>();
    reshape->reshape = dimensions;
    reshape->zeroIsPlaceholder = true;
    layer.params = std::move(reshape);
    dropShapeInput(layer);
}

} // namespace kiln::cuda
