#include "backend/plugin_runner.h"

namespace kiln::backend
{
namespace
{

nvinfer1::PluginTensorDesc describe(Shape const& shape, nvinfer1::DataType type)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims.nbDims = static_cast<int32_t>(shape.size());
    std::copy(shape.begin(), shape.end(), desc.dims.d);
    desc.type = type;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    desc.scale = -1.0f;
    return desc;
}

} // namespace

PluginRunner::PluginRunner(network::PluginParams const& params, std::unique_ptr<plugin::PluginAdapter> plugin,
    Memory memory, std::unique_ptr<Reformatter> reformatter)
    : mParams(params)
    , mPlugin(std::move(plugin))
    , mMemory(memory)
    , mReformatter(std::move(reformatter))
{
}

std::unique_ptr<PluginRunner> PluginRunner::attach(network::PluginParams const& params, Memory memory,
    std::unique_ptr<Reformatter> reformatter, plugin::ContextResources const& resources, std::string& error)
{
    std::unique_ptr<plugin::PluginAdapter> attached = params.adapter->attachToContext(resources, error);
    if (attached == nullptr)
    {
        error = "plugin " + params.adapter->description() + ": " + error;
        return nullptr;
    }
    return std::unique_ptr<PluginRunner>(new PluginRunner(params, std::move(attached), memory, std::move(reformatter)));
}

bool PluginRunner::run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
    void* workspace, cudaStream_t stream, std::string& error)
{
    size_t const nbInputs = inputs.size() - static_cast<size_t>(mParams.nbShapeInputs);
    size_t const nbTensors = nbInputs + outputs.size();
    if (mParams.ioTypes.size() != nbTensors)
    {
        error = "the plan's negotiated types do not match the layer's tensors";
        return false;
    }
    std::vector<Shape> shapes;
    for (size_t i = 0; i < nbInputs; ++i)
    {
        shapes.push_back(inputs[i].shape);
    }
    for (auto const& output : outputs)
    {
        shapes.push_back(output.shape);
    }
    std::vector<nvinfer1::PluginTensorDesc> inDescs, outDescs;
    for (size_t i = 0; i < nbTensors; ++i)
    {
        (i < nbInputs ? inDescs : outDescs).push_back(describe(shapes[i], mParams.ioTypes[i]));
    }
    if (shapes != mLastShapes)
    {
        if (!mPlugin->shapesChanged(inDescs, outDescs, error))
        {
            error = "plugin " + mPlugin->description() + ": " + error;
            return false;
        }
        mLastShapes = shapes;
    }

    // Inputs and outputs in the types the plugin negotiated, linear, converted where the tensors are stored otherwise.
    auto wanted = [&](size_t slot) { return SlotLayout{mParams.ioTypes[slot], TensorFormat::kLINEAR}; };
    std::vector<void const*> inData(nbInputs);
    std::vector<void*> outData(outputs.size());
    for (size_t i = 0; i < nbInputs; ++i)
    {
        inData[i] = mReformatter->read(i, inputs[i], wanted(i), stream).data;
    }
    for (size_t o = 0; o < outputs.size(); ++o)
    {
        outData[o] = mReformatter->write(nbInputs + o, outputs[o], wanted(nbInputs + o), stream).data;
    }
    bool const ran = mMemory == Memory::kHOST
        ? mPlugin->runOnHost(inDescs, outDescs, inData.data(), outData.data(), workspace, error)
        : mPlugin->runOnDevice(inDescs, outDescs, inData.data(), outData.data(), workspace, stream, error);
    if (!ran)
    {
        error = "plugin " + mPlugin->description() + ": " + error;
        return false;
    }
    for (size_t o = 0; o < outputs.size(); ++o)
    {
        mReformatter->commit(nbInputs + o, outputs[o], wanted(nbInputs + o), stream);
    }
    return true;
}

} // namespace kiln::backend
