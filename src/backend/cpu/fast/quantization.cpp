// Quantize and dequantize layers of one scale for the whole tensor, INT8 on one side and FP32 on the other, as loops
// over the elements that compute what core/quantization.h's functions, the reference kernels' own, compute, the same
// bits: the division by the scale, rounding half to even and saturation, element by element. An element-wise map does
// not care how the tensor's axes lie in memory where input and output lie alike, so a quantization continues a
// channels-last region (its INT8 output stays channels-last where the fused convolutions that read it take it so);
// where the plan stores the two differently, a quantization of channels-last data into row-major codes transposes as
// it goes, and otherwise the input is converted first. A dequantization writes row-major FP32 for the layers after it,
// which mostly run on row-major tensors.
#include "backend/cpu/fast/kernels.h"
#include "backend/cpu/fast/vector_clones.h"

#include "core/quantization.h"
#include "network/layers/quantize.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln::cpu::fast
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::TensorFormat;

//! quantizeToInt8(x, scale, zeroPoint), the same bits, in arithmetic that vectorises (the loops below ask for it with
//! `omp simd`, and CMakeLists.txt compiles this file with -fno-trapping-math, without which GCC keeps the selects'
//! branches: at -O2, which RelWithDebInfo builds use, the loops ran scalar, a division per element): its rounding
//! half to even (std::nearbyint, a library call per element on x86-64's baseline) by adding and taking away 1.5 * 2^23,
//! which rounds any float of magnitude below 2^22 to an integer in the current rounding mode, as nearbyint does. The
//! quotient is first held within +-256, beyond which both saturate alike.
KILN_ELEMENT int8_t quantizeInLoops(float x, float scale, int8_t zeroPoint)
{
    constexpr float kRounding = 12582912.0F;
    float const scaled = x / scale;
    // Every step a choice between floats, and one conversion of a value already in range (a conversion of a NaN or of
    // a float beyond int32 is undefined, so GCC would not convert before choosing).
    float const number = scaled == scaled ? scaled : 0.0F; // a NaN gives the zero point
    float const held = number < -256.0F ? -256.0F : (number > 256.0F ? 256.0F : number);
    float const shifted = ((held + kRounding) - kRounding) + static_cast<float>(zeroPoint);
    float const saturated = shifted >= 127.F ? 127.F : (shifted <= -128.F ? -128.F : shifted);
    return static_cast<int8_t>(static_cast<int32_t>(saturated));
}

//! dequantizeInt8(q, scale, zeroPoint), the same arithmetic, always inlined (vector_clones.h).
KILN_ELEMENT float dequantizeInLoops(int8_t q, float scale, int8_t zeroPoint)
{
    return static_cast<float>(static_cast<int32_t>(q) - static_cast<int32_t>(zeroPoint)) * scale;
}

} // namespace

// The array functions have external linkage (vector_clones.h).
namespace vectorized
{

KILN_VECTOR_CLONES void quantizeArray(
    float const* real, int8_t* quantized, int64_t count, float scale, int8_t zeroPoint)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        quantized[i] = quantizeInLoops(real[i], scale, zeroPoint);
    }
}

KILN_VECTOR_CLONES void dequantizeArray(
    int8_t const* quantized, float* real, int64_t count, float scale, int8_t zeroPoint)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
    {
        real[i] = dequantizeInLoops(quantized[i], scale, zeroPoint);
    }
}

} // namespace vectorized

namespace
{

using namespace vectorized;

//! apply(first, count) over chunks of `count` elements, spread over `threads`.
template <typename Apply>
void inChunks(int64_t count, int threads, Apply const& apply)
{
    constexpr int64_t kChunk = int64_t{1} << 14;
    int64_t const chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t chunk = 0; chunk < chunks; ++chunk)
    {
        int64_t const first = chunk * kChunk;
        apply(first, std::min(kChunk, count - first));
    }
}

