#include "prior_box_index.h"
#include "prior_box_kernels.h"

#include <algorithm>

namespace kiln::plugins
{
namespace
{

struct Variance
{
    float v[4];
};

// One thread per (sample, box): four coordinates and four variances.
__global__ void priorBoxKernel(float* out, int64_t batch, int64_t boxes, int64_t perCell, int64_t gridWidth,
    float const* sizes, float stepH, float stepW, float offset, float imageH, float imageW, bool clip,
    Variance variance)
{
    int64_t const count = batch * boxes;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const sample = i / boxes;
        int64_t const box = i % boxes;
        float* coordinates = out + sample * boxes * 8 + box * 4;
        priorBox(box, perCell, gridWidth, sizes, stepH, stepW, offset, imageH, imageW, clip, coordinates);
        for (int k = 0; k < 4; ++k)
        {
            coordinates[boxes * 4 + k] = variance.v[k];
        }
    }
}

} // namespace

cudaError_t launchPriorBox(float* out, int64_t batch, int64_t boxes, int64_t perCell, int64_t gridWidth,
    float const* sizes, float stepH, float stepW, float offset, float imageH, float imageW, bool clip,
    float const* variance, cudaStream_t stream)
{
    int64_t const count = batch * boxes;
    if (count == 0)
    {
        return cudaSuccess;
    }
    Variance const values{{variance[0], variance[1], variance[2], variance[3]}};
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535 * 8));
    priorBoxKernel<<<blocks, kThreads, 0, stream>>>(
        out, batch, boxes, perCell, gridWidth, sizes, stepH, stepW, offset, imageH, imageW, clip, values);
    return cudaGetLastError();
}

} // namespace kiln::plugins
