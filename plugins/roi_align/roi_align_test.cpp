// ROIAlign_TRT 1 and 2 against torchvision.ops.roi_align (average mode; aligned=True is half_pixel) and ONNX Runtime's
// RoiAlign (max mode), values computed in Python and pasted here; on CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

struct RoiAlignFields
{
    int32_t coordinateTransformationMode;
    int32_t mode;
    int32_t outputHeight;
    int32_t outputWidth;
    int32_t samplingRatio;
    float spatialScale;
};

PluginCall roiAlign(char const* version, RoiAlignFields const& f)
{
    PluginCall call{"ROIAlign_TRT", version, {}};
    call.fields.add("coordinate_transformation_mode", f.coordinateTransformationMode)
        .add("mode", f.mode)
        .add("output_height", f.outputHeight)
        .add("output_width", f.outputWidth)
        .add("sampling_ratio", f.samplingRatio)
        .add("spatial_scale", f.spatialScale);
    return call;
}

// X [2, 2, 5, 6]: x[i] = (i * 37 mod 23) / 7 - 1.5, as the Python script made it.
std::vector<float> featureValues()
{
    std::vector<float> x(2 * 2 * 5 * 6);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(static_cast<double>(i * 37 % 23) / 7.0 - 1.5);
    }
    return x;
}

// Boxes (x1, y1, x2, y2): inside, partly outside the image, smaller than a pixel, and mostly outside.
std::vector<float> const kRois{0.5F, 1.F, 9.F, 7.5F, -2.F, -1.F, 4.F, 3.F, 3.F, 2.F, 3.6F, 2.4F, 6.F, 0.F, 13.F, 10.F};
std::vector<int64_t> const kBatchIndices{0, 1, 1, 0};

std::vector<HostTensor> inputs(DataType type = DataType::kFLOAT)
{
    return {fromFloats({2, 2, 5, 6}, featureValues(), type), fromFloats({4, 4}, kRois, type),
        fromInts({4}, kBatchIndices, DataType::kINT32)};
}

// torchvision.ops.roi_align(x, boxes, (3, 2), spatial_scale=0.5, sampling_ratio=2, aligned=True)
std::vector<float> const kTorchHalfPixelSampled{-0.11328124F, 0.22851562F, 0.41127235F, -0.0811942F, 0.58714658F,
    0.060453869F, 0.43796501F, -0.1486235F, 0.094029002F, -0.071149588F, 0.15866818F, -0.39797246F, 0.10714286F,
    -0.54464287F, 0.059523806F, -0.46875F, -0.27380955F, 0.062500052F, 0.53571427F, 0.10714284F, 0.48809522F,
    0.029017836F, 0.15476187F, -0.51785719F, 0.089999974F, 0.12714283F, 0.21642855F, 0.22071424F, 0.34285724F,
    0.31428576F, -0.78880954F, -0.71880955F, -0.84857142F, -0.74571425F, -0.90833336F, -0.77261907F, 0.23939732F,
    -0.54520088F, -0.11179323F, -0.26320675F, -0.16350445F, -0.28069198F, -0.097098246F, 0.31194198F, -0.4397321F,
    0.29445693F, -0.063616075F, 0.57645088F};

// torchvision.ops.roi_align(x, boxes, (2, 3), spatial_scale=0.5, sampling_ratio=0, aligned=False)
std::vector<float> const kTorchOutputHalfPixelAdaptive{0.27501857F, 0.42159614F, -0.31261638F, 0.41796878F,
    -0.042968839F, -0.050409093F, 0.064732186F, 0.0016740412F, -0.26139352F, 0.30340868F, -0.27036822F, -0.2393043F,
    0.21428572F, -0.4285714F, -0.071428567F, -0.9285714F, 0.071428567F, 0.4285714F, 1.0714285F, 0.4285714F,
    -0.85714287F, -0.071428575F, -0.71428567F, -0.35714284F, -0.071428522F, -0.5F, -0.65476197F, -0.64285707F,
    -1.0714285F, -0.67857122F, -0.035714328F, 0.35714287F, 0.20238087F, -0.059523776F, -0.21428572F, 0.17857161F,
    -0.12764551F, -0.13673942F, -0.06944444F, -0.35152116F, -0.38913703F, -0.10912699F, -0.32010588F, 0.37433842F,
    0.35912701F, -0.08002644F, 0.4432869F, 0.31944445F};

