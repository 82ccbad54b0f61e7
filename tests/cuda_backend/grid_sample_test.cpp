// The CUDA backend's GridSample layer against the CPU reference: every interpolation mode, sample mode and align
// corners setting, in FP32 and at FP16 precision, with grid points inside the input, on its edges, exactly between
// pixels (where nearest rounding breaks ties to even) and outside it; batches and channels; a one-pixel input;
// nearest sampling of FP16 and BF16 tensors, compared bit for bit (it copies); and, without a GPU, that the CUDA
// plan builds.
#include "backend_comparison.h"

#include <cstdint>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

struct GridSampleSetup
{
    InterpolationMode interpolation{InterpolationMode::kLINEAR};
    SampleMode sampleMode{SampleMode::kFILL};
    bool alignCorners{false};
};

std::string describe(GridSampleSetup const& setup)
{
    return "interpolation " + std::to_string(static_cast<int32_t>(setup.interpolation)) + " sample mode "
        + std::to_string(static_cast<int32_t>(setup.sampleMode)) + (setup.alignCorners ? " align corners" : "");
}

//! GridSample of inputs "x" [N, C, H, W] and "grid" [N, H_out, W_out, 2] of `type`.
NetworkMaker gridSampleOf(DataType type, Dims const& input, Dims const& grid, GridSampleSetup const& setup)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, input);
        ITensor* g = network.addInput("grid", type, grid);
        IGridSampleLayer* layer = network.addGridSample(*x, *g);
        ASSERT_NE(layer, nullptr);
        layer->setInterpolationMode(setup.interpolation);
        ASSERT_TRUE(layer->setSampleMode(setup.sampleMode));
        layer->setAlignCorners(setup.alignCorners);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

//! Grid coordinates in [-1.5, 1.5] in steps of 1/16: exact in FP16, so both backends map them to the same pixel
//! coordinates, ties between pixels included; about a sixth lie outside [-1, 1].
std::vector<float> gridValues(size_t count)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        int64_t const step = static_cast<int64_t>((i * 37 + 11) % 49) - 24;
        values[i] = static_cast<float>(step) / 16.0F;
    }
    return values;
}

std::vector<GridSampleSetup> everySetup()
{
    std::vector<GridSampleSetup> setups;
    for (InterpolationMode interpolation :
        {InterpolationMode::kNEAREST, InterpolationMode::kLINEAR, InterpolationMode::kCUBIC})
    {
        for (SampleMode sampleMode : {SampleMode::kFILL, SampleMode::kCLAMP, SampleMode::kREFLECT})
        {
            for (bool alignCorners : {false, true})
            {
                setups.push_back({interpolation, sampleMode, alignCorners});
            }
        }
    }
    return setups;
}

TEST(CudaBackendGridSample, BuildsForTheCudaBackendWithoutAGpu)
{
    // Building and reading a CUDA plan needs no GPU: the backend finds the layer's kernel, at FP16 precision too.
    for (bool fp16 : {false, true})
    {
        kiln::plan::PlanModel const model
            = cudaPlanOf(gridSampleOf(DataType::kFLOAT, Dims{4, {1, 2, 3, 4}}, Dims{4, {1, 5, 6, 2}}, {}), fp16);
        EXPECT_EQ(layersOfKind(model, LayerType::kGRID_SAMPLE), 1) << (fp16 ? "fp16" : "fp32");
    }
}

TEST(CudaBackendGridSample, EveryModeInFp32AndFp16)
{
    SKIP_WITHOUT_GPU();
    Dims const input{4, {2, 3, 5, 7}};
    Dims const grid{4, {2, 4, 6, 2}};
    std::map<std::string, HostTensor> const inputs{
        {"x", fromFloats(shapeOf(input), spread(volumeOf(input), -1.0F, 1.0F))},
        {"grid", fromFloats(shapeOf(grid), gridValues(volumeOf(grid)))}};
    for (GridSampleSetup const& setup : everySetup())
    {
        NetworkMaker const maker = gridSampleOf(DataType::kFLOAT, input, grid, setup);
        expectBackendsAgree(maker, inputs, false, describe(setup));
        expectBackendsAgree(maker, inputs, true, describe(setup) + " fp16");
    }
}

