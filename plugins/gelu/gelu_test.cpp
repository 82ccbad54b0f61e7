// CustomGeluPluginDynamic against PyTorch's gelu(approximate="tanh") (values printed in double, pasted here), on the
// CPU and, with a GPU, on CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

PluginCall gelu(int32_t typeId)
{
    PluginCall call{"CustomGeluPluginDynamic", "1", {}};
    call.fields.add("type_id", typeId);
    return call;
}

// torch.nn.functional.gelu(x, approximate="tanh") of x = -3, -1, -0.5, 0, 0.5, 1, 2, 4.
std::vector<float> const kInputs{-3.F, -1.F, -0.5F, 0.F, 0.5F, 1.F, 2.F, 4.F};
std::vector<float> const kTorchGelu{-0.0036373920817729943F, -0.1588080093917233F, -0.15428599017485606F, 0.F,
    0.34571400982514394F, 0.8411919906082768F, 1.954597694087775F, 3.9999297540518075F};

TEST(GeluPlugin, MatchesTorchTanhGeluInFp32)
{
    PluginCall call = gelu(0);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 4}, kInputs)});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{2, 4}));
    expectClose(out[0].floats(), kTorchGelu, 1e-6F);
}

TEST(GeluPlugin, AddsTheBiasAlongTheLastAxisFirst)
{
    PluginCall call = gelu(0);
    call.fields.add("bias", std::vector<float>{0.25F, -0.75F});
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 2}, {1.F, 1.F, -2.F, 0.5F})});
    ASSERT_EQ(out.size(), 1U);
    // gelu(x + [0.25, -0.75]) by torch.
    expectClose(
        out[0].floats(), {1.1177142029697147F, 0.149675350701685F, -0.0702046176587487F, -0.100324649298315F}, 1e-6F);
}

TEST(GeluPlugin, RunsInFp16WhenTypeIdIsOne)
{
    PluginCall call = gelu(1);
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({8}, kInputs, DataType::kHALF)}, true);
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    expectClose(out[0].floats(), kTorchGelu, {2e-3, 1e-3});
}

TEST(GeluPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::vector<float> values(10'000);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = static_cast<float>(static_cast<int64_t>(i % 997) - 498) / 83.F;
    }
    struct Case
    {
        std::vector<float> bias;
        Shape shape;
    };
    // Four-element packs (the bias and the count multiples of 4); then one element at a time.
    for (Case const& c : {Case{{0.5F, -0.25F, 0.F, 1.F}, {4, 2500}}, Case{{0.5F, -0.25F, 1.F}, {3, 3333}}})
    {
        std::vector<float> const x(values.begin(), values.begin() + volume(c.shape));
        for (int32_t typeId : {0, 1})
        {
            DataType const type = typeId == 0 ? DataType::kFLOAT : DataType::kHALF;
            PluginCall call = gelu(typeId);
            call.fields.add("bias", c.bias);
            std::vector<HostTensor> const inputs{fromFloats(c.shape, x, type)};
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, typeId == 1);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, typeId == 1);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0].floats(), cpu[0].floats(), typeId == 0 ? Tolerance{1e-6, 1e-6} : Tolerance{1e-3, 1e-3},
                std::to_string(c.bias.size()) + " bias values, type_id " + std::to_string(typeId));
        }
    }
}

TEST(GeluPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"CustomGeluPluginDynamic", "1", {}};
    EXPECT_NE(creationErrors(missing).find("CustomGeluPluginDynamic: the required field 'type_id' is missing"),
        std::string::npos);

    PluginCall outOfRange = gelu(2);
    EXPECT_NE(
        creationErrors(outOfRange).find("field 'type_id' is 2; expected 0 (FP32) or 1 (FP16)"), std::string::npos);

    PluginCall wrongType{"CustomGeluPluginDynamic", "1", {}};
    wrongType.fields.add("type_id", 0.F);
    EXPECT_NE(
        creationErrors(wrongType).find("field 'type_id' holds kFLOAT32 data; expected integers"), std::string::npos);
}

} // namespace
} // namespace kiln::test
