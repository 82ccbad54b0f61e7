// A tensor in device memory for tests that call a CUDA kernel directly: its data starts at an address aligned to 256
// bytes, as a plan's tensors do, or a chosen number of elements past one, so that a kernel meets data its vector
// accesses (or a library's fastest kernels) cannot take; guard bytes around it show any write outside the tensor.
#pragma once

#include "host_tensor.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace kiln::test
{

class DeviceTensor
{
public:
    //! Also the alignment of the data at offset 0: a plan aligns its tensors to 256 bytes, and cuBLASLt's kernels
    //! read operands in place, and fuse epilogues, only at that alignment.
    static constexpr size_t kGuardBytes = 256;
    static constexpr uint8_t kFill = 0xFF; //!< NaN in every float type, so an element never written shows

    //! `host`'s elements, `offsetElements` elements past a 256-byte-aligned address.
    explicit DeviceTensor(HostTensor const& host, size_t offsetElements = 0)
        : DeviceTensor(host.shape, host.type, offsetElements)
    {
        if (!host.bytes.empty())
        {
            EXPECT_EQ(cudaMemcpy(mData, host.bytes.data(), host.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
        }
    }

    //! Every byte kFill.
    DeviceTensor(Shape shape, nvinfer1::DataType type, size_t offsetElements = 0)
        : mShape(std::move(shape))
        , mType(type)
        , mLead(kGuardBytes + offsetElements * elementSize(type))
        , mBytes(static_cast<size_t>(volume(mShape)) * elementSize(type))
    {
        EXPECT_EQ(cudaMalloc(&mBase, mLead + mBytes + kGuardBytes), cudaSuccess);
        EXPECT_EQ(cudaMemset(mBase, kFill, mLead + mBytes + kGuardBytes), cudaSuccess);
        mData = static_cast<uint8_t*>(mBase) + mLead;
    }

    DeviceTensor(DeviceTensor const&) = delete;
    DeviceTensor& operator=(DeviceTensor const&) = delete;
    ~DeviceTensor()
    {
        cudaFree(mBase);
    }

    TensorView view() const
    {
        return TensorView{mType, mShape, mData};
    }
    ConstTensorView constView() const
    {
        return ConstTensorView(mType, mShape, mData);
    }

    //! The elements, after the device has finished.
    HostTensor read() const
    {
        HostTensor host = zeros(mShape, mType);
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        if (!host.bytes.empty())
        {
            EXPECT_EQ(cudaMemcpy(host.bytes.data(), mData, mBytes, cudaMemcpyDeviceToHost), cudaSuccess);
        }
        return host;
    }

    //! Whether every byte around the tensor still holds kFill.
    bool guardsIntact() const
    {
        std::vector<uint8_t> all(mLead + mBytes + kGuardBytes);
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(all.data(), mBase, all.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        for (size_t i = 0; i < all.size(); ++i)
        {
            bool const inside = i >= mLead && i < mLead + mBytes;
            if (!inside && all[i] != kFill)
            {
                return false;
            }
        }
        return true;
    }

private:
    Shape mShape;
    nvinfer1::DataType mType;
    size_t mLead;
    size_t mBytes;
    void* mBase{nullptr};
    uint8_t* mData{nullptr};
};

} // namespace kiln::test
