#include "backend/cuda/tuning/plugin_timing.h"

#include "backend/cuda/memory/device_buffer.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using nvinfer1::PluginTensorDesc;

void check(cudaError_t status, char const* what)
{
    if (status != cudaSuccess)
    {
        cudaGetLastError();
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
    }
}

//! A stream and two events, released however the timing ends.
class TimingStream
{
public:
    TimingStream()
    {
        check(cudaStreamCreateWithFlags(&mStream, cudaStreamNonBlocking), "creating a stream to time a plugin");
        check(cudaEventCreate(&mStart), "creating a timing event");
        check(cudaEventCreate(&mStop), "creating a timing event");
    }
    ~TimingStream()
    {
        cudaEventDestroy(mStart);
        cudaEventDestroy(mStop);
        cudaStreamDestroy(mStream);
    }
    TimingStream(TimingStream const&) = delete;
    TimingStream& operator=(TimingStream const&) = delete;

    cudaStream_t mStream{nullptr};
    cudaEvent_t mStart{nullptr};
    cudaEvent_t mStop{nullptr};
};

class DevicePluginTimer final : public backend::PluginTimer
{
public:
    double time(plugin::PluginAdapter& plugin, std::vector<backend::TimedTensor> const& inputs,
        std::vector<backend::TimedTensor> const& outputs, size_t workspaceBytes, std::string& error) override
    {
        try
        {
            return timeRuns(plugin, inputs, outputs, workspaceBytes, error);
        }
        catch (std::exception const& failure)
        {
            error = failure.what();
            return -1.0;
        }
    }

private:
    double timeRuns(plugin::PluginAdapter& plugin, std::vector<backend::TimedTensor> const& inputs,
        std::vector<backend::TimedTensor> const& outputs, size_t workspaceBytes, std::string& error)
    {
        std::vector<DeviceBuffer> memory(inputs.size() + outputs.size() + 1);
        std::vector<void const*> inputData;
        std::vector<void*> outputData;
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            inputData.push_back(grownZeroed(memory[i], inputs[i].bytes, nullptr, "a plugin input").data());
        }
        for (size_t o = 0; o < outputs.size(); ++o)
        {
            outputData.push_back(
                grownZeroed(memory[inputs.size() + o], outputs[o].bytes, nullptr, "a plugin output").data());
        }
        void* workspace = grownZeroed(memory.back(), workspaceBytes, nullptr, "a plugin's workspace").data();
        std::vector<PluginTensorDesc> const inDescs = descriptions(inputs);
        std::vector<PluginTensorDesc> const outDescs = descriptions(outputs);
        TimingStream timing;
        double fastest = std::numeric_limits<double>::infinity();
        for (int32_t run = 0; run <= kTimedRuns; ++run)
        {
            check(cudaEventRecord(timing.mStart, timing.mStream), "timing a plugin");
            if (!plugin.runOnDevice(
                    inDescs, outDescs, inputData.data(), outputData.data(), workspace, timing.mStream, error))
            {
                cudaStreamSynchronize(timing.mStream);
                return -1.0;
            }
            check(cudaEventRecord(timing.mStop, timing.mStream), "timing a plugin");
            check(cudaEventSynchronize(timing.mStop), "timing a plugin");
            float took = 0.0F;
            check(cudaEventElapsedTime(&took, timing.mStart, timing.mStop), "timing a plugin");
            fastest = run == 0 ? fastest : std::min(fastest, static_cast<double>(took)); // the first run warms up
        }
        return fastest;
    }
};

} // namespace

std::unique_ptr<backend::PluginTimer> makeDevicePluginTimer()
{
    return std::make_unique<DevicePluginTimer>();
}

} // namespace kiln::cuda
