// The INT8 implicit GEMM (kernels/convolution/int8_convolution.h) called directly, on both of its kernels: mma.sync
// (any GPU) and Hopper's warp-group products (compute capability 9.0 only; skipped elsewhere).
// - Each kernel's sums against sums computed here exactly in 64-bit integers: an FP32 output with multipliers of 1 and
//   no bias or activation is the sums themselves (every one below 2^24, so exact in FP32).
// - The two kernels, given the same epilogue (bias, residuals of both types, ReLU, SiLU, INT8, FP16 and FP32 outputs),
//   write the same bytes: both sum exactly in INT32 and finish each sum by the same code.
// Geometries: 3x3 windows with padding over 64 channels (16-byte copies) into 128 maps, a strided 3x3 over 24
// channels (4-byte copies) into 72 maps (a partial block of 128), 1x1 windows over 256 channels into 64 maps, and a
// 7x7 stem over 4 channels; positions that end mid-tile.
#include "backend/cuda/kernels/convolution/int8_convolution.h"
#include "backend/cuda/memory/device_buffer.h"
#include "backend_comparison.h"

#include <cuda_fp16.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::cuda::DeviceBuffer;
using kiln::cuda::Im2colGeometry;
using kiln::cuda::Int8ConvolutionKernel;
using kiln::cuda::QuantizedEpilogue;

struct Case
{
    std::string name;
    int32_t images;
    int32_t channels;
    int32_t size; //!< height and width of the input
    int32_t maps;
    int32_t kernel;
    int32_t stride;
    int32_t padding;
};

std::vector<Case> cases()
{
    return {
        {"3x3 over 64 channels into 128 maps", 3, 64, 29, 128, 3, 1, 1},
        {"3x3 stride 2 over 24 channels into 72 maps", 4, 24, 37, 72, 3, 2, 1},
        {"1x1 over 256 channels into 64 maps", 2, 256, 23, 64, 1, 1, 0},
        {"7x7 stride 2 stem over 4 channels into 32 maps", 2, 4, 45, 32, 7, 2, 3},
    };
}

Im2colGeometry geometryOf(Case const& c)
{
    Im2colGeometry g;
    g.channels = c.channels;
    g.height = c.size;
    g.width = c.size;
    g.kernelHeight = c.kernel;
    g.kernelWidth = c.kernel;
    g.strideY = c.stride;
    g.strideX = c.stride;
    g.padY = c.padding;
    g.padX = c.padding;
    g.outputHeight = (c.size + 2 * c.padding - c.kernel) / c.stride + 1;
    g.outputWidth = g.outputHeight;
    g.taps = c.channels * c.kernel * c.kernel;
    g.rowLength = (g.taps + 15) / 16 * 16;
    return g;
}

std::vector<int8_t> randomCodes(size_t count, uint32_t seed)
{
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> code(-128, 127);
    std::vector<int8_t> codes(count);
    for (int8_t& value : codes)
    {
        value = static_cast<int8_t>(code(random));
    }
    return codes;
}

//! The filters as the kernel reads them: a row of rowLength taps per map, (r, s, channel), zeros past the taps.
std::vector<int8_t> filtersOf(Case const& c, Im2colGeometry const& g)
{
    std::vector<int8_t> filters = randomCodes(static_cast<size_t>(c.maps) * g.rowLength, 7);
    for (int32_t map = 0; map < c.maps; ++map)
    {
        std::fill(filters.begin() + static_cast<int64_t>(map) * g.rowLength + g.taps,
            filters.begin() + static_cast<int64_t>(map + 1) * g.rowLength, int8_t{0});
    }
    return filters;
}

//! The exact sums, [images, OH, OW, maps], of channels-last `input` and `filters`.
std::vector<int64_t> exactSums(
    Case const& c, Im2colGeometry const& g, std::vector<int8_t> const& input, std::vector<int8_t> const& filters)
{
    int64_t const positions = static_cast<int64_t>(c.images) * g.outputHeight * g.outputWidth;
    std::vector<int64_t> sums(static_cast<size_t>(positions * c.maps), 0);
    for (int64_t position = 0; position < positions; ++position)
    {
        int64_t const image = position / (g.outputHeight * g.outputWidth);
        int64_t const oy = position / g.outputWidth % g.outputHeight;
        int64_t const ox = position % g.outputWidth;
        for (int32_t map = 0; map < c.maps; ++map)
        {
            int64_t sum = 0;
            for (int32_t r = 0; r < c.kernel; ++r)
            {
                for (int32_t s = 0; s < c.kernel; ++s)
                {
                    int64_t const y = oy * c.stride - c.padding + r;
                    int64_t const x = ox * c.stride - c.padding + s;
                    if (y < 0 || y >= c.size || x < 0 || x >= c.size)
                    {
                        continue;
                    }
                    for (int32_t channel = 0; channel < c.channels; ++channel)
                    {
                        int64_t const tap = (r * c.kernel + s) * c.channels + channel;
                        sum += int64_t{input[static_cast<size_t>(
                                   ((image * c.size + y) * c.size + x) * c.channels + channel)]}
                            * filters[static_cast<size_t>(map * g.rowLength + tap)];
                    }
                }
            }
            sums[static_cast<size_t>(position * c.maps + map)] = sum;
        }
    }
    return sums;
}