// torchvision.ops.roi_align(x, boxes, (2, 2), spatial_scale=1, sampling_ratio=0, aligned=True)
std::vector<float> const kTorchHalfPixelAdaptive{0.16407366F, -0.11604355F, -0.039999992F, 0.063571468F, -0.040223211F,
    0.16340964F, 0.0024999634F, 0.23500004F, 0.14285715F, -0.16666667F, 0.095238112F, -0.23809524F, 0.71428567F,
    -0.40476191F, -0.42857146F, 0.071428575F, -0.45428559F, -0.24857154F, -0.25571409F, 0.14714274F, 0.40285724F,
    0.60857141F, 0.60142875F, 1.0042856F, -0.089285716F, 0.F, 0.032142855F, 0.F, 0.125F, 0.F, 0.075000003F, 0.F};

// onnxruntime RoiAlign(mode="max", coordinate_transformation_mode="half_pixel", output 3 x 2, sampling_ratio=2,
// spatial_scale=0.5): the largest weighted corner over a bin's samples.
std::vector<float> const kOrtMaxHalfPixel{0.37904575F, 0.65471536F, 0.88183594F, 0.52041471F, 1.1562036F, 0.55733818F,
    0.87597656F, 0.40080914F, 0.696289F, 0.56989396F, 0.7802735F, 0.35784039F, 0.21428572F, 0.13392857F, 0.21428572F,
    0.15625F, 0.10714284F, 0.78125F, 1.0714285F, 0.66964281F, 1.0714285F, 0.66964281F, 0.53571421F, 0.33482137F,
    0.56718749F, 0.47879463F, 0.63593751F, 0.53683031F, 0.70468754F, 0.5948661F, 0.039776769F, 0.092812479F,
    0.044598196F, 0.10406248F, 0.049419623F, 0.11531247F, 1.1383929F, 0.58928573F, 0.44010428F, 0.32738101F,
    0.75334817F, 0.64285713F, 0.65290177F, 1.2321429F, 0.36272326F, 0.68452394F, 0.73660713F, 1.5F};

class RoiAlignVersions : public ::testing::TestWithParam<char const*>
{
};

TEST_P(RoiAlignVersions, HalfPixelWithFixedSamplingMatchesTorchvisionAligned)
{
    PluginCall call = roiAlign(GetParam(), {1, 1, 3, 2, 2, 0.5F});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs());
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{4, 2, 3, 2}));
    expectClose(out[0].floats(), kTorchHalfPixelSampled, 1e-5F);
}

TEST_P(RoiAlignVersions, OutputHalfPixelWithAdaptiveSamplingMatchesTorchvisionUnaligned)
{
    PluginCall call = roiAlign(GetParam(), {0, 1, 2, 3, 0, 0.5F});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs());
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{4, 2, 2, 3}));
    expectClose(out[0].floats(), kTorchOutputHalfPixelAdaptive, 1e-5F);
}

TEST_P(RoiAlignVersions, MaxModeMatchesOnnxRuntime)
{
    PluginCall call = roiAlign(GetParam(), {1, 0, 3, 2, 2, 0.5F});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs());
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), kOrtMaxHalfPixel, 1e-5F);
}

TEST_P(RoiAlignVersions, DefaultsAreHalfPixelAverageAdaptiveScaleOne)
{
    PluginCall call{"ROIAlign_TRT", GetParam(), {}};
    call.fields.add("output_height", 2).add("output_width", 2);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs());
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), kTorchHalfPixelAdaptive, 1e-5F);
}

TEST_P(RoiAlignVersions, RunsInFp16)
{
    PluginCall call = roiAlign(GetParam(), {1, 1, 3, 2, 2, 0.5F});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs(DataType::kHALF), true);
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    // the inputs themselves round to FP16 (boxes to 1/512 of a pixel here), hence the looser bound
    expectClose(out[0].floats(), kTorchHalfPixelSampled, {4e-3, 4e-3});
}

