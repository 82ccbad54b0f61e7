// Memory for one network input of INT8 calibration. IInt8Calibrator::getBatch either fills the binding the builder
// gives it or points the binding at memory of its own (TensorRT's samples do that), device memory for TensorRT's
// engines. Each backend gives memory where its own engines read inputs (host memory on the CPU, device memory on
// CUDA), and copies what a binding points at back to the host, where the builder calibrates.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace kiln::backend
{

class CalibrationBuffer
{
public:
    virtual ~CalibrationBuffer() = default;
    //! What the calibrator's binding points at.
    virtual void* address() = 0;
    //! Copies `bytes` from `binding` (this buffer's address, or the calibrator's own memory) to `host`; false with
    //! `error` set where the copy fails.
    virtual bool copyToHost(void const* binding, void* host, size_t bytes, std::string& error) = 0;
};

//! Host memory: the CPU backend's.
class HostCalibrationBuffer final : public CalibrationBuffer
{
public:
    explicit HostCalibrationBuffer(size_t bytes)
        : mBytes(bytes)
    {
    }
    void* address() override
    {
        return mBytes.data();
    }
    bool copyToHost(void const* binding, void* host, size_t bytes, std::string& /*error*/) override
    {
        std::memcpy(host, binding, bytes);
        return true;
    }

private:
    std::vector<std::byte> mBytes;
};

} // namespace kiln::backend