TEST(CudaBackendGridSample, FarOutsideAndOnePixelInputs)
{
    SKIP_WITHOUT_GPU();
    // Points many input widths away (reflected several times, or all neighbours outside), and a 1 x 1 input, where
    // with align corners every point maps to pixel 0.
    std::vector<float> const far{-9.5F, 0.25F, 7.75F, -3.0F, 1.0F, 12.0F, -1.0F, -1.0F, 0.5F, 5.5F};
    Dims const farGrid{4, {1, 1, 5, 2}};
    for (Dims const& input : {Dims{4, {1, 2, 3, 4}}, Dims{4, {1, 2, 1, 1}}})
    {
        std::map<std::string, HostTensor> const inputs{
            {"x", fromFloats(shapeOf(input), spread(volumeOf(input), 0.5F, 2.0F))},
            {"grid", fromFloats(shapeOf(farGrid), far)}};
        for (GridSampleSetup const& setup : everySetup())
        {
            std::string const what = describe(setup) + " input width " + std::to_string(input.d[3]);
            expectBackendsAgree(gridSampleOf(DataType::kFLOAT, input, farGrid, setup), inputs, false, what);
        }
    }
}

TEST(CudaBackendGridSample, NearestCopiesSixteenBitTypesExactly)
{
    SKIP_WITHOUT_GPU();
    Dims const input{4, {1, 2, 4, 6}};
    Dims const grid{4, {1, 3, 5, 2}};
    // FP16 bits of values in [0.5, 2), BF16 bits of [1, 4); the grid's FP16 and BF16 bits of its k / 16 values.
    std::vector<uint16_t> halves(volumeOf(input));
    std::vector<uint16_t> bfloats(halves.size());
    for (size_t i = 0; i < halves.size(); ++i)
    {
        halves[i] = static_cast<uint16_t>(0x3800 + (i * 331) % 0x0800);
        bfloats[i] = static_cast<uint16_t>(0x3F80 + (i * 29) % 0x0100);
    }
    std::vector<float> const coordinates = gridValues(volumeOf(grid));
    std::vector<uint16_t> halfGrid(coordinates.size());
    std::vector<uint16_t> bfloatGrid(coordinates.size());
    for (size_t i = 0; i < coordinates.size(); ++i)
    {
        uint32_t bits = 0;
        std::memcpy(&bits, &coordinates[i], sizeof(bits));
        bfloatGrid[i] = static_cast<uint16_t>(bits >> 16); // k / 16 has few mantissa bits: exact in BF16
        // FP16: sign, exponent rebiased from 127 to 15, top 10 mantissa bits (zero stays zero).
        uint32_t const exponent = (bits >> 23) & 0xFFU;
        halfGrid[i] = exponent == 0
            ? static_cast<uint16_t>((bits >> 16) & 0x8000U)
            : static_cast<uint16_t>(((bits >> 16) & 0x8000U) | ((exponent - 112U) << 10) | ((bits >> 13) & 0x03FFU));
    }
    for (SampleMode sampleMode : {SampleMode::kFILL, SampleMode::kCLAMP, SampleMode::kREFLECT})
    {
        for (bool alignCorners : {false, true})
        {
            GridSampleSetup const setup{InterpolationMode::kNEAREST, sampleMode, alignCorners};
            expectBackendsAgree(gridSampleOf(DataType::kHALF, input, grid, setup),
                {{"x", fromElements<uint16_t>(shapeOf(input), halves, DataType::kHALF)},
                    {"grid", fromElements<uint16_t>(shapeOf(grid), halfGrid, DataType::kHALF)}},
                false, "FP16 " + describe(setup));
            expectBackendsAgree(gridSampleOf(DataType::kBF16, input, grid, setup),
                {{"x", fromElements<uint16_t>(shapeOf(input), bfloats, DataType::kBF16)},
                    {"grid", fromElements<uint16_t>(shapeOf(grid), bfloatGrid, DataType::kBF16)}},
                false, "BF16 " + describe(setup));
        }
    }
}

} // namespace
