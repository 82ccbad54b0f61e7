#include "backend/cuda/tuning/product_timing.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/libraries/cublaslt/matrix_multiply_descriptors.h"
#include "backend/cuda/libraries/cublaslt/matrix_multiply_geometry.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

//! How many of cuBLASLt's heuristic choices are timed: past the first few, its ranking rarely holds a faster one,
//! and each costs build time.
constexpr int kAlgorithmsTimed = 8;

//! The parts an algorithm's K may be split into, each timed where K / parts is at least kMinSplitDepth.
constexpr std::array<int32_t, 6> kSplits{2, 3, 4, 6, 8, 16};
constexpr int64_t kMinSplitDepth = 128;

//! Timed runs of each algorithm; the median is kept, as one run now and then is slowed by a clock change.
constexpr int kTimedRuns = 9;

//! Twice the GPU's L2 cache: writing that many bytes leaves none of the operands in it.
size_t flushBytes()
{
    int device = 0;
    int l2Bytes = 0;
    check(cudaGetDevice(&device), "timing matrix multiplies: finding the GPU");
    check(cudaDeviceGetAttribute(&l2Bytes, cudaDevAttrL2CacheSize, device),
        "timing matrix multiplies: asking the L2 cache's size");
    return std::max(size_t{2} * static_cast<size_t>(l2Bytes), size_t{8} << 20);
}

} // namespace

ProductTimer::ProductTimer(nvinfer1::IGpuAllocator* allocator)
    : mAllocator(allocator)
{
    checkCublasLt(cublasLtCreate(&mHandle), "starting cuBLASLt to time matrix multiplies");
    check(cudaEventCreate(&mStart), "creating a timing event");
    check(cudaEventCreate(&mStop), "creating a timing event");
}

ProductTimer::~ProductTimer()
{
    cudaEventDestroy(mStart);
    cudaEventDestroy(mStop);
    cublasLtDestroy(mHandle);
}

DeviceBuffer& ProductTimer::grown(DeviceBuffer& buffer, size_t bytes)
{
    return grownZeroed(buffer, bytes, mAllocator, "buffers to time matrix multiply algorithms in");
}

float ProductTimer::timeCold(std::function<void()> const& run)
{
    DeviceBuffer const& flush = mFlush.size() > 0 ? mFlush : grown(mFlush, flushBytes());
    run(); // loads the kernels
    std::array<float, kTimedRuns> milliseconds{};
    for (float& time : milliseconds)
    {
        check(cudaMemsetAsync(flush.data(), 0, flush.size(), nullptr), "timing a matrix multiply: flushing the L2");
        check(cudaEventRecord(mStart, nullptr), "timing a matrix multiply");
        run();
        check(cudaEventRecord(mStop, nullptr), "timing a matrix multiply");
        check(cudaEventSynchronize(mStop), "timing a matrix multiply");
        check(cudaEventElapsedTime(&time, mStart, mStop), "timing a matrix multiply");
    }
    auto const median = milliseconds.begin() + kTimedRuns / 2;
    std::nth_element(milliseconds.begin(), median, milliseconds.end());
    return *median;
}

ProductAlgorithmTimer::Result ProductTimer::fastest(network::MatrixMultiplyParams const& params,
    plan::Epilogue const& epilogue, Shape const& input0, Shape const& input1, nvinfer1::DataType type)
{
    GemmGeometry const geometry = gemmGeometry(input0, params.op0, input1, params.op1);
    if (geometry.batches * geometry.m * geometry.n == 0 || geometry.k == 0)
    {
        throw std::invalid_argument("matrix multiply: an empty product has no algorithm to time");
    }
    size_t const element = elementSize(type);
    int64_t const biasValues = epilogue.bias.count();
    bool const biasRowPerMatrix = geometry.batches > 1 && biasValues == geometry.n * geometry.batches;
    // The library's A is the layer's second input (matrix_multiply_geometry.h).
    void const* const first = grown(mInput1, static_cast<size_t>(volume(input1)) * element).data();
    void const* const second = grown(mInput0, static_cast<size_t>(volume(input0)) * element).data();
    void* const output
        = grown(mOutput, static_cast<size_t>(geometry.batches * geometry.m * geometry.n) * element).data();
    void const* const bias = biasValues > 0 ? grown(mBias, static_cast<size_t>(biasValues) * element).data() : nullptr;
    void* const workspace = grown(mWorkspace, kMaxGemmWorkspaceBytes).data();
    // The layer applies the rank where its operands are aligned to 256 bytes, as the plan aligns activations; so
    // must these be, for the ranking to be the one it asks for.
    for (void const* operand : {first, second, static_cast<void const*>(output), bias})
    {
        if (operand != nullptr && addressAlignment(operand) < 256)
        {
            throw std::runtime_error("matrix multiply: the allocator's buffers are not aligned to 256 bytes");
        }
    }

    MatrixMultiplyDescriptors descriptors;
    descriptors.describe(geometry, type, GemmEpilogue{bias, epilogue.relu(), biasRowPerMatrix});
    std::vector<cublasLtMatmulHeuristicResult_t> const ranked
        = descriptors.rankedAlgorithms(mHandle, GemmAlignments{}, kMaxGemmWorkspaceBytes, kAlgorithmsTimed);
    float const one = 1.0F;
    float const zero = 0.0F;
    Result best{AlgorithmChoice::gemm(0), std::numeric_limits<float>::infinity()};
    auto const time = [&](cublasLtMatmulHeuristicResult_t const& choice, AlgorithmChoice const& encoded) {
        float const milliseconds = timeCold([&] {
            checkCublasLt(cublasLtMatmul(mHandle, descriptors.matmul, &one, first, descriptors.first, second,
                              descriptors.second, &zero, output, descriptors.output, output, descriptors.output,
                              &choice.algo, workspace, choice.workspaceSize, nullptr),
                "timing an algorithm");
        });
        if (milliseconds < best.milliseconds)
        {
            best = Result{encoded, milliseconds};
        }
    };
    for (size_t rank = 0; rank < ranked.size(); ++rank)
    {
        auto const rankIndex = static_cast<int32_t>(rank);
        time(ranked[rank], AlgorithmChoice::gemm(rankIndex));
        // cuBLASLt's heuristic offers few split products, but products of few output tiles (a transformer's at a
        // short sequence) leave most multiprocessors idle unless K is split.
        for (int32_t const splits : kSplits)
        {
            std::optional<cublasLtMatmulHeuristicResult_t> const split = geometry.k / splits >= kMinSplitDepth
                ? descriptors.splitAlgorithm(mHandle, ranked[rank], splits, kMaxGemmWorkspaceBytes)
                : std::nullopt;
            if (split)
            {
                time(*split, AlgorithmChoice::gemm(rankIndex, splits));
            }
        }
    }
    return best;
}

} // namespace kiln::cuda
