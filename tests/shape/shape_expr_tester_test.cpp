// kiln::ShapeExprTester, used the way a plugin author would: only the public headers.
#include <kiln/ShapeExprTesting.h>

#include <gtest/gtest.h>

#include <limits>

namespace
{

using nvinfer1::DimensionOperation;
using nvinfer1::DimsExprs;
using nvinfer1::IDimensionExpr;
using nvinfer1::IExprBuilder;

//! The shape function of a small convolution plugin, written as an IPluginV2DynamicExt::getOutputDimensions would
//! be: NCHW in, NKHW out with out = floor_div(in + 2 * pad - kernel, stride) + 1, through IExprBuilder only.
class ConvShapeFunction
{
public:
    ConvShapeFunction(int32_t outChannels, int32_t kernel, int32_t pad, int32_t stride)
        : mOutChannels(outChannels)
        , mKernel(kernel)
        , mPad(pad)
        , mStride(stride)
    {
    }

    DimsExprs getOutputDimensions(
        int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) const
    {
        EXPECT_EQ(outputIndex, 0);
        EXPECT_EQ(nbInputs, 1);
        DimsExprs output(inputs[0]);
        output.d[1] = exprBuilder.constant(mOutChannels);
        for (int32_t axis = 2; axis < 4; ++axis)
        {
            IDimensionExpr const* padded = exprBuilder.operation(DimensionOperation::kSUM, *inputs[0].d[axis],
                *exprBuilder.operation(
                    DimensionOperation::kPROD, *exprBuilder.constant(2), *exprBuilder.constant(mPad)));
            IDimensionExpr const* span
                = exprBuilder.operation(DimensionOperation::kSUB, *padded, *exprBuilder.constant(mKernel));
            IDimensionExpr const* steps
                = exprBuilder.operation(DimensionOperation::kFLOOR_DIV, *span, *exprBuilder.constant(mStride));
            output.d[axis] = exprBuilder.operation(DimensionOperation::kSUM, *steps, *exprBuilder.constant(1));
        }
        return output;
    }

private:
    int32_t mOutChannels;
    int32_t mKernel;
    int32_t mPad;
    int32_t mStride;
};

TEST(ShapeExprTester, ConvPluginOutputSizeForSeveralHeights)
{
    kiln::ShapeExprTester tester;
    DimsExprs const input = tester.dims({"N", 3, "H", 224});
    ConvShapeFunction const conv(/*outChannels=*/64, /*kernel=*/7, /*pad=*/3, /*stride=*/2);
    DimsExprs const output = conv.getOutputDimensions(0, &input, 1, tester.builder());

    ASSERT_EQ(output.nbDims, 4);
    for (int32_t i = 0; i < 4; ++i)
    {
        ASSERT_NE(output.d[i], nullptr) << tester.lastError();
    }
    EXPECT_EQ(output.d[0], tester.symbol("N"));
    EXPECT_TRUE(output.d[1]->isConstant());
    EXPECT_EQ(output.d[1]->getConstantValue(), 64);
    // W is known, so its output is folded while building: floor_div(224 + 6 - 7, 2) + 1 = 112.
    EXPECT_TRUE(output.d[3]->isConstant());
    EXPECT_EQ(output.d[3]->getConstantValue(), 112);
    EXPECT_FALSE(output.d[2]->isConstant());
    EXPECT_EQ(tester.toString(*output.d[2]), "floor_div(H - 1, 2) + 1");

    // Hand-computed floor((H + 6 - 7) / 2) + 1.
    struct Case
    {
        int64_t h;
        int64_t expected;
    };
    for (Case const& tc : {Case{224, 112}, Case{225, 113}, Case{7, 4}, Case{1, 1}, Case{2, 1}, Case{0, 0}})
    {
        std::optional<nvinfer1::Dims> const dims = tester.evaluate(output, {{"N", 8}, {"H", tc.h}});
        ASSERT_TRUE(dims.has_value()) << tester.lastError();
        EXPECT_EQ(dims->nbDims, 4);
        EXPECT_EQ(dims->d[0], 8);
        EXPECT_EQ(dims->d[1], 64);
        EXPECT_EQ(dims->d[2], tc.expected) << "H = " << tc.h;
        EXPECT_EQ(dims->d[3], 112);
    }
}

TEST(ShapeExprTester, SameNameSameSymbol)
{
    kiln::ShapeExprTester tester;
    IDimensionExpr const* n = tester.symbol("N");
    ASSERT_NE(n, nullptr);
    EXPECT_FALSE(n->isConstant());
    EXPECT_EQ(tester.symbol("N"), n);
    EXPECT_NE(tester.symbol("M"), n);
    DimsExprs const dims = tester.dims({"N", int64_t{5}, std::string("M")});
    EXPECT_EQ(dims.nbDims, 3);
    EXPECT_EQ(dims.d[0], n);
    EXPECT_EQ(dims.d[2], tester.symbol("M"));
    EXPECT_EQ(tester.evaluate(*dims.d[1], {}), 5);
}

TEST(ShapeExprTester, ConcreteDims)
{
    kiln::ShapeExprTester tester;
    nvinfer1::Dims concrete{};
    concrete.nbDims = 3;
    concrete.d[0] = 2;
    concrete.d[1] = 3;
    concrete.d[2] = 4;
    DimsExprs const dims = tester.dims(concrete);
    ASSERT_EQ(dims.nbDims, 3);
    IExprBuilder& builder = tester.builder();
    IDimensionExpr const* volume = builder.operation(
        DimensionOperation::kPROD, *dims.d[0], *builder.operation(DimensionOperation::kPROD, *dims.d[1], *dims.d[2]));
    ASSERT_NE(volume, nullptr);
    EXPECT_TRUE(volume->isConstant());
    EXPECT_EQ(volume->getConstantValue(), 24);

    concrete.nbDims = 9;
    EXPECT_EQ(tester.dims(concrete).nbDims, -1);
    EXPECT_NE(tester.lastError().find("nbDims 9"), std::string::npos) << tester.lastError();
    EXPECT_EQ(tester.dims({1, 2, 3, 4, 5, 6, 7, 8, 9}).nbDims, -1);
}

TEST(ShapeExprTester, ErrorsThroughThePublicApi)
{
    kiln::ShapeExprTester tester;
    IExprBuilder& builder = tester.builder();
    EXPECT_EQ(builder.operation(DimensionOperation::kCEIL_DIV, *builder.constant(5), *builder.constant(0)), nullptr);
    EXPECT_NE(tester.lastError().find("division by zero"), std::string::npos) << tester.lastError();
    int64_t const big = std::numeric_limits<int64_t>::max();
    EXPECT_EQ(builder.operation(DimensionOperation::kSUM, *builder.constant(big), *builder.constant(1)), nullptr);
    EXPECT_NE(tester.lastError().find("overflow"), std::string::npos) << tester.lastError();
    EXPECT_EQ(
        builder.operation(static_cast<DimensionOperation>(42), *builder.constant(1), *builder.constant(1)), nullptr);
    EXPECT_NE(tester.lastError().find("invalid"), std::string::npos) << tester.lastError();
    EXPECT_EQ(builder.declareSizeTensor(-2, *builder.constant(1), *builder.constant(2)), nullptr);

    // Symbolic: the failure comes at evaluation, with the reason.
    IDimensionExpr const* ratio
        = builder.operation(DimensionOperation::kFLOOR_DIV, *tester.symbol("A"), *tester.symbol("B"));
    ASSERT_NE(ratio, nullptr);
    EXPECT_EQ(tester.evaluate(*ratio, {{"A", 9}, {"B", -2}}), -5);
    EXPECT_EQ(tester.evaluate(*ratio, {{"A", 9}, {"B", 0}}), std::nullopt);
    EXPECT_NE(tester.lastError().find("division by zero in floor_div(A, B)"), std::string::npos) << tester.lastError();
    EXPECT_EQ(tester.evaluate(*ratio, {{"A", 9}}), std::nullopt);
    EXPECT_NE(tester.lastError().find("'B'"), std::string::npos) << tester.lastError();

    IDimensionExpr const* product
        = builder.operation(DimensionOperation::kPROD, *tester.symbol("A"), *tester.symbol("B"));
    EXPECT_EQ(tester.evaluate(*product, {{"A", big}, {"B", 2}}), std::nullopt);
    EXPECT_NE(tester.lastError().find("overflow"), std::string::npos) << tester.lastError();

    DimsExprs withFailure = tester.dims({"A", "B"});
    withFailure.d[1] = ratio;
    EXPECT_EQ(tester.evaluate(withFailure, {{"A", 1}, {"B", 0}}), std::nullopt);
    EXPECT_NE(tester.lastError().find("dimension 1"), std::string::npos) << tester.lastError();
    withFailure.d[1] = nullptr;
    EXPECT_EQ(tester.evaluate(withFailure, {{"A", 1}, {"B", 1}}), std::nullopt);
}

TEST(ShapeExprTester, ExpressionsOfAnotherTesterAreRejected)
{
    kiln::ShapeExprTester mine;
    kiln::ShapeExprTester theirs;
    EXPECT_EQ(mine.evaluate(*theirs.symbol("N"), {{"N", 1}}), std::nullopt);
    EXPECT_NE(mine.lastError().find("another expression builder"), std::string::npos) << mine.lastError();
    EXPECT_EQ(mine.evaluate(*theirs.builder().constant(4), {}), 4); // constants mean the same everywhere
}

TEST(ShapeExprTester, SizeTensorsForDataDependentOutputs)
{
    // A NonZero-like getOutputShapes: output 0 is [2, count] with count <= N * M.
    kiln::ShapeExprTester tester;
    IExprBuilder& builder = tester.builder();
    IDimensionExpr const* upper
        = builder.operation(DimensionOperation::kPROD, *tester.symbol("N"), *tester.symbol("M"));
    IDimensionExpr const* opt = builder.operation(DimensionOperation::kFLOOR_DIV, *upper, *builder.constant(2));
    IDimensionExpr const* count = builder.declareSizeTensor(0, *opt, *upper);
    ASSERT_NE(count, nullptr);
    EXPECT_TRUE(count->isSizeTensor());
    EXPECT_EQ(tester.toString(*count), "out0.size");
    EXPECT_EQ(tester.evaluate(*count, {{"N", 3}, {"M", 4}, {"out0.size", 5}}), 5);
    EXPECT_EQ(tester.evaluate(*count, {{"N", 3}, {"M", 4}}), std::nullopt);
    EXPECT_NE(tester.lastError().find("size tensor 'out0.size'"), std::string::npos) << tester.lastError();
}

TEST(ShapeExprTester, Printing)
{
    kiln::ShapeExprTester tester;
    IExprBuilder& builder = tester.builder();
    DimsExprs const x = tester.dims({"N", 3, "x.d2"});
    IDimensionExpr const* padded = builder.operation(DimensionOperation::kSUM, *x.d[2], *builder.constant(2));
    EXPECT_EQ(tester.toString(*builder.operation(DimensionOperation::kCEIL_DIV, *padded, *builder.constant(2))),
        "ceil_div(x.d2 + 2, 2)");
    EXPECT_EQ(
        tester.toString(*builder.operation(DimensionOperation::kMAX, *x.d[0], *builder.constant(1))), "max(N, 1)");
    EXPECT_EQ(tester.toString(*x.d[1]), "3");
}

} // namespace