TEST_P(RoiAlignVersions, ABatchIndexOutOfRangeIsAnErrorOnTheCpu)
{
    PluginCall call = roiAlign(GetParam(), {1, 1, 3, 2, 2, 0.5F});
    std::vector<HostTensor> in = inputs();
    in[2] = fromInts({4}, {0, 1, 2, 0}, DataType::kINT32);
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, in, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("ROIAlign_TRT: batch_indices[2] is 2, outside [0, 2)"), std::string::npos) << errors;
}

TEST_P(RoiAlignVersions, RoisNotOfFourCoordinatesFailTheBuild)
{
    PluginCall call = roiAlign(GetParam(), {1, 1, 3, 2, 2, 0.5F});
    std::vector<HostTensor> in = inputs();
    in[1] = fromFloats({4, 2}, std::vector<float>(8, 1.F));
    std::string errors;
    EXPECT_TRUE(runPlugin(kiln::Backend::kCPU, call, in, false, &errors).empty());
    EXPECT_NE(errors.find("ROIAlign_TRT: expected 3 inputs"), std::string::npos) << errors;
}

TEST_P(RoiAlignVersions, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Larger: 3 images of 16 channels, 40 x 52, 64 boxes of all sizes, some partly outside.
    std::vector<float> x(3 * 16 * 40 * 52);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(static_cast<int64_t>(i * 7919 % 1009) - 504) / 211.F;
    }
    std::vector<float> rois;
    std::vector<int64_t> batchIndices;
    for (int32_t r = 0; r < 64; ++r)
    {
        float const x1 = static_cast<float>(r * 13 % 110) - 6.F;
        float const y1 = static_cast<float>(r * 29 % 86) - 4.F;
        rois.insert(rois.end(), {x1, y1, x1 + static_cast<float>(r % 9) * 5.3F, y1 + static_cast<float>(r % 7) * 4.1F});
        batchIndices.push_back(r % 3);
    }
    for (int32_t mode : {0, 1})
    {
        for (int32_t aligned : {0, 1})
        {
            for (DataType type : {DataType::kFLOAT, DataType::kHALF})
            {
                bool const half = type == DataType::kHALF;
                PluginCall call = roiAlign(GetParam(), {aligned, mode, 7, 5, mode == 1 ? 0 : 2, 0.5F});
                std::vector<HostTensor> const in{fromFloats({3, 16, 40, 52}, x, type), fromFloats({64, 4}, rois, type),
                    fromInts({64}, batchIndices, DataType::kINT32)};
                std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, in, half);
                std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, in, half);
                ASSERT_EQ(cuda.size(), 1U);
                expectClose(cuda[0].floats(), cpu[0].floats(), half ? Tolerance{2e-3, 2e-3} : Tolerance{1e-5, 1e-5},
                    "mode " + std::to_string(mode) + " aligned " + std::to_string(aligned) + (half ? " fp16" : ""));
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(RoiAlignPlugin, RoiAlignVersions, ::testing::Values("1", "2"),
    [](::testing::TestParamInfo<char const*> const& testInfo) { return std::string("Version") + testInfo.param; });

TEST(RoiAlignPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    for (char const* version : {"1", "2"})
    {
        PluginCall mode = roiAlign(version, {1, 2, 3, 2, 2, 0.5F});
        EXPECT_NE(creationErrors(mode).find("ROIAlign_TRT: field 'mode' is 2; expected 0 (max) or 1 (average)"),
            std::string::npos);
        PluginCall height = roiAlign(version, {1, 1, 0, 2, 2, 0.5F});
        EXPECT_NE(
            creationErrors(height).find("ROIAlign_TRT: field 'output_height' is 0; expected > 0"), std::string::npos);
        PluginCall scale = roiAlign(version, {1, 1, 3, 2, 2, -1.F});
        EXPECT_NE(creationErrors(scale).find("field 'spatial_scale' is -1.000000; expected > 0"), std::string::npos);
        PluginCall ctm = roiAlign(version, {3, 1, 3, 2, 2, 1.F});
        EXPECT_NE(creationErrors(ctm).find("field 'coordinate_transformation_mode' is 3"), std::string::npos);
        PluginCall wrongType{"ROIAlign_TRT", version, {}};
        wrongType.fields.add("output_width", 2.F);
        EXPECT_NE(creationErrors(wrongType).find("ROIAlign_TRT: field 'output_width' holds kFLOAT32 data; expected "
                                                 "integers"),
            std::string::npos);
    }
}

} // namespace
} // namespace kiln::test
