// ILoop on the CUDA backend against the CPU reference: an LSTM-like cell over an iterator (matrix multiplies and
// point-wise chains inside the body, which the CUDA passes fuse), at FP32 and FP16; a while loop whose condition is
// computed on the device and read back each iteration, with its trip count changing between runs; a reverse
// iterator over an inner axis with stacked outputs (copies of strided slices). Without a GPU, that the CUDA plans
// build.
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

ITensor* intScalar(INetworkDefinition& network, int32_t value)
{
    static std::vector<int32_t> kept(64);
    static size_t used = 0;
    kept[used % kept.size()] = value;
    Weights const weights{DataType::kINT32, &kept[used++ % kept.size()], 1};
    return network.addConstant(Dims{0, {}}, weights)->getOutput(0);
}

void markOutput(INetworkDefinition& network, ILayer* layer, char const* name)
{
    ASSERT_NE(layer, nullptr);
    layer->getOutput(0)->setName(name);
    network.markOutput(*layer->getOutput(0));
}

//! x [6, 4, 32] over its first axis: h = tanh(x_t W + h R) * sigmoid(x_t), stacked and last.
NetworkMaker recurrentCell()
{
    return [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{3, {6, 4, 32}});
        ITensor* w = constantOf(network, Dims{2, {32, 32}}, weightsOf(32 * 32, 0.3F));
        ITensor* r = constantOf(network, Dims{2, {32, 32}}, weightsOf(32 * 32, 0.7F));
        ILoop* loop = network.addLoop();
        loop->addTripLimit(*intScalar(network, 6), TripLimit::kCOUNT);
        ITensor* xt = loop->addIterator(*x)->getOutput(0);
        IRecurrenceLayer* h = loop->addRecurrence(*constantOf(network, Dims{2, {4, 32}}, std::vector<float>(128)));
        ITensor* xw = network.addMatrixMultiply(*xt, MatrixOperation::kNONE, *w, MatrixOperation::kNONE)->getOutput(0);
        ITensor* hr = network.addMatrixMultiply(*h->getOutput(0), MatrixOperation::kNONE, *r, MatrixOperation::kNONE)
                          ->getOutput(0);
        ITensor* sum = network.addElementWise(*xw, *hr, ElementWiseOperation::kSUM)->getOutput(0);
        ITensor* squashed = network.addActivation(*sum, ActivationType::kTANH)->getOutput(0);
        ITensor* gate = network.addActivation(*xt, ActivationType::kSIGMOID)->getOutput(0);
        ITensor* next = network.addElementWise(*squashed, *gate, ElementWiseOperation::kPROD)->getOutput(0);
        h->setInput(1, *next);
        ILoopOutputLayer* stacked = loop->addLoopOutput(*next, LoopOutput::kCONCATENATE);
        stacked->setInput(1, *intScalar(network, 6));
        markOutput(network, stacked, "stacked");
        markOutput(network, loop->addLoopOutput(*next, LoopOutput::kLAST_VALUE), "last");
    };
}

//! p = x; while (i < n) { p = p * 1.5 + 1; i += 1 }, n a run-time input.
NetworkMaker whileLoop()
{
    return [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{1, {300}});
        ITensor* n = network.addInput("n", DataType::kINT32, Dims{0, {}});
        ILoop* loop = network.addLoop();
        IRecurrenceLayer* i = loop->addRecurrence(*intScalar(network, 0));
        IRecurrenceLayer* p = loop->addRecurrence(*x);
        ITensor* below = network.addElementWise(*i->getOutput(0), *n, ElementWiseOperation::kLESS)->getOutput(0);
        loop->addTripLimit(*below, TripLimit::kWHILE);
        i->setInput(1,
            *network.addElementWise(*i->getOutput(0), *intScalar(network, 1), ElementWiseOperation::kSUM)
                 ->getOutput(0));
        ITensor* scaled = network
                              .addElementWise(*p->getOutput(0), *constantOf(network, Dims{1, {1}}, {1.5F}),
                                  ElementWiseOperation::kPROD)
                              ->getOutput(0);
        ITensor* next
            = network.addElementWise(*scaled, *constantOf(network, Dims{1, {1}}, {1.0F}), ElementWiseOperation::kSUM)
                  ->getOutput(0);
        p->setInput(1, *next);
        markOutput(network, loop->addLoopOutput(*next, LoopOutput::kLAST_VALUE), "y");
    };
}

//! x [3, 5, 7]: its slices along axis 1, last first, negated and stacked along axis 2, and reversed along axis 0.
NetworkMaker reverseInnerAxis()
{
    return [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{3, {3, 5, 7}});
        ILoop* loop = network.addLoop();
        loop->addTripLimit(*intScalar(network, 5), TripLimit::kCOUNT);
        ITensor* slice = loop->addIterator(*x, 1, true)->getOutput(0); // [3, 7]
        ITensor* negated = network.addUnary(*slice, UnaryOperation::kNEG)->getOutput(0);
        ILoopOutputLayer* along2 = loop->addLoopOutput(*negated, LoopOutput::kCONCATENATE, 2);
        along2->setInput(1, *intScalar(network, 5));
        ILoopOutputLayer* reversed = loop->addLoopOutput(*negated, LoopOutput::kREVERSE, 0);
        reversed->setInput(1, *intScalar(network, 5));
        markOutput(network, along2, "along2");
        markOutput(network, reversed, "reversed");
    };
}

TEST(CudaLoop, RecurrentCellMatchesTheReferenceAtFp32AndFp16)
{
    SKIP_WITHOUT_GPU();
    HostTensor const x = fromFloats({6, 4, 32}, spread(6 * 4 * 32, -1.0F, 1.0F));
    for (bool fp16 : {false, true})
    {
        expectBackendsAgree(recurrentCell(), {{"x", x}}, fp16, fp16 ? "fp16" : "fp32");
    }
}

TEST(CudaLoop, WhileConditionReadBackEachIteration)
{
    SKIP_WITHOUT_GPU();
    HostTensor const x = fromFloats({300}, spread(300, -1.0F, 1.0F));
    for (int32_t n : {0, 1, 4})
    {
        expectBackendsAgree(
            whileLoop(), {{"x", x}, {"n", fromInts({}, {n}, DataType::kINT32)}}, false, "n = " + std::to_string(n));
    }
}

TEST(CudaLoop, ReverseIteratorOverAnInnerAxis)
{
    SKIP_WITHOUT_GPU();
    expectBackendsAgree(reverseInnerAxis(), {{"x", fromFloats({3, 5, 7}, spread(105, -3.0F, 3.0F))}}, false, "fp32");
}

TEST(CudaLoop, PlansBuildWithoutAGpu)
{
    for (NetworkMaker const& maker : {recurrentCell(), whileLoop(), reverseInnerAxis()})
    {
        RecordingLogger logger;
        EXPECT_NE(buildPlan(logger, kiln::Backend::kCUDA, maker, false, {}), nullptr) << logger.errors();
    }
}

} // namespace