DeviceBuffer uploaded(void const* bytes, size_t count)
{
    DeviceBuffer buffer(count);
    EXPECT_EQ(cudaMemcpy(buffer.data(), bytes, count, cudaMemcpyHostToDevice), cudaSuccess);
    return buffer;
}

template <typename T>
std::vector<T> downloaded(DeviceBuffer const& buffer, size_t count)
{
    std::vector<T> values(count);
    EXPECT_EQ(cudaMemcpy(values.data(), buffer.data(), count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return values;
}

//! One run of `kernel` over a case's input and filters (on the device already), its output's bytes.
std::vector<uint8_t> run(Case const& c, Im2colGeometry const& g, DeviceBuffer const& input, DeviceBuffer const& filters,
    QuantizedEpilogue const& e, size_t outputBytes, Int8ConvolutionKernel kernel)
{
    DeviceBuffer output(outputBytes);
    EXPECT_EQ(cudaMemset(output.data(), 0xFF, outputBytes), cudaSuccess);
    kiln::cuda::launchInt8Convolution(reinterpret_cast<int8_t const*>(input.data()),
        reinterpret_cast<int8_t const*>(filters.data()), output.data(), g, c.images, e, kernel, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return downloaded<uint8_t>(output, outputBytes);
}

bool hasWarpGroupProducts()
{
    int device = 0;
    return cudaGetDevice(&device) == cudaSuccess
        && kiln::cuda::int8ConvolutionKernelOfDevice(device) == Int8ConvolutionKernel::kWarpGroups;
}

std::vector<Int8ConvolutionKernel> kernelsOfThisGpu()
{
    if (hasWarpGroupProducts())
    {
        return {Int8ConvolutionKernel::kMmaSync, Int8ConvolutionKernel::kWarpGroups};
    }
    return {Int8ConvolutionKernel::kMmaSync};
}

TEST(CudaInt8Convolution, BothKernelsSumExactly)
{
    SKIP_WITHOUT_GPU();
    for (Case const& c : cases())
    {
        Im2colGeometry const g = geometryOf(c);
        std::vector<int8_t> const input = randomCodes(static_cast<size_t>(c.images) * c.size * c.size * c.channels, 3);
        std::vector<int8_t> const filters = filtersOf(c, g);
        std::vector<int64_t> const expected = exactSums(c, g, input, filters);
        DeviceBuffer const deviceInput = uploaded(input.data(), input.size());
        DeviceBuffer const deviceFilters = uploaded(filters.data(), filters.size());
        std::vector<float> const ones(static_cast<size_t>(c.maps), 1.0F);
        DeviceBuffer const multipliers = uploaded(ones.data(), ones.size() * sizeof(float));
        QuantizedEpilogue e;
        e.multipliers = reinterpret_cast<float const*>(multipliers.data());
        e.maps = c.maps;
        e.positions = static_cast<int64_t>(g.outputHeight) * g.outputWidth;
        for (Int8ConvolutionKernel const kernel : kernelsOfThisGpu())
        {
            std::string const what
                = c.name + (kernel == Int8ConvolutionKernel::kWarpGroups ? " on warp groups" : " on mma.sync");
            std::vector<uint8_t> const bytes
                = run(c, g, deviceInput, deviceFilters, e, expected.size() * sizeof(float), kernel);
            std::vector<float> sums(expected.size());
            std::memcpy(sums.data(), bytes.data(), bytes.size());
            int64_t wrong = 0;
            for (size_t i = 0; i < sums.size(); ++i)
            {
                if (sums[i] != static_cast<float>(expected[i]))
                {
                    EXPECT_LT(wrong, 5) << what << ": element " << i << " is " << sums[i] << ", the sum is "
                                        << expected[i];
                    ++wrong;
                }
            }
            EXPECT_EQ(wrong, 0) << what;
        }
    }
}

//! An epilogue the fused layers run, and the bytes of its output element.
struct Finish
{
    std::string name;
    bool bias;
    DataType residual; //!< kINT8 or kFLOAT; kBOOL for none
    bool activates;
    ActivationType activation;
    bool selfGated;
    DataType output; //!< kINT8 (quantized), kHALF or kFLOAT
};

std::vector<Finish> finishes()
{
    return {
        {"bias, INT8 residual, ReLU, INT8 output", true, DataType::kINT8, true, ActivationType::kRELU, false,
            DataType::kINT8},
        {"bias, FP32 residual, SiLU, FP16 output", true, DataType::kFLOAT, true, ActivationType::kSIGMOID, true,
            DataType::kHALF},
        {"hard-swish, FP32 output", false, DataType::kBOOL, true, ActivationType::kHARD_SIGMOID, true,
            DataType::kFLOAT},
        {"bias, sigmoid, INT8 output", true, DataType::kBOOL, true, ActivationType::kSIGMOID, false, DataType::kINT8},
    };
}

size_t bytesOf(DataType type)
{
    return type == DataType::kINT8 ? 1 : type == DataType::kHALF ? 2 : 4;
}

std::vector<float> randomFloats(size_t count, float low, float high, uint32_t seed)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> value(low, high);
    std::vector<float> values(count);
    for (float& v : values)
    {
        v = value(random);
    }
    return values;
}

TEST(CudaInt8Convolution, WarpGroupProductsWriteTheMmaKernelsBytes)
{
    SKIP_WITHOUT_GPU();
    if (!hasWarpGroupProducts())
    {
        GTEST_SKIP() << "the GPU has no warp-group products (compute capability 9.0 only)";
    }
    for (Case const& c : cases())
    {
        Im2colGeometry const g = geometryOf(c);
        std::vector<int8_t> const input = randomCodes(static_cast<size_t>(c.images) * c.size * c.size * c.channels, 5);
        std::vector<int8_t> const filters = filtersOf(c, g);
        size_t const outputs = static_cast<size_t>(c.images) * g.outputHeight * g.outputWidth * c.maps;
        DeviceBuffer const deviceInput = uploaded(input.data(), input.size());
        DeviceBuffer const deviceFilters = uploaded(filters.data(), filters.size());
        // Sums of about 1e4 to 1e5 scaled to about 1: INT8 outputs of scale 1/32 span the codes, some saturate.
        std::vector<float> const scales = randomFloats(static_cast<size_t>(c.maps), 5e-6F, 4e-5F, 11);
        std::vector<float> const bias = randomFloats(static_cast<size_t>(c.maps), -0.5F, 0.5F, 13);
        std::vector<int8_t> const int8Residual = randomCodes(outputs, 17);
        std::vector<float> const floatResidual = randomFloats(outputs, -1.0F, 1.0F, 19);
        DeviceBuffer const multipliers = uploaded(scales.data(), scales.size() * sizeof(float));
        DeviceBuffer const deviceBias = uploaded(bias.data(), bias.size() * sizeof(float));
        DeviceBuffer const deviceInt8Residual = uploaded(int8Residual.data(), int8Residual.size());
        DeviceBuffer const deviceFloatResidual = uploaded(floatResidual.data(), floatResidual.size() * sizeof(float));
        for (Finish const& f : finishes())
        {
            QuantizedEpilogue e;
            e.multipliers = reinterpret_cast<float const*>(multipliers.data());
            e.bias = f.bias ? reinterpret_cast<float const*>(deviceBias.data()) : nullptr;
            e.residual = f.residual == DataType::kINT8 ? static_cast<void const*>(deviceInt8Residual.data())
                : f.residual == DataType::kFLOAT       ? static_cast<void const*>(deviceFloatResidual.data())
                                                       : nullptr;
            e.residualType = f.residual == DataType::kINT8 ? DataType::kINT8 : DataType::kFLOAT;
            e.residualScale = 1.0F / 64;
            e.activates = f.activates;
            e.activation = f.activation;
            e.alpha = f.activation == ActivationType::kHARD_SIGMOID ? 1.0F / 6 : 0.0F;
            e.beta = f.activation == ActivationType::kHARD_SIGMOID ? 0.5F : 0.0F;
            e.selfGated = f.selfGated;
            e.outputScale = f.output == DataType::kINT8 ? 1.0F / 32 : 0.0F;
            e.floatType = f.output == DataType::kHALF ? DataType::kHALF : DataType::kFLOAT;
            e.maps = c.maps;
            e.positions = static_cast<int64_t>(g.outputHeight) * g.outputWidth;
            size_t const bytes = outputs * bytesOf(f.output);
            std::vector<uint8_t> const expected
                = run(c, g, deviceInput, deviceFilters, e, bytes, Int8ConvolutionKernel::kMmaSync);
            std::vector<uint8_t> const actual
                = run(c, g, deviceInput, deviceFilters, e, bytes, Int8ConvolutionKernel::kWarpGroups);
            size_t const elementBytes = bytesOf(f.output);
            int64_t differing = 0;
            for (size_t i = 0; i < outputs; ++i)
            {
                if (std::memcmp(&expected[i * elementBytes], &actual[i * elementBytes], elementBytes) != 0)
                {
                    EXPECT_LT(differing, 5) << c.name << ", " << f.name << ": element " << i << " differs";
                    ++differing;
                }
            }
            EXPECT_EQ(differing, 0) << c.name << ", " << f.name;
        }
    }
}

} // namespace
