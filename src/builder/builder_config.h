// IBuilderConfig: flags, memory limits, optimization profiles, progress monitor, backend.
#pragma once

#include "builder/optimization_profile.h"
#include "backend/timing_cache.h"

#include <kiln/Backend.h>
#include <kiln/ConvolutionLayout.h>
#include <kiln/CpuBackend.h>

#include <NvInfer.h>

#include <array>
#include <vector>

namespace kiln::builder
{

class BuilderConfig final : public nvinfer1::IBuilderConfig
{
public:
    BuilderConfig();

    void setFlags(nvinfer1::BuilderFlags builderFlags) noexcept override
    {
        mFlags = builderFlags;
    }
    nvinfer1::BuilderFlags getFlags() const noexcept override
    {
        return mFlags;
    }
    void clearFlag(nvinfer1::BuilderFlag flag) noexcept override
    {
        mFlags &= ~(1U << static_cast<uint32_t>(flag));
    }
    void setFlag(nvinfer1::BuilderFlag flag) noexcept override
    {
        mFlags |= 1U << static_cast<uint32_t>(flag);
    }
    bool getFlag(nvinfer1::BuilderFlag flag) const noexcept override
    {
        return (mFlags & (1U << static_cast<uint32_t>(flag))) != 0;
    }
    void reset() noexcept override;
    int32_t addOptimizationProfile(nvinfer1::IOptimizationProfile const* profile) noexcept override;
    int32_t getNbOptimizationProfiles() const noexcept override
    {
        return static_cast<int32_t>(mProfiles.size());
    }
    void setMemoryPoolLimit(nvinfer1::MemoryPoolType pool, std::size_t poolSize) noexcept override;
    std::size_t getMemoryPoolLimit(nvinfer1::MemoryPoolType pool) const noexcept override;
    void setProgressMonitor(nvinfer1::IProgressMonitor* monitor) noexcept override
    {
        mMonitor = monitor;
    }
    nvinfer1::IProgressMonitor* getProgressMonitor() const noexcept override
    {
        return mMonitor;
    }
    void setBuilderOptimizationLevel(int32_t level) noexcept override
    {
        mOptimizationLevel = level;
    }
    int32_t getBuilderOptimizationLevel() noexcept override
    {
        return mOptimizationLevel;
    }

    nvinfer1::ITimingCache* createTimingCache(void const* blob, std::size_t size) const noexcept override;
    bool setTimingCache(nvinfer1::ITimingCache const& cache, bool ignoreMismatch) noexcept override;
    nvinfer1::ITimingCache const* getTimingCache() const noexcept override
    {
        return mTimingCache;
    }
    //! The cache builds read and add to: the application's (TensorRT's builder, too, updates the cache it was
    //! given), or nullptr.
    backend::TimingCache* timingCache() const
    {
        return mTimingCache;
    }
    //! The device the configured backend times kernels on (timing caches record it); empty where it times nothing.
    std::string timedDevice() const;

    std::vector<ProfileShapes> const& profiles() const
    {
        return mProfiles;
    }
    Backend backend() const
    {
        return mBackend;
    }
    void setBackend(Backend backend)
    {
        mBackend = backend;
    }
    ConvolutionLayout convolutionLayout() const
    {
        return mConvolutionLayout;
    }
    void setConvolutionLayout(ConvolutionLayout layout)
    {
        mConvolutionLayout = layout;
    }
    CpuKernels cpuKernels() const
    {
        return mCpuKernels;
    }
    void setCpuKernels(CpuKernels kernels)
    {
        mCpuKernels = kernels;
    }

private:
    nvinfer1::BuilderFlags mFlags{0};
    std::vector<ProfileShapes> mProfiles;
    std::array<std::size_t, 6> mPoolLimits{};
    nvinfer1::IProgressMonitor* mMonitor{nullptr};
    int32_t mOptimizationLevel{3};
    Backend mBackend{Backend::kDEFAULT};
    ConvolutionLayout mConvolutionLayout{ConvolutionLayout::kBY_TIMING};
    CpuKernels mCpuKernels{CpuKernels::kFAST};
    backend::TimingCache* mTimingCache{nullptr};
};

} // namespace kiln::builder
