#include "backend/plugin_runner.h"

namespace kiln::backend
{
namespace
{

//! The tensor in `slot` (inputs, then outputs) as the plugin negotiated it: type, format and scale.
nvinfer1::PluginTensorDesc describe(Shape const& shape, network::PluginParams const& params, size_t slot)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims.nbDims = static_cast<int32_t>(shape.size());
    std::copy(shape.begin(), shape.end(), desc.dims.d);
    desc.type = params.ioTypes[slot];
    desc.format = slot < params.ioFormats.size() ? params.ioFormats[slot] : nvinfer1::TensorFormat::kLINEAR;
    desc.scale = slot < params.ioScales.size() ? params.ioScales[slot] : -1.0F;
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
    // The tactic the builder chose, given before the plugin hears of any shape, as TensorRT gives it.
    if (attached == nullptr || (params.tactic != 0 && !attached->setTactic(params.tactic, error)))
    {
        error = "plugin " + params.adapter->description() + ": " + error;
        return nullptr;
    }
    return std::unique_ptr<PluginRunner>(new PluginRunner(params, std::move(attached), memory, std::move(reformatter)));
}

bool PluginRunner::shapesDiffer(
    std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, size_t nbInputs) const
{
    if (mLastShapes.size() != nbInputs + outputs.size())
    {
        return true;
    }
    for (size_t i = 0; i < nbInputs; ++i)
    {
        if (mLastShapes[i] != inputs[i].shape)
        {
            return true;
        }
    }
    for (size_t o = 0; o < outputs.size(); ++o)
    {
        if (mLastShapes[nbInputs + o] != outputs[o].shape)
        {
            return true;
        }
    }
    return false;
}

void PluginRunner::describeTensors(
    std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, size_t nbInputs)
{
    // Rewritten in place: descriptions, addresses and views are kept between runs, so a run allocates nothing.
    mInDescs.resize(nbInputs);
    mOutDescs.resize(outputs.size());
    for (size_t i = 0; i < nbInputs; ++i)
    {
        mInDescs[i] = describe(inputs[i].shape, mParams, i);
    }
    for (size_t o = 0; o < outputs.size(); ++o)
    {
        mOutDescs[o] = describe(outputs[o].shape, mParams, nbInputs + o);
    }
}

bool PluginRunner::aliasOutputs(size_t nbInputs, cudaStream_t stream, std::string& error)
{
    // TensorRT hands an aliased output and its input the same memory, copying where it must; Kiln always copies the
    // input into the output, which leaves the input as it was for any other layer that reads it.
    for (size_t o = 0; o < mParams.aliasedInputs.size(); ++o)
    {
        int32_t const input = mParams.aliasedInputs[o];
        if (input < 0)
        {
            continue;
        }
        auto const i = static_cast<size_t>(input);
        if (i >= nbInputs || mReadViews[i].shape != mWrittenViews[o].shape)
        {
            error = "output " + std::to_string(o) + " is aliased to input " + std::to_string(input)
                + (i >= nbInputs ? ", which the layer lacks" : ", whose shape differs");
            return false;
        }
        mReformatter->copy(mReadViews[i], mWrittenViews[o], stream);
        mInData[i] = mOutData[o];
    }
    return true;
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
    describeTensors(inputs, outputs, nbInputs);
    if (shapesDiffer(inputs, outputs, nbInputs))
    {
        if (!mPlugin->shapesChanged(mInDescs, mOutDescs, error))
        {
            error = "plugin " + mPlugin->description() + ": " + error;
            return false;
        }
        mLastShapes.resize(nbTensors);
        for (size_t i = 0; i < nbTensors; ++i)
        {
            mLastShapes[i] = i < nbInputs ? inputs[i].shape : outputs[i - nbInputs].shape;
        }
    }

    // Inputs and outputs in the types and formats the plugin negotiated, converted where the tensors are stored
    // otherwise.
    auto wanted = [&](size_t slot) {
        return SlotLayout{
            mParams.ioTypes[slot], slot < mParams.ioFormats.size() ? mParams.ioFormats[slot] : TensorFormat::kLINEAR};
    };
    mReadViews.resize(nbInputs);
    mWrittenViews.resize(outputs.size());
    mInData.resize(nbInputs);
    mOutData.resize(outputs.size());
    for (size_t i = 0; i < nbInputs; ++i)
    {
        mReformatter->read(i, inputs[i], wanted(i), mReadViews[i], stream);
        mInData[i] = mReadViews[i].data;
    }
    for (size_t o = 0; o < outputs.size(); ++o)
    {
        mReformatter->write(nbInputs + o, outputs[o], wanted(nbInputs + o), mWrittenViews[o], stream);
        mOutData[o] = mWrittenViews[o].data;
    }
    if (!aliasOutputs(nbInputs, stream, error))
    {
        error = "plugin " + mPlugin->description() + ": " + error;
        return false;
    }
    bool const ran = mMemory == Memory::kHOST
        ? mPlugin->runOnHost(mInDescs, mOutDescs, mInData.data(), mOutData.data(), workspace, error)
        : mPlugin->runOnDevice(mInDescs, mOutDescs, mInData.data(), mOutData.data(), workspace, stream, error);
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
