// A plan stores each plugin's payload apart from the shapes the builder sized its outputs with and the types it
// negotiated. A payload that disagrees with them (a corrupted or hand-edited plan) would make the recreated plugin
// read or write past its tensors, so the engine asks the recreated plugin again, on the plan's own input shapes and
// types, and refuses the plan where the answers differ from what the plan records.
#include "core/data_type.h"
#include "network/plugin_layer.h"
#include "runtime/engine.h"

namespace kiln::runtime
{
namespace
{

std::string describeExtent(nvinfer1::IDimensionExpr const& e)
{
    return e.isConstant() ? std::to_string(e.getConstantValue()) : std::string("a run-time extent");
}

} // namespace

bool Engine::pluginAcceptsPlanTypes(
    plan::LayerRecord const& layer, network::PluginParams const& plugin, std::string const& who, std::string& error)
{
    auto const nbInputs = static_cast<int32_t>(layer.inputs.size()) - plugin.nbShapeInputs;
    auto const nbOutputs = static_cast<int32_t>(layer.outputs.size());
    if (plugin.ioTypes.size() != static_cast<size_t>(nbInputs + nbOutputs))
    {
        error = who + ": the plan records " + std::to_string(plugin.ioTypes.size()) + " negotiated types for "
            + std::to_string(nbInputs + nbOutputs) + " inputs and outputs";
        return false;
    }
    // Asked as the builder asked: position by position, row-major, on the plan's extents (-1 where run-time).
    std::vector<nvinfer1::DynamicPluginTensorDesc> descs(plugin.ioTypes.size());
    for (int32_t pos = 0; pos < nbInputs + nbOutputs; ++pos)
    {
        int32_t const t = pos < nbInputs ? layer.inputs[pos] : layer.outputs[pos - nbInputs];
        if (t < 0)
        {
            return true; // an omitted optional input: the plugin was never asked about it
        }
        std::vector<int32_t> const& dims = mModel.tensors[t].dims;
        nvinfer1::PluginTensorDesc& desc = descs[pos].desc;
        desc.dims.nbDims = static_cast<int32_t>(dims.size());
        for (int32_t d = 0; d < desc.dims.nbDims; ++d)
        {
            nvinfer1::IDimensionExpr const& extent = *mExprs[dims[d]];
            desc.dims.d[d] = extent.isConstant() ? extent.getConstantValue() : -1;
        }
        desc.type = plugin.ioTypes[pos];
        desc.format = static_cast<size_t>(pos) < plugin.ioFormats.size() ? plugin.ioFormats[pos]
                                                                         : nvinfer1::TensorFormat::kLINEAR;
        desc.scale = static_cast<size_t>(pos) < plugin.ioScales.size() ? plugin.ioScales[pos] : -1.0F;
        descs[pos].min = descs[pos].opt = descs[pos].max = desc.dims;
    }
    for (int32_t pos = 0; pos < nbInputs + nbOutputs; ++pos)
    {
        if (!plugin.adapter->supportsCombination(pos, descs, nbInputs, nbOutputs))
        {
            std::string const which = pos < nbInputs ? "input " + std::to_string(pos)
                                                     : "output " + std::to_string(pos - nbInputs);
            nvinfer1::TensorFormat const format = descs[pos].desc.format;
            bool const linear = format == nvinfer1::TensorFormat::kLINEAR;
            std::string const layout = format == nvinfer1::TensorFormat::kCHW4 ? " as kCHW4" : " as kCHW32";
            error = who + " does not accept " + dataTypeName(plugin.ioTypes[pos]) + (linear ? "" : layout) + " for its "
                + which + (linear ? ", the type" : ", the type and format")
                + " the plan records: the plan does not match the plugin";
            return false;
        }
    }
    return true;
}

bool Engine::pluginMatchesPlan(plan::LayerRecord const& layer, network::PluginParams const& plugin, std::string& error)
{
    std::string const who = "layer \"" + layer.name + "\": plugin " + plugin.adapter->description();
    int32_t const nbOutputs = plugin.adapter->nbOutputs();
    if (nbOutputs != static_cast<int32_t>(layer.outputs.size()))
    {
        error = who + " has " + std::to_string(nbOutputs) + " outputs, but the plan gives the layer "
            + std::to_string(layer.outputs.size()) + ": its payload does not match the plan";
        return false;
    }
    auto const nbShapeInputs = static_cast<size_t>(plugin.nbShapeInputs);
    if (nbShapeInputs > layer.inputs.size())
    {
        error = who + " takes " + std::to_string(nbShapeInputs) + " shape inputs, more than the layer's "
            + std::to_string(layer.inputs.size()) + " inputs";
        return false;
    }
    if (!pluginAcceptsPlanTypes(layer, plugin, who, error))
    {
        return false;
    }
    std::vector<nvinfer1::DimsExprs> inputs;
    std::vector<nvinfer1::DimsExprs> shapeInputs;
    for (size_t i = 0; i < layer.inputs.size(); ++i)
    {
        if (layer.inputs[i] < 0)
        {
            return true; // an omitted optional input: the plugin was never asked about it
        }
        plan::TensorRecord const& tensor = mModel.tensors[layer.inputs[i]];
        bool const shapeInput = i >= layer.inputs.size() - nbShapeInputs;
        std::vector<int32_t> const* exprs = shapeInput ? (tensor.values ? &*tensor.values : nullptr) : &tensor.dims;
        if (exprs == nullptr || exprs->size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
        {
            return true; // values known only at run time: nothing to compare with here
        }
        nvinfer1::DimsExprs dims{};
        dims.nbDims = static_cast<int32_t>(exprs->size());
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            dims.d[d] = mExprs[(*exprs)[d]];
        }
        (shapeInput ? shapeInputs : inputs).push_back(dims);
    }
    std::vector<nvinfer1::DimsExprs> outputs;
    if (!plugin.adapter->outputShapes(inputs, shapeInputs, *mBuilder, outputs, error))
    {
        error = who + ": " + error;
        return false;
    }
    for (size_t o = 0; o < layer.outputs.size() && o < outputs.size(); ++o)
    {
        plan::TensorRecord const& tensor = mModel.tensors[layer.outputs[o]];
        if (outputs[o].nbDims != static_cast<int32_t>(tensor.dims.size()))
        {
            error = who + " gives output " + std::to_string(o) + " rank " + std::to_string(outputs[o].nbDims)
                + ", but the plan sized it with rank " + std::to_string(tensor.dims.size())
                + ": its payload does not match the plan";
            return false;
        }
        // Only constants are compared: equal symbolic extents may be written in different forms.
        for (int32_t d = 0; d < outputs[o].nbDims; ++d)
        {
            nvinfer1::IDimensionExpr const& planned = *mExprs[tensor.dims[d]];
            nvinfer1::IDimensionExpr const* given = outputs[o].d[d];
            if (given == nullptr
                || (planned.isConstant() && given->isConstant()
                    && planned.getConstantValue() != given->getConstantValue()))
            {
                error = who + " gives output " + std::to_string(o) + " extent "
                    + (given ? describeExtent(*given) : std::string("none")) + " on axis " + std::to_string(d)
                    + ", but the plan sized it " + describeExtent(planned) + ": its payload does not match the plan";
                return false;
            }
        }
    }
    return true;
}

} // namespace kiln::runtime
