// The CUDA backend's Unary layer against the CPU reference: every UnaryOperation on floats (FP32 and FP16, NaN and
// infinities included), ABS/NEG/SIGN on INT32 with its wrap-around, and NOT on BOOL.
#include "backend_comparison.h"

#include <limits>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

NetworkMaker unaryOf(UnaryOperation op, DataType type, int64_t count)
{
    return [op, type, count](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, Dims{2, {1, count}});
        IUnaryLayer* layer = network.addUnary(*x, op);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

bool producesBool(UnaryOperation op)
{
    return op == UnaryOperation::kISINF || op == UnaryOperation::kISNAN;
}

TEST(CudaBackendUnary, EveryFloatOperationAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Values that reach every domain edge (log of negatives, acosh below 1, atanh beyond 1) and the rounding ties.
    std::vector<float> values = spread(61, -3.0F, 3.0F);
    for (float v : {0.5F, 1.5F, 2.5F, -0.5F, -2.5F, 0.0F, -0.0F, NAN})
    {
        values.push_back(v);
    }
    std::vector<float> withInfinities = values;
    withInfinities.push_back(std::numeric_limits<float>::infinity());
    withInfinities.push_back(-std::numeric_limits<float>::infinity());
    for (int32_t o = 0; o < EnumMax<UnaryOperation>(); ++o)
    {
        auto const op = static_cast<UnaryOperation>(o);
        if (op == UnaryOperation::kNOT)
        {
            continue;
        }
        // Infinite outputs are compared only where the output is BOOL: the comparison cannot take them elsewhere.
        std::vector<float> inputs = producesBool(op) ? withInfinities : values;
        if (op == UnaryOperation::kLOG || op == UnaryOperation::kRECIP || op == UnaryOperation::kATANH)
        {
            std::erase_if(inputs, [](float v) { return v == 0.0F || v == 1.0F || v == -1.0F; });
        }
        auto const count = static_cast<int64_t>(inputs.size());
        for (bool fp16 : {false, true})
        {
            expectBackendsAgree(unaryOf(op, DataType::kFLOAT, count), {{"x", fromFloats({1, count}, inputs)}}, fp16,
                "unary " + std::to_string(o) + (fp16 ? " fp16" : ""));
        }
    }
}

TEST(CudaBackendUnary, IntegerOperationsWrapAsOnTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::vector<int32_t> const values{
        std::numeric_limits<int32_t>::min(), -7, -1, 0, 1, 9, std::numeric_limits<int32_t>::max()};
    for (UnaryOperation op : {UnaryOperation::kABS, UnaryOperation::kNEG, UnaryOperation::kSIGN})
    {
        expectBackendsAgree(unaryOf(op, DataType::kINT32, 7), {{"x", fromElements({1, 7}, values, DataType::kINT32)}},
            false, "unary int32 " + std::to_string(static_cast<int32_t>(op)));
    }
}

TEST(CudaBackendUnary, NotOnBool)
{
    SKIP_WITHOUT_GPU();
    std::vector<uint8_t> const values{0, 1, 1, 0, 1};
    expectBackendsAgree(unaryOf(UnaryOperation::kNOT, DataType::kBOOL, 5),
        {{"x", fromElements({1, 5}, values, DataType::kBOOL)}}, false, "unary not");
}

} // namespace
