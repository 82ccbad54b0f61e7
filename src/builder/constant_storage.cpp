#include "builder/constant_storage.h"

#include "core/data_type.h"
#include "network/layers/constant.h"
#include "plan/plan_graph.h"

#include <memory>
#include <optional>

namespace kiln::builder
{
namespace
{

using nvinfer1::DataType;

//! The one type every reader of tensor `t` reads it in, or none where they differ.
std::optional<DataType> commonReadType(plan::PlanModel const& model, std::vector<size_t> const& readers, int32_t t)
{
    std::optional<DataType> common;
    for (size_t r : readers)
    {
        plan::LayerRecord const& reader = model.layers[r];
        for (size_t slot = 0; slot < reader.inputs.size(); ++slot)
        {
            if (reader.inputs[slot] != t)
            {
                continue;
            }
            DataType const type = plan::slotType(model, reader, slot);
            if (common && *common != type)
            {
                return std::nullopt;
            }
            common = type;
        }
    }
    return common;
}

} // namespace

size_t storeConstantsAsRead(plan::PlanModel& model)
{
    std::vector<std::vector<size_t>> const readers = plan::readersOf(model);
    size_t converted = 0;
    for (plan::LayerRecord& layer : model.layers)
    {
        auto const* constant = plan::paramsOf<network::ConstantParams>(layer);
        if (constant == nullptr || !plan::outputsItsWeights(model, layer) || !isFloatType(constant->weights.type()))
        {
            continue;
        }
        int32_t const t = layer.outputs[0];
        std::optional<DataType> const readAs = commonReadType(model, readers[t], t);
        if (!readAs || *readAs == constant->weights.type() || !isFloatType(*readAs))
        {
            continue;
        }
        // The readers' slot types stay what they are; only whether each differs from the tensor's changes.
        std::vector<std::vector<DataType>> readerTypes;
        for (size_t r : readers[t])
        {
            readerTypes.push_back(plan::slotTypes(model, model.layers[r]));
        }
        auto stored = std::make_shared<network::ConstantParams>(*constant);
        stored->weights = constant->weights.storedAs(*readAs);
        layer.params = std::move(stored);
        layer.ioTypes.clear();
        model.tensors[t].type = *readAs;
        for (size_t i = 0; i < readers[t].size(); ++i)
        {
            plan::setIoTypes(model, model.layers[readers[t][i]], readerTypes[i]);
        }
        ++converted;
    }
    return converted;
}

} // namespace kiln::builder
