#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/convolution/window_rows.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>

namespace kiln::cuda
{
namespace
{

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t{1} << 20;

//! Copies one Vector of a window row a thread, the rows' vectors in order: the writes are contiguous, and the reads
//! are too within each window row. Index is 32-bit where every vector's number fits, as the divisions then cost less.
template <typename Vector, typename Index>
__global__ void copyWindowRows(WindowRows w, Index vectors, Index spanVectors, std::byte const* input, Vector* rows)
{
    for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors;
         i += static_cast<Index>(gridDim.x) * blockDim.x)
    {
        Index const inSpan = i % spanVectors;
        Index rest = i / spanVectors;
        Index const windowRow = rest % static_cast<Index>(w.windowRows);
        rest /= static_cast<Index>(w.windowRows);
        Index const x = rest % static_cast<Index>(w.outWidth);
        rest /= static_cast<Index>(w.outWidth);
        Index const y = rest % static_cast<Index>(w.outHeight);
        Index const image = rest / static_cast<Index>(w.outHeight);
        int64_t const offset = image * w.imageBytes + (y * w.rowStride + windowRow) * w.inputRowBytes
            + x * w.windowStepBytes + static_cast<int64_t>(inSpan) * static_cast<int64_t>(sizeof(Vector));
        rows[i] = *reinterpret_cast<Vector const*>(input + offset);
    }
}

template <typename Vector>
void launchWith(WindowRows const& w, void const* input, void* rows, cudaStream_t stream)
{
    int64_t const spanVectors = w.spanBytes / static_cast<int64_t>(sizeof(Vector));
    int64_t const vectors = w.rowsBytes() / static_cast<int64_t>(sizeof(Vector));
    unsigned const blocks = static_cast<unsigned>(std::min(kMaxBlocks, (vectors + kThreads - 1) / kThreads));
    auto const* from = static_cast<std::byte const*>(input);
    auto* to = static_cast<Vector*>(rows);
    if (vectors <= std::numeric_limits<int32_t>::max() - int64_t{kThreads} * kMaxBlocks)
    {
        copyWindowRows<Vector, int32_t><<<blocks, kThreads, 0, stream>>>(
            w, static_cast<int32_t>(vectors), static_cast<int32_t>(spanVectors), from, to);
    }
    else
    {
        copyWindowRows<Vector, int64_t><<<blocks, kThreads, 0, stream>>>(w, vectors, spanVectors, from, to);
    }
}

//! Whether every vector of `bytes` bytes the copy reads and writes is aligned to them.
bool alignedTo(WindowRows const& w, void const* input, void const* rows, int64_t bytes)
{
    auto const aligned = [bytes](int64_t value) { return value % bytes == 0; };
    return aligned(w.spanBytes) && aligned(w.windowStepBytes) && aligned(w.inputRowBytes) && aligned(w.imageBytes)
        && aligned(static_cast<int64_t>(reinterpret_cast<uintptr_t>(input)))
        && aligned(static_cast<int64_t>(reinterpret_cast<uintptr_t>(rows)));
}

} // namespace

void launchWindowRows(WindowRows const& w, void const* input, void* rows, cudaStream_t stream)
{
    bool const extents = w.images > 0 && w.outHeight > 0 && w.outWidth > 0 && w.windowRows > 0 && w.rowStride > 0
        && w.spanBytes > 0 && w.windowStepBytes > 0
        && w.inputRowBytes >= (w.outWidth - 1) * w.windowStepBytes + w.spanBytes
        && w.imageBytes >= ((w.outHeight - 1) * w.rowStride + w.windowRows) * w.inputRowBytes;
    if (!extents)
    {
        throw std::invalid_argument("convolution: the windows to unfold have empty extents or lie outside the input");
    }
    if (alignedTo(w, input, rows, 16))
    {
        launchWith<uint4>(w, input, rows, stream);
    }
    else if (alignedTo(w, input, rows, 8))
    {
        launchWith<uint2>(w, input, rows, stream);
    }
    else if (alignedTo(w, input, rows, 4))
    {
        launchWith<uint32_t>(w, input, rows, stream);
    }
    else if (alignedTo(w, input, rows, 2))
    {
        launchWith<uint16_t>(w, input, rows, stream);
    }
    else
    {
        launchWith<uint8_t>(w, input, rows, stream);
    }
    check(cudaGetLastError(), "convolution: launching the copy of its windows");
}

} // namespace kiln::cuda
