#include "backend/cuda/calibration_device_buffer.h"

#include "backend/cuda/memory/device_buffer.h"

#include <cuda_runtime_api.h>

#include <stdexcept>

namespace kiln::cuda
{
namespace
{

class CalibrationDeviceBuffer final : public backend::CalibrationBuffer
{
public:
    explicit CalibrationDeviceBuffer(size_t bytes)
        : mBuffer(bytes, "calibration input")
    {
        // A calibrator may fill only part of it; the rest must not be uninitialized memory the statistics read.
        cudaMemset(mBuffer.data(), 0, bytes);
    }
    void* address() override
    {
        return mBuffer.data();
    }
    bool copyToHost(void const* binding, void* host, size_t bytes, std::string& error) override
    {
        // The calibrator may have written on any stream: wait for the device before reading. cudaMemcpyDefault
        // reads host memory too, where a calibrator points its binding at some.
        cudaError_t status = cudaDeviceSynchronize();
        if (status == cudaSuccess)
        {
            status = cudaMemcpy(host, binding, bytes, cudaMemcpyDefault);
        }
        if (status != cudaSuccess)
        {
            error = std::string("copying a calibration input to the host: ") + cudaGetErrorName(status) + " ("
                + cudaGetErrorString(status) + ")";
            cudaGetLastError();
            return false;
        }
        return true;
    }

private:
    DeviceBuffer mBuffer;
};

} // namespace

std::unique_ptr<backend::CalibrationBuffer> makeCalibrationDeviceBuffer(size_t bytes, std::string& error)
{
    try
    {
        return std::make_unique<CalibrationDeviceBuffer>(bytes);
    }
    catch (std::runtime_error const& e)
    {
        error = e.what();
        return nullptr;
    }
}

} // namespace kiln::cuda
