// Debug tensors: the tensors a network marked (INetworkDefinition::markDebug) or, after
// markUnfusedTensorsAsDebugTensors, every tensor its plan keeps in memory. A context whose debug state is on for one
// gives its values to the IDebugListener once the layer writing it has run, in the order the layers run: the address
// in the backend's memory (device memory on the CUDA backend, valid in the order of the enqueue's stream), its type,
// its shape for this run and its name.
#include "runtime/execution_context.h"

#include "plugin/user_exception.h"

#include <algorithm>

namespace kiln::runtime
{
namespace
{

//! Whether a run has debug tensors to look for: some marked one is on, or the unfused ones are.
bool anyOn(std::vector<bool> const& markedOn, bool unfusedOn)
{
    return unfusedOn || std::find(markedOn.begin(), markedOn.end(), true) != markedOn.end();
}

} // namespace

void ExecutionContext::prepareDebugTensors()
{
    auto const& model = mEngine.model();
    mDebugOn.assign(model.tensors.size(), false);
    mDebugTensorsOf.assign(model.layers.size(), {});
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t t : model.layers[l].outputs)
        {
            if (model.tensors[t].debug != plan::DebugMark::kNONE)
            {
                mDebugTensorsOf[l].push_back(t);
            }
        }
    }
    for (int32_t io : model.ioTensors)
    {
        if (model.tensors[io].ioMode == nvinfer1::TensorIOMode::kINPUT
            && model.tensors[io].debug != plan::DebugMark::kNONE)
        {
            mDebugInputs.push_back(io);
        }
    }
}

bool ExecutionContext::setTensorDebugState(char const* name, bool flag) noexcept
{
    int32_t const t = mEngine.markedDebugTensor(name);
    if (t < 0)
    {
        reportError(std::string("IExecutionContext::setTensorDebugState: \"") + (name != nullptr ? name : "(null)")
                + "\" is not a debug tensor of this engine (mark it with INetworkDefinition::markDebug before the "
                  "build)",
            nvinfer1::ErrorCode::kINVALID_ARGUMENT);
        return false;
    }
    mDebugOn[t] = flag;
    mAnyDebugOn = anyOn(mDebugOn, mUnfusedDebugOn);
    return true;
}

bool ExecutionContext::setAllTensorsDebugState(bool flag) noexcept
{
    auto const& tensors = mEngine.model().tensors;
    for (size_t t = 0; t < tensors.size(); ++t)
    {
        mDebugOn[t] = flag && tensors[t].debug == plan::DebugMark::kMARKED;
    }
    mAnyDebugOn = anyOn(mDebugOn, mUnfusedDebugOn);
    return true;
}

bool ExecutionContext::getDebugState(char const* name) const noexcept
{
    int32_t const t = mEngine.markedDebugTensor(name);
    return t >= 0 && mDebugOn[t];
}

bool ExecutionContext::setUnfusedTensorsDebugState(bool flag) noexcept
{
    mUnfusedDebugOn = flag;
    mAnyDebugOn = anyOn(mDebugOn, mUnfusedDebugOn);
    return true;
}

bool ExecutionContext::debugOn(int32_t t) const
{
    plan::DebugMark const mark = mEngine.model().tensors[t].debug;
    return (mark == plan::DebugMark::kMARKED && mDebugOn[t]) || (mark == plan::DebugMark::kUNFUSED && mUnfusedDebugOn);
}

bool ExecutionContext::reportDebugTensors(std::vector<int32_t> const& tensors, cudaStream_t stream, std::string& error)
{
    if (mDebugListener == nullptr || !mAnyDebugOn)
    {
        return true;
    }
    for (int32_t t : tensors)
    {
        if (!debugOn(t))
        {
            continue;
        }
        plan::TensorRecord const& record = mEngine.model().tensors[t];
        void const* const address = mTensorAddresses[t];
        if (address == nullptr && record.maxBytes > 0)
        {
            error = "debug tensor \"" + record.name + "\" has no memory in this plan";
            return false;
        }
        bool reported = false;
        try
        {
            reported = mDebugListener->processDebugTensor(
                address, mEngine.memoryLocation(), record.type, mShapes[t], record.name.c_str(), stream);
        }
        catch (...) // processDebugTensor is the application's code, declared without noexcept
        {
            error = "the IDebugListener's processDebugTensor for \"" + record.name + "\" "
                + plugin::describeCurrentException();
            return false;
        }
        if (!reported)
        {
            error = "the IDebugListener's processDebugTensor for \"" + record.name + "\" returned false";
            return false;
        }
    }
    return true;
}

} // namespace kiln::runtime
