// Memory an application fills with one network input for INT8 calibration (IInt8Calibrator::getBatch writes into
// the bindings the builder gives it). TensorRT gives device memory, where its engines read inputs, so a calibrator
// written for it copies its batch there; each backend gives memory where its own engines read inputs (host memory
// on the CPU, device memory on CUDA), and the way back to the host, where the builder calibrates.
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
    //! Copies the first `bytes` to `host`; false with `error` set where the copy fails.
    virtual bool copyToHost(void* host, size_t bytes, std::string& error) = 0;
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
    bool copyToHost(void* host, size_t bytes, std::string& /*error*/) override
    {
        std::memcpy(host, mBytes.data(), bytes);
        return true;
    }

private:
    std::vector<std::byte> mBytes;
};

} // namespace kiln::backend
