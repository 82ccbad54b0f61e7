#include "network/plugin_layer.h"

namespace kiln::network
{

bool PluginParams::infer(InferenceContext& ctx) const
{
    if (adapter == nullptr)
    {
        return ctx.fail("the plugin layer has no plugin");
    }
    int32_t const nbInputs = ctx.nbInputs() - nbShapeInputs;
    std::vector<nvinfer1::DataType> inputTypes;
    std::vector<nvinfer1::DimsExprs> inputs;
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        inputTypes.push_back(ctx.input(i).type);
        inputs.push_back(ctx.input(i).dims);
    }
    std::vector<nvinfer1::DimsExprs> shapeInputs;
    for (int32_t i = nbInputs; i < ctx.nbInputs(); ++i)
    {
        auto const& values = ctx.input(i).values;
        if (!values || values->size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
        {
            return ctx.fail("shape input " + std::to_string(i - nbInputs)
                + " is not a shape tensor whose values are known while shapes are inferred");
        }
        nvinfer1::DimsExprs exprs{};
        exprs.nbDims = static_cast<int32_t>(values->size());
        std::copy(values->begin(), values->end(), exprs.d);
        shapeInputs.push_back(exprs);
    }
    std::string error;
    std::vector<nvinfer1::DataType> outputTypes;
    std::vector<nvinfer1::DimsExprs> outputs;
    if (!adapter->outputTypes(inputTypes, outputTypes, error)
        || !adapter->outputShapes(inputs, shapeInputs, ctx.builder(), outputs, error))
    {
        return ctx.fail("plugin " + adapter->description() + ": " + error);
    }
    if (static_cast<int32_t>(outputs.size()) != static_cast<int32_t>(ctx.outputs().size()))
    {
        return ctx.fail("plugin " + adapter->description() + " now reports " + std::to_string(outputs.size())
            + " outputs, not " + std::to_string(ctx.outputs().size()));
    }
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        if (!ctx.setOutput(static_cast<int32_t>(i), outputTypes[i], outputs[i]))
        {
            return ctx.fail("plugin " + adapter->description() + ": " + ctx.error());
        }
    }
    return true;
}

void PluginParams::write(serial::ByteWriter& writer) const
{
    writer.write(static_cast<int32_t>(family));
    writer.writeString(payload.name);
    writer.writeString(payload.version);
    writer.writeString(payload.pluginNamespace);
    writer.writeBytes(payload.bytes.data(), payload.bytes.size());
    writer.writeString(library);
    writer.write(nbShapeInputs);
    writer.write(outputCount);
    writer.write(static_cast<uint32_t>(ioTypes.size()));
    for (nvinfer1::DataType type : ioTypes)
    {
        serial::writeEnum(writer, type);
    }
    // One format and one scale per type.
    for (size_t slot = 0; slot < ioTypes.size(); ++slot)
    {
        serial::writeEnum(writer, slot < ioFormats.size() ? ioFormats[slot] : nvinfer1::TensorFormat::kLINEAR);
        writer.write(slot < ioScales.size() ? ioScales[slot] : -1.0F);
    }
    writer.write(workspaceBytes);
    writer.write(tactic);
    writer.write(static_cast<uint32_t>(aliasedInputs.size()));
    for (int32_t input : aliasedInputs)
    {
        writer.write(input);
    }
}

bool PluginParams::read(serial::ByteReader& reader)
{
    int32_t rawFamily = 0;
    uint8_t const* bytes = nullptr;
    size_t size = 0;
    uint32_t nbTypes = 0;
    if (!reader.read(rawFamily, "plugin interface") || !reader.readString(payload.name, "plugin name")
        || !reader.readString(payload.version, "plugin version")
        || !reader.readString(payload.pluginNamespace, "plugin namespace")
        || !reader.readBytes(bytes, size, "plugin data") || !reader.readString(library, "plugin library")
        || !reader.read(nbShapeInputs, "plugin shape inputs") || !reader.read(outputCount, "plugin outputs")
        || !reader.read(nbTypes, "plugin tensor types"))
    {
        return false;
    }
    if (rawFamily < 0 || rawFamily > static_cast<int32_t>(plugin::PluginFamily::kV3) || outputCount < 0
        || nbShapeInputs < 0 || nbTypes > reader.remaining())
    {
        return reader.fail("the plugin layer's record is malformed");
    }
    family = static_cast<plugin::PluginFamily>(rawFamily);
    payload.family = family;
    payload.bytes.assign(bytes, bytes + size);
    ioTypes.resize(nbTypes);
    for (auto& type : ioTypes)
    {
        if (!serial::readEnum(reader, type, "plugin tensor type"))
        {
            return false;
        }
    }
    ioFormats.resize(nbTypes);
    ioScales.resize(nbTypes);
    for (uint32_t slot = 0; slot < nbTypes; ++slot)
    {
        if (!serial::readEnum(reader, ioFormats[slot], "plugin tensor format")
            || !reader.read(ioScales[slot], "plugin tensor scale"))
        {
            return false;
        }
    }
    uint32_t nbAliases = 0;
    if (!reader.read(workspaceBytes, "plugin workspace size") || !reader.read(tactic, "plugin tactic")
        || !reader.read(nbAliases, "plugin aliased outputs"))
    {
        return false;
    }
    if (nbAliases != 0 && nbAliases != static_cast<uint32_t>(outputCount))
    {
        return reader.fail("the plugin layer's aliased outputs do not match its outputs");
    }
    aliasedInputs.resize(nbAliases);
    int32_t const nbInputs = static_cast<int32_t>(nbTypes) - outputCount;
    for (int32_t& input : aliasedInputs)
    {
        if (!reader.read(input, "plugin aliased input"))
        {
            return false;
        }
        if (input < -1 || input >= nbInputs)
        {
            return reader.fail(
                "a plugin output is aliased to input " + std::to_string(input) + " of " + std::to_string(nbInputs));
        }
    }
    return true;
}

} // namespace kiln::network
