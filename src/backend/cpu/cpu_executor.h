// The CPU backend's executor: host activation memory, the fast path's kernels for the layers the plan marks for
// it, the reference kernels for the others, and plugins through kiln::IHostPlugin.
#pragma once

#include "backend/cpu/fast/fast_path.h"
#include "backend/cpu/host_reformatter.h"
#include "backend/cpu/thread_choice.h"
#include "backend/executor.h"
#include "backend/plugin_runner.h"

#include <chrono>
#include <cstring>
#include <utility>

namespace kiln::cpu
{

class CpuExecutor final : public backend::Executor
{
public:
    //! Throws std::runtime_error naming the plugin if one cannot attach to the context (given `resources`, whose
    //! recorder is all a CPU context lends).
    CpuExecutor(backend::LoadedPlan const& plan, plugin::ContextResources const& resources);
    //! Gives memory the runtime's allocator gave back to it.
    ~CpuExecutor() override;
    CpuExecutor(CpuExecutor const&) = delete;
    CpuExecutor& operator=(CpuExecutor const&) = delete;

    //! From the runtime's IGpuAllocator where it has one (host memory: the CPU backend's "device" is the host),
    //! else owned here.

    void allocateContextMemory() override;
    bool setThreads(int32_t threads, bool adaptive) override
    {
        mFastPath.setThreads(threads);
        mFastPath.setRunThreads(0);
        mThreadChoice = ThreadChoice(mFastPath.threads());
        mAdaptiveThreads = adaptive;
        return true;
    }
    int32_t threads() const override
    {
        return mFastPath.threads();
    }
    bool adaptiveThreads() const override
    {
        return mAdaptiveThreads;
    }
    //! Where its runs may take fewer threads, each run takes the count ThreadChoice gives, and tells it its time.
    void beginRun() override
    {
        if (mAdaptiveThreads)
        {
            mFastPath.setRunThreads(mThreadChoice.nextRun());
            mRunStart = std::chrono::steady_clock::now();
        }
    }
    void endRun() override
    {
        if (mAdaptiveThreads)
        {
            mThreadChoice.ran(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - mRunStart).count());
        }
    }
    void const* constantAddress(size_t l) const override;
    bool runLayer(size_t l, std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream, std::string& error) override;
    //! The CPU backend runs synchronously: nothing to wait for.
    bool synchronize(cudaStream_t, std::string&) override
    {
        return true;
    }
    //! The reference runs every layer, shape computations included.
    void writeShapeValues(int32_t, TensorView const&, std::vector<int64_t> const&, cudaStream_t) override { }
    int64_t readScalar(ConstTensorView const& view, cudaStream_t) override
    {
        switch (view.type)
        {
        case nvinfer1::DataType::kINT32: return *static_cast<int32_t const*>(view.data);
        case nvinfer1::DataType::kBOOL: return *static_cast<bool const*>(view.data) ? 1 : 0;
        default: return *static_cast<int64_t const*>(view.data);
        }
    }
    void copyTensor(ConstTensorView const& from, TensorView const& to, cudaStream_t) override;
    void copyBytes(void* destination, void const* source, size_t bytes, cudaStream_t) override
    {
        std::memcpy(destination, source, bytes);
    }
    void zeroBytes(void* destination, size_t bytes, cudaStream_t) override
    {
        std::memset(destination, 0, bytes);
    }
    void beginTiming(size_t l, cudaStream_t) override
    {
        mTimes.resize(mPlan.model->layers.size());
        mTimes[l].first = std::chrono::steady_clock::now();
    }
    void endTiming(size_t l, cudaStream_t) override
    {
        mTimes[l].second = std::chrono::steady_clock::now();
    }
    float elapsedMs(size_t l) override
    {
        return l < mTimes.size() ? std::chrono::duration<float, std::milli>(mTimes[l].second - mTimes[l].first).count()
                                 : 0.0F;
    }

private:
    //! Runs built-in layer `l` at its chosen precision, converting its tensors where they are stored otherwise.
    bool runBuiltInLayer(size_t l, std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        std::string& error);
    //! Notes whether built-in layer `l` reads or writes a tensor in another type or format than it is stored in: the
    //! reference kernels read kLINEAR, the fast kernels the formats the plan gives their slots.
    void prepareConversions(size_t l);
    //! Offers the fast kernels the constant values their inputs hold, and notes the layers no run then needs.
    void takeConstantInputs();
    //! Runs layer `l` on its fast-path kernel, converting its tensors where the plan has it read them otherwise.
    bool runFastLayer(size_t l, std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        std::string& error);

    backend::LoadedPlan mPlan;
    //! Alignment asked of the runtime's allocator: as the CUDA backend asks, enough for every kernel's vectors.
    static constexpr uint64_t kContextMemoryAlignment = 256;
    std::unique_ptr<std::byte[]> mOwnedMemory; //!< the context memory, unless the application or an allocator gives it
    void* mAllocated{nullptr};                 //!< the context memory the runtime's allocator gave
    std::vector<std::unique_ptr<backend::PluginRunner>> mPlugins; //!< by layer; null for built-in layers
    std::vector<HostReformatter> mReformatters;                   //!< by layer: built-in layers' type conversions
    std::vector<std::vector<TensorFormat>> mLinearFormats; //!< by layer: kLINEAR for every slot, as the reference reads
    std::vector<bool> mConverts; //!< by layer: whether a built-in layer's tensors need converting around it
    fast::Session mFastPath;
    bool mAdaptiveThreads{true};
    ThreadChoice mThreadChoice{mFastPath.threads()};
    std::vector<std::unique_ptr<fast::Kernel>> mFastKernels; //!< by layer; null where the reference runs it
    //! By layer: not run, as it makes constant values that fast kernels took when the context was made.
    std::vector<bool> mUnneeded;
    using TimePoint = std::chrono::steady_clock::time_point;
    std::vector<std::pair<TimePoint, TimePoint>> mTimes; //!< by layer: the last profiled run's start and end
    TimePoint mRunStart;                                 //!< when the run under way began, where its threads are chosen
};

} // namespace kiln::cpu
