// Running a loaded engine once, as every fuzzer does with what it loads or builds (CPU backend, host memory):
// profile 0's minimum shapes for inputs of run-time extent, its minimum values (or 1) for shape-tensor inputs, zeroed
// data elsewhere. Only memory sizes are capped, so that a fuzzer stays fast: a context only where the engine asks for
// at most kMaxContextBytes, a run only where all I/O buffers together stay under kMaxIOBytes. Every size is computed
// here with checks, so that a wrapped size is Kiln's finding and never the harness's.
#pragma once

#include "fuzz_support.h"

#include <NvInferRuntime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace kiln::fuzz
{

inline constexpr int64_t kMaxIOBytes = int64_t{64} << 20;
//! Shape-tensor inputs hold a few values; more is no shape.
inline constexpr int64_t kMaxShapeValues = 64;

//! Bytes for `dims` at 8 bytes an element (enough for every type), the vectorized dimension rounded up to whole
//! vectors; -1 where a dimension is unknown or the size passes `limit`.
inline int64_t boundedBytes(nvinfer1::Dims dims, int32_t vectorizedDim, int32_t perVector, int64_t limit)
{
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        return -1;
    }
    if (vectorizedDim >= 0 && vectorizedDim < dims.nbDims && perVector > 1 && dims.d[vectorizedDim] >= 0
        && dims.d[vectorizedDim] <= limit)
    {
        dims.d[vectorizedDim] = (dims.d[vectorizedDim] + perVector - 1) / perVector * perVector;
    }
    int64_t bytes = 8;
    for (int32_t d = 0; d < dims.nbDims; ++d)
    {
        if (dims.d[d] < 0 || (dims.d[d] > 0 && bytes > limit / dims.d[d]))
        {
            return -1;
        }
        bytes *= dims.d[d];
    }
    return bytes;
}

//! Gives a data-dependent output (NonZero's) one buffer of the largest size the context reported.
class CappedOutput final : public nvinfer1::IOutputAllocator
{
public:
    explicit CappedOutput(std::vector<uint8_t>& memory)
        : mMemory(memory)
    {
    }
    void* reallocateOutputAsync(char const*, void*, uint64_t size, uint64_t, cudaStream_t) override
    {
        return size <= mMemory.size() ? mMemory.data() : nullptr;
    }
    void notifyShape(char const*, nvinfer1::Dims const&) override { }

private:
    std::vector<uint8_t>& mMemory;
};

//! One run's host buffers; what it binds must outlive enqueueV3.
class EngineRun
{
public:
    EngineRun(nvinfer1::ICudaEngine& engine, nvinfer1::IExecutionContext& context)
        : mEngine(engine)
        , mContext(context)
    {
    }

    //! False where the run was skipped (too large, or refused with a logged error); a crash is the only failure.
    bool run()
    {
        int32_t const count = mEngine.getNbIOTensors();
        mBuffers.reserve(static_cast<size_t>(std::max(count, 0)));
        mAllocators.reserve(mBuffers.capacity());
        for (int32_t i = 0; i < count; ++i)
        {
            char const* name = mEngine.getIOTensorName(i);
            if (name == nullptr
                || (mEngine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT && !shapeInput(name)))
            {
                return false;
            }
        }
        for (int32_t i = 0; i < count; ++i)
        {
            if (!bind(mEngine.getIOTensorName(i)))
            {
                return false;
            }
        }
        return mContext.enqueueV3(nullptr);
    }

private:
    //! Sets a run-time extent to the profile's minimum; a shape-tensor input's values likewise.
    bool shapeInput(char const* name)
    {
        nvinfer1::Dims dims = mEngine.getTensorShape(name);
        if (std::any_of(dims.d, dims.d + std::max(dims.nbDims, 0), [](int64_t d) { return d < 0; }))
        {
            dims = mEngine.getProfileShape(name, 0, nvinfer1::OptProfileSelector::kMIN);
            if (!mContext.setInputShape(name, dims))
            {
                return false;
            }
        }
        if (!mEngine.isShapeInferenceIO(name))
        {
            return true;
        }
        int64_t const bytes = boundedBytes(dims, -1, 1, kMaxShapeValues * 8);
        if (bytes < 0)
        {
            return false;
        }
        std::vector<uint8_t>& values = mBuffers.emplace_back(static_cast<size_t>(bytes), 0);
        // Kiln's plans keep no profile values; 1 is what the ONNX fuzzer's profiles give every shape-tensor input.
        int32_t const* minimum = mEngine.getProfileTensorValues(name, 0, nvinfer1::OptProfileSelector::kMIN);
        bool const wide = mEngine.getTensorDataType(name) == nvinfer1::DataType::kINT64;
        for (int64_t v = 0; v < bytes / 8; ++v)
        {
            int64_t const value = minimum != nullptr ? minimum[v] : 1;
            int32_t const narrow = static_cast<int32_t>(value);
            wide ? std::memcpy(values.data() + v * 8, &value, 8) : std::memcpy(values.data() + v * 4, &narrow, 4);
        }
        return mContext.setTensorAddress(name, values.data());
    }

    //! Binds zeroed memory to an I/O tensor (already bound: a shape-tensor input), within the run's budget.
    bool bind(char const* name)
    {
        if (mEngine.isShapeInferenceIO(name) && mEngine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT)
        {
            return true;
        }
        nvinfer1::Dims const dims = mContext.getTensorShape(name);
        bool const dataDependent = dims.nbDims >= 0
            && std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; });
        int64_t const bytes = dataDependent ? mContext.getMaxOutputSize(name)
                                            : boundedBytes(dims, mEngine.getTensorVectorizedDim(name),
                                                mEngine.getTensorComponentsPerElement(name), kMaxIOBytes - mUsed);
        if (bytes < 0 || bytes > kMaxIOBytes - mUsed)
        {
            return false;
        }
        mUsed += bytes;
        // One byte at least, so that an empty tensor still has an address.
        std::vector<uint8_t>& buffer = mBuffers.emplace_back(static_cast<size_t>(std::max<int64_t>(bytes, 1)), 0);
        if (dataDependent)
        {
            return mContext.setOutputAllocator(name, &mAllocators.emplace_back(buffer));
        }
        return mContext.setTensorAddress(name, buffer.data());
    }

    nvinfer1::ICudaEngine& mEngine;
    nvinfer1::IExecutionContext& mContext;
    // Reserved before the first binding: the addresses given to the context must not move.
    std::vector<std::vector<uint8_t>> mBuffers;
    std::vector<CappedOutput> mAllocators;
    int64_t mUsed{0};
};

//! Creates a context where the engine's memory is modest and runs it once.
inline void runOnce(nvinfer1::ICudaEngine& engine)
{
    std::unique_ptr<nvinfer1::IExecutionContext> context = contextWithinLimit(engine);
    if (context != nullptr)
    {
        EngineRun(engine, *context).run();
    }
}

} // namespace kiln::fuzz
