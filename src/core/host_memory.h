// IHostMemory over a byte vector.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <vector>

namespace kiln
{

class HostMemory final : public nvinfer1::IHostMemory
{
public:
    explicit HostMemory(std::vector<uint8_t> bytes)
        : mBytes(std::move(bytes))
    {
    }
    void* data() const noexcept override
    {
        return const_cast<uint8_t*>(mBytes.data());
    }
    std::size_t size() const noexcept override
    {
        return mBytes.size();
    }
    nvinfer1::DataType type() const noexcept override
    {
        return nvinfer1::DataType::kUINT8;
    }

private:
    std::vector<uint8_t> mBytes;
};

} // namespace kiln
