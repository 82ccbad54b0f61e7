// IIfConditional on the CUDA backend against the CPU reference: both branches taken (the condition read back from
// device memory), at FP32 and FP16 (the output converts the branch's storage type), a gather out of range in the
// branch not taken, branches of different extents (a data-dependent output), a condition computed from shapes (on
// the host, no read back), and nested conditionals. Without a GPU, that the CUDA plans build.
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

ITensor* constantOf(INetworkDefinition& network, std::vector<float> const& values)
{
    static std::vector<std::vector<float>> kept; // the network reads weights when the plan is built
    kept.push_back(values);
    Weights const weights{DataType::kFLOAT, kept.back().data(), static_cast<int64_t>(kept.back().size())};
    return network.addConstant(Dims{1, {static_cast<int64_t>(values.size())}}, weights)->getOutput(0);
}

ITensor* scaled(INetworkDefinition& network, ITensor& x, float factor)
{
    return network.addElementWise(x, *constantOf(network, {factor}), ElementWiseOperation::kPROD)->getOutput(0);
}

void markOutput(INetworkDefinition& network, ILayer* layer, char const* name)
{
    ASSERT_NE(layer, nullptr);
    layer->getOutput(0)->setName(name);
    network.markOutput(*layer->getOutput(0));
}

//! y = cond ? x * x : relu(x) + gather(x, index) where index may be out of range when the true branch is taken.
NetworkMaker squareOrShifted()
{
    return [](INetworkDefinition& network) {
        ITensor* condition = network.addInput("cond", DataType::kBOOL, Dims{0, {}});
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {4, 64}});
        ITensor* index = network.addInput("index", DataType::kINT32, Dims{1, {1}});
        IIfConditional* conditional = network.addIfConditional();
        ASSERT_NE(conditional->setCondition(*condition), nullptr);
        ITensor* square = network.addElementWise(*x, *x, ElementWiseOperation::kPROD)->getOutput(0);
        ITensor* row = network.addGather(*x, *index, 0)->getOutput(0);
        ITensor* rectified = network.addActivation(*x, ActivationType::kRELU)->getOutput(0);
        ITensor* shifted = network.addElementWise(*rectified, *row, ElementWiseOperation::kSUM)->getOutput(0);
        markOutput(network, conditional->addOutput(*square, *shifted), "y");
    };
}

HostTensor boolScalar(bool value)
{
    return fromInts({}, {value ? 1 : 0}, DataType::kBOOL);
}

TEST(CudaConditional, BothBranchesMatchTheReferenceAtFp32AndFp16)
{
    SKIP_WITHOUT_GPU();
    HostTensor const x = fromFloats({4, 64}, spread(256, -2.0F, 2.0F));
    for (bool fp16 : {false, true})
    {
        expectBackendsAgree(squareOrShifted(),
            {{"cond", boolScalar(true)}, {"x", x}, {"index", fromInts({1}, {1000}, DataType::kINT32)}}, fp16,
            "true branch, gather index out of range");
        expectBackendsAgree(squareOrShifted(),
            {{"cond", boolScalar(false)}, {"x", x}, {"index", fromInts({1}, {2}, DataType::kINT32)}}, fp16,
            "false branch");
    }
    HostTensor const y = runOn(kiln::Backend::kCUDA, squareOrShifted(),
        {{"cond", boolScalar(true)}, {"x", fromFloats({4, 64}, std::vector<float>(256, 3.0F))},
            {"index", fromInts({1}, {7}, DataType::kINT32)}})
                             .at("y");
    EXPECT_EQ(y.floats(), std::vector<float>(256, 9.0F));
}

TEST(CudaConditional, BranchesOfDifferentExtents)
{
    SKIP_WITHOUT_GPU();
    auto const maker = [](INetworkDefinition& network) {
        ITensor* condition = network.addInput("cond", DataType::kBOOL, Dims{0, {}});
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{1, {300}});
        IIfConditional* conditional = network.addIfConditional();
        conditional->setCondition(*condition);
        ITensor* both[] = {x, x};
        ITensor* twice = network.addConcatenation(both, 2)->getOutput(0);
        markOutput(network, conditional->addOutput(*scaled(network, *x, 0.5F), *twice), "y");
    };
    HostTensor const x = fromFloats({300}, spread(300, -1.0F, 1.0F));
    for (bool taken : {true, false})
    {
        expectBackendsAgree(maker, {{"cond", boolScalar(taken)}, {"x", x}}, false, taken ? "[300]" : "[600]");
        HostTensor const y = runOn(kiln::Backend::kCUDA, maker, {{"cond", boolScalar(taken)}, {"x", x}}).at("y");
        EXPECT_EQ(y.shape, (kiln::Shape{taken ? 300 : 600}));
    }
}

TEST(CudaConditional, ConditionFromShapesAndNestedConditionals)
{
    SKIP_WITHOUT_GPU();
    // y = outer ? (x has 128 elements ? 2x : 3x) : 4x
    auto const maker = [](INetworkDefinition& network) {
        ITensor* outerCondition = network.addInput("outer", DataType::kBOOL, Dims{0, {}});
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{1, {128}});
        static int64_t const axis = 0;
        ITensor* shape = network.addShape(*x)->getOutput(0);
        ITensor* index = network.addConstant(Dims{0, {}}, Weights{DataType::kINT64, &axis, 1})->getOutput(0);
        ITensor* extent = network.addGather(*shape, *index, 0)->getOutput(0);
        static int64_t const elements = 128;
        ITensor* expected = network.addConstant(Dims{0, {}}, Weights{DataType::kINT64, &elements, 1})->getOutput(0);
        ITensor* innerCondition
            = network.addElementWise(*extent, *expected, ElementWiseOperation::kEQUAL)->getOutput(0);
        IIfConditional* outer = network.addIfConditional();
        outer->setCondition(*outerCondition);
        IIfConditional* inner = network.addIfConditional();
        inner->setCondition(*innerCondition);
        ITensor* innerResult = inner->addOutput(*scaled(network, *x, 2.0F), *scaled(network, *x, 3.0F))->getOutput(0);
        markOutput(network, outer->addOutput(*innerResult, *scaled(network, *x, 4.0F)), "y");
    };
    HostTensor const x = fromFloats({128}, spread(128, -1.0F, 1.0F));
    for (bool taken : {true, false})
    {
        expectBackendsAgree(maker, {{"outer", boolScalar(taken)}, {"x", x}}, false, taken ? "outer" : "not outer");
    }
    HostTensor const y = runOn(kiln::Backend::kCUDA, maker,
        {{"outer", boolScalar(true)}, {"x", fromFloats({128}, std::vector<float>(128, 1.0F))}})
                             .at("y");
    EXPECT_EQ(y.floats(), std::vector<float>(128, 2.0F));
}

TEST(CudaConditional, PlansBuildWithoutAGpu)
{
    RecordingLogger logger;
    EXPECT_NE(buildPlan(logger, kiln::Backend::kCUDA, squareOrShifted(), true, {}), nullptr) << logger.errors();
}

} // namespace