//! Channels-last FP32 [N, positions, C] quantized into row-major INT8 [N, C, positions] in one pass, tile by tile: each
//! tile of 32 positions by 32 channels quantized along its rows (vectorised) into a small buffer, then written out
//! along its columns. Converting the FP32 tensor to row-major first moved it through memory twice more, which took
//! most of such a layer's time (a YOLO-style export's standalone Qs, read by row-major slices).
void quantizeIntoRowMajor(float const* real, int8_t* quantized, int64_t images, int64_t channels, int64_t positions,
    float scale, int8_t zeroPoint, int threads)
{
    constexpr int64_t kTile = 32;
    int64_t const tilesPerImage = (positions + kTile - 1) / kTile;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t t = 0; t < images * tilesPerImage; ++t)
    {
        int64_t const image = t / tilesPerImage;
        int64_t const firstPosition = (t % tilesPerImage) * kTile;
        int64_t const tilePositions = std::min(kTile, positions - firstPosition);
        for (int64_t firstChannel = 0; firstChannel < channels; firstChannel += kTile)
        {
            int64_t const tileChannels = std::min(kTile, channels - firstChannel);
            int8_t tile[kTile][kTile]; // [position][channel]
            for (int64_t p = 0; p < tilePositions; ++p)
            {
                float const* row = real + ((image * positions + firstPosition + p) * channels + firstChannel);
#pragma omp simd
                for (int64_t c = 0; c < tileChannels; ++c)
                {
                    tile[p][c] = quantizeInLoops(row[c], scale, zeroPoint);
                }
            }
            for (int64_t c = 0; c < tileChannels; ++c)
            {
                int8_t* column = quantized + ((image * channels + firstChannel + c) * positions + firstPosition);
                for (int64_t p = 0; p < tilePositions; ++p)
                {
                    column[p] = tile[p][c];
                }
            }
        }
    }
}

class QuantizationKernel final : public Kernel
{
public:
    QuantizationKernel(State& state, bool quantizes)
        : mState(state)
        , mQuantizes(quantizes)
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        ConstTensorView input = inputs.at(0);
        float const scale = *static_cast<float const*>(inputs.at(1).data);
        bool const hasZeroPoint = inputs.size() > 2 && inputs[2].data != nullptr;
        int8_t const zeroPoint = hasZeroPoint ? *static_cast<int8_t const*>(inputs[2].data) : int8_t{0};
        int64_t const count = output.count();
        int const threads = threadsFor(mState, count);
        if (mQuantizes && input.format == TensorFormat::kHWC && output.format == TensorFormat::kLINEAR && count > 0)
        {
            int64_t const images = input.shape[0];
            int64_t const channels = input.shape[1];
            quantizeIntoRowMajor(static_cast<float const*>(input.data), static_cast<int8_t*>(output.data), images,
                channels, count / (images * channels), scale, zeroPoint, threads);
            return;
        }
        input = inFormat(input, output.format, mConverted);
        if (mQuantizes)
        {
            auto const* real = static_cast<float const*>(input.data);
            auto* quantized = static_cast<int8_t*>(output.data);
            inChunks(count, threads,
                [&](int64_t first, int64_t n) { quantizeArray(real + first, quantized + first, n, scale, zeroPoint); });
            return;
        }
        auto const* quantized = static_cast<int8_t const*>(input.data);
        auto* real = static_cast<float*>(output.data);
        inChunks(count, threads,
            [&](int64_t first, int64_t n) { dequantizeArray(quantized + first, real + first, n, scale, zeroPoint); });
    }

private:
    State& mState;
    bool const mQuantizes;
    std::vector<std::byte> mConverted; //!< the input in the output's format, where the plan stores them differently
};

//! Whether tensor `t` of `model` holds one element of `type`, read at run time.
bool oneValueOf(plan::PlanModel const& model, int32_t t, DataType type)
{
    std::optional<std::vector<int64_t>> const dims = plan::constantDims(model, t);
    return t >= 0 && model.tensors[t].type == type && dims && volume(*dims) == 1;
}

} // namespace

bool supportsQuantization(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    bool const quantizes = plan::paramsOf<network::QuantizeParams>(layer) != nullptr;
    bool const dequantizes = plan::paramsOf<network::DequantizeParams>(layer) != nullptr;
    if ((!quantizes && !dequantizes) || layer.precision != DataType::kFLOAT || layer.epilogue.any()
        || layer.inputs.size() < 2 || layer.inputs.size() > 3 || layer.outputs.size() != 1 || layer.inputs[0] < 0
        || layer.outputs[0] < 0)
    {
        return false;
    }
    DataType const real = DataType::kFLOAT;
    DataType const types[] = {quantizes ? real : DataType::kINT8, quantizes ? DataType::kINT8 : real};
    for (size_t slot = 0; slot < 2; ++slot)
    {
        size_t const index = slot == 0 ? 0 : layer.inputs.size();
        int32_t const t = slot == 0 ? layer.inputs[0] : layer.outputs[0];
        if (plan::slotType(model, layer, index) != types[slot] || model.tensors[t].type != types[slot]
            || !readsAsStored(model, layer, index))
        {
            return false;
        }
    }
    bool const zeroPoint = layer.inputs.size() < 3 || layer.inputs[2] < 0
        || oneValueOf(model, layer.inputs[2], DataType::kINT8);
    return oneValueOf(model, layer.inputs[1], real) && zeroPoint;
}

std::unique_ptr<Kernel> makeQuantization(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<QuantizationKernel>(state, plan::paramsOf<network::QuantizeParams>(layer) != nullptr);
}

} // namespace kiln::cpu::fast
