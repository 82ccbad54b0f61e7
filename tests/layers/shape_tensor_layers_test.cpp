// Shape tensors through every layer kind that carries their values, on the CPU backend (the cases are in
// shape_tensor_cases.cpp, shared with the CUDA backend's test): the CPU backend runs the layers that compute them as
// ordinary kernels, so each case checks the kernels against the values inferred for the shapes. Also which tensors
// are shape tensors, which I/O is shape-inference I/O, and how a shape that cannot be computed fails.
#include "layer_harness.h"
#include "shape_tensor_cases.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test::shape_tensors;
using kiln::test::LayerHarness;

class ShapeTensorLayers : public ::testing::TestWithParam<std::tuple<Case, Source>>
{
};

TEST_P(ShapeTensorLayers, ValuesAndTheShapesTheyDecideFollowEachRun)
{
    runCase(std::get<0>(GetParam()), std::get<1>(GetParam()), kiln::Backend::kCPU, hostBuffers());
}

INSTANTIATE_TEST_SUITE_P(Kinds, ShapeTensorLayers,
    ::testing::Combine(::testing::ValuesIn(allCases()), ::testing::Values(Source::kSYMBOLIC, Source::kRUN_TIME)),
    caseName);

// As TensorRT's: 0-D and 1-D INT32, INT64 and BOOL tensors computed from shapes are shape tensors; a rank-2 tensor of
// known values, and integers computed from data, are not.
TEST(ShapeTensors, IsShapeTensorOnlyFor0DAnd1DTensorsComputedFromShapes)
{
    LayerHarness h;
    INetworkDefinition& n = *h.network;
    ITensor* x = n.addInput("x", DataType::kFLOAT, Dims{2, {-1, 3}});
    ITensor& shape = *n.addShape(*x)->getOutput(0);
    ITensor& first = entry(n, shape, 0);
    ITensor& flags = binary(n, cast(n, shape, DataType::kINT32), ints(n, {1, 3}), ElementWiseOperation::kEQUAL);
    ITensor& matrix = reshaped(n, concatenated(n, {&shape, &shape}), Dims{2, {2, 2}});
    ITensor& fromData = cast(n, *x, DataType::kINT32);
    EXPECT_TRUE(shape.isShapeTensor());
    EXPECT_TRUE(first.isShapeTensor());
    EXPECT_TRUE(flags.isShapeTensor());
    EXPECT_FALSE(matrix.isShapeTensor());
    EXPECT_FALSE(fromData.isShapeTensor());
    EXPECT_FALSE(x->isShapeTensor());
}

// As TensorRT's: an input is a shape tensor where it is needed as one, once a shape depends on its values; an
// INT32 input that only feeds data (gather indices) is not, though it could be.
TEST(ShapeTensors, AnInputIsAShapeTensorOnceAShapeDependsOnIt)
{
    LayerHarness h;
    INetworkDefinition& n = *h.network;
    ITensor* x = n.addInput("x", DataType::kFLOAT, Dims{2, {4, 3}});
    ITensor* s = n.addInput("s", DataType::kINT32, Dims{1, {2}});
    ITensor* indices = n.addInput("indices", DataType::kINT32, Dims{1, {2}});
    EXPECT_FALSE(s->isShapeTensor()) << "nothing reads it yet";
    IShuffleLayer* reshape = n.addShuffle(*x);
    reshape->setInput(1, *s);
    EXPECT_TRUE(s->isShapeTensor()) << "the reshape's dimensions are its values";
    ITensor& picked = *n.addGather(*x, *indices, 0)->getOutput(0);
    EXPECT_FALSE(indices->isShapeTensor()) << "gather indices are data";
    EXPECT_TRUE(indices->isExecutionTensor());
    EXPECT_FALSE(picked.isShapeTensor());
}

// A shape-tensor input is shape-inference I/O; an ordinary input, and an INT32 input that layers only read as data
// (gather indices, element-wise operands), are not: a device backend reads it where the application put it.
TEST(ShapeTensors, IsShapeInferenceIOForShapeInputsOnly)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    std::unique_ptr<ICudaEngine> engine = buildEngine(logger, runtime, kiln::Backend::kCPU, [](INetworkDefinition& n) {
        ITensor* x = n.addInput("x", DataType::kFLOAT, Dims{2, {-1, -1}});
        ITensor* s = n.addInput("s", DataType::kINT32, Dims{1, {2}});
        ITensor* indices = n.addInput("indices", DataType::kINT32, Dims{1, {2}});
        IShuffleLayer* reshape = n.addShuffle(*x);
        reshape->setInput(1, *s);
        output(n, *reshape->getOutput(0), "y");
        output(n, *n.addGather(*x, *indices, 1)->getOutput(0), "picked");
        // Values computed from the indices (known symbols while shapes are inferred) that no shape depends on.
        output(n, *n.addElementWise(*indices, *indices, ElementWiseOperation::kSUM)->getOutput(0), "doubled");
    });
    ASSERT_NE(engine, nullptr) << logger.errors();
    EXPECT_TRUE(engine->isShapeInferenceIO("s"));
    EXPECT_FALSE(engine->isShapeInferenceIO("x"));
    EXPECT_FALSE(engine->isShapeInferenceIO("indices"));
    EXPECT_FALSE(engine->isShapeInferenceIO("y"));
}

// Reshape dimensions computed from data values are not known while shapes are inferred: the build fails naming the
// layer, as TensorRT's does.
TEST(ShapeTensors, ReshapeDimensionsComputedFromDataFailTheBuildNamingTheLayer)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {6}});
    ITensor* dims = h.network->addInput("dims", DataType::kFLOAT, Dims{1, {2}});
    IShuffleLayer* reshape = h.network->addShuffle(*x);
    reshape->setInput(1, cast(*h.network, *dims, DataType::kINT32));
    reshape->setName("reshape_by_data");
    h.output(reshape, "y");
    kiln::setBackend(*h.config, kiln::Backend::kCPU);
    h.expectBuildToFail("reshape_by_data");
    EXPECT_NE(h.logger.errors().find("shape tensor"), std::string::npos) << h.logger.errors();
}

} // namespace
