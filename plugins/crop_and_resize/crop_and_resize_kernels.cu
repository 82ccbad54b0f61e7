#include "crop_and_resize_kernels.h"

#include "crop_and_resize_math.h"

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// One thread per output element; consecutive threads take consecutive crop columns.
__global__ void cropAndResizeKernel(int32_t boxes, int32_t channels, int32_t height, int32_t width, int32_t cropHeight,
    int32_t cropWidth, float const* features, float const* rois, float* crops, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        auto const x = static_cast<int32_t>(i % cropWidth);
        auto const y = static_cast<int32_t>((i / cropWidth) % cropHeight);
        int64_t const c = (i / (static_cast<int64_t>(cropWidth) * cropHeight)) % channels;
        int64_t const box = i / (static_cast<int64_t>(cropWidth) * cropHeight * channels); // n * boxes + b
        int64_t const image = box / boxes;
        float const* plane = features + (image * channels + c) * height * width;
        float const corners[4] = {rois[4 * box], rois[4 * box + 1], rois[4 * box + 2], rois[4 * box + 3]};
        auto const load = [plane](int64_t offset) { return plane[offset]; };
        crops[i] = crop_and_resize::cropValue(load, height, width, corners, cropHeight, cropWidth, y, x);
    }
}

} // namespace

cudaError_t launchCropAndResize(int32_t batch, int32_t boxes, int32_t channels, int32_t height, int32_t width,
    int32_t cropHeight, int32_t cropWidth, float const* features, float const* rois, float* crops, cudaStream_t stream)
{
    int64_t const count = static_cast<int64_t>(batch) * boxes * channels * cropHeight * cropWidth;
    if (count == 0)
    {
        return cudaSuccess;
    }
    int32_t constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535 * 8));
    cropAndResizeKernel<<<blocks, kThreads, 0, stream>>>(
        boxes, channels, height, width, cropHeight, cropWidth, features, rois, crops, count);
    return cudaGetLastError();
}

} // namespace kiln::plugins
