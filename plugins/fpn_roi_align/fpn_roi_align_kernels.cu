#include "fpn_roi_align_kernels.h"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins::fpn
{
namespace
{

template <typename T>
__device__ float loadFloat(T const* data, int64_t index)
{
    return static_cast<float>(data[index]);
}

//! The level maps as one type, passed by value.
template <typename T>
struct Maps
{
    T const* data[kMaxLevels];
};

// One block per ROI (grid-stride over batch x ROIs): thread 0 works out the ROI's level and grid once, then the
// block's threads share the channels x pooled x pooled outputs.
template <typename R, typename T>
__global__ void fpnRoiAlignKernel(R const* rois, Maps<T> maps, DeviceTensors tensors, RoiAlignRule rule, T* out)
{
    __shared__ RoiGrid grid;
    int64_t const cell = static_cast<int64_t>(rule.pooled) * rule.pooled;
    int64_t const perRoi = cell * tensors.channels;
    int64_t const roiTotal = static_cast<int64_t>(tensors.batch) * tensors.roiCount;
    for (int64_t roiIndex = blockIdx.x; roiIndex < roiTotal; roiIndex += gridDim.x)
    {
        if (threadIdx.x == 0)
        {
            float roi[4];
            for (int32_t k = 0; k < 4; ++k)
            {
                roi[k] = loadFloat(rois, roiIndex * 4 + k);
            }
            grid = rule.multilevel ? multilevelGrid(roi, rule) : pyramidGrid(roi, rule, tensors.dims);
        }
        __syncthreads();
        auto const b = static_cast<int32_t>(roiIndex / tensors.roiCount);
        int32_t const h = tensors.dims[2 * grid.level];
        int32_t const w = tensors.dims[2 * grid.level + 1];
        T* dst = out + roiIndex * perRoi;
        for (int64_t i = threadIdx.x; i < perRoi; i += blockDim.x)
        {
            float value = 0.F;
            if (grid.valid)
            {
                auto const c = static_cast<int32_t>(i / cell);
                auto const py = static_cast<int32_t>((i % cell) / rule.pooled);
                auto const px = static_cast<int32_t>(i % rule.pooled);
                T const* plane = maps.data[grid.level] + (static_cast<int64_t>(b) * tensors.channels + c) * h * w;
                value = binValue(plane, h, w, grid, py, px);
            }
            dst[i] = static_cast<T>(value);
        }
        __syncthreads(); // the next ROI's grid overwrites this one
    }
}

template <typename R, typename T>
cudaError_t launchTyped(DeviceTensors const& tensors, RoiAlignRule const& rule, cudaStream_t stream)
{
    int64_t const roiTotal = static_cast<int64_t>(tensors.batch) * tensors.roiCount;
    if (roiTotal == 0)
    {
        return cudaSuccess;
    }
    Maps<T> maps{};
    for (int32_t level = 0; level < rule.levels; ++level)
    {
        maps.data[level] = static_cast<T const*>(tensors.maps[level]);
    }
    int64_t const perRoi = static_cast<int64_t>(rule.pooled) * rule.pooled * tensors.channels;
    int const threads = static_cast<int>(std::clamp<int64_t>((perRoi + 31) / 32 * 32, 32, 256));
    auto const blocks = static_cast<unsigned>(std::min<int64_t>(roiTotal, 65535 * 8));
    fpnRoiAlignKernel<R, T><<<blocks, threads, 0, stream>>>(
        static_cast<R const*>(tensors.rois), maps, tensors, rule, static_cast<T*>(tensors.out));
    return cudaGetLastError();
}

} // namespace

cudaError_t launchFpnRoiAlign(DeviceTensors const& tensors, RoiAlignRule const& rule, cudaStream_t stream)
{
    if (tensors.roisHalf)
    {
        return tensors.mapsHalf ? launchTyped<__half, __half>(tensors, rule, stream)
                                : launchTyped<__half, float>(tensors, rule, stream);
    }
    return tensors.mapsHalf ? launchTyped<float, __half>(tensors, rule, stream)
                            : launchTyped<float, float>(tensors, rule, stream);
}

} // namespace kiln::plugins::fpn
