#include "roi_align_kernels.h"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// One thread per output element; consecutive threads take consecutive pw, so neighbouring threads read
// neighbouring pixels of one plane.
template <typename T>
__global__ void roiAlignKernel(
    roi_align::Geometry g, int32_t batch, int64_t count, T const* x, T const* rois, int32_t const* batchIndices, T* y)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        auto const pw = static_cast<int32_t>(i % g.outputWidth);
        auto const ph = static_cast<int32_t>((i / g.outputWidth) % g.outputHeight);
        int64_t const c = (i / (static_cast<int64_t>(g.outputWidth) * g.outputHeight)) % g.channels;
        int64_t const r = i / (static_cast<int64_t>(g.outputWidth) * g.outputHeight * g.channels);
        int32_t const image = batchIndices[r];
        if (image < 0 || image >= batch)
        {
            y[i] = static_cast<T>(0.F);
            continue;
        }
        float const box[4] = {static_cast<float>(rois[4 * r]), static_cast<float>(rois[4 * r + 1]),
            static_cast<float>(rois[4 * r + 2]), static_cast<float>(rois[4 * r + 3])};
        T const* plane = x + (static_cast<int64_t>(image) * g.channels + c) * g.height * g.width;
        auto const load = [plane](int64_t offset) { return static_cast<float>(plane[offset]); };
        y[i] = static_cast<T>(roi_align::pooledValue(g, box, load, ph, pw));
    }
}

} // namespace

cudaError_t launchRoiAlign(roi_align::Geometry const& geometry, int32_t batch, int64_t roiCount, void const* x,
    void const* rois, int32_t const* batchIndices, void* y, bool half, cudaStream_t stream)
{
    int64_t const count
        = roiCount * geometry.channels * static_cast<int64_t>(geometry.outputHeight) * geometry.outputWidth;
    if (count == 0)
    {
        return cudaSuccess;
    }
    int32_t constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535 * 8));
    if (half)
    {
        roiAlignKernel<<<blocks, kThreads, 0, stream>>>(geometry, batch, count, static_cast<__half const*>(x),
            static_cast<__half const*>(rois), batchIndices, static_cast<__half*>(y));
    }
    else
    {
        roiAlignKernel<<<blocks, kThreads, 0, stream>>>(geometry, batch, count, static_cast<float const*>(x),
            static_cast<float const*>(rois), batchIndices, static_cast<float*>(y));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
