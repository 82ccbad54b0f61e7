#include "backend/cpu/kernels/epilogue.h"
#include "backend/cpu/kernels/tensor/matrix_multiply.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using kiln::test::filledWith;
using kiln::test::fromFloats;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;
using nvinfer1::MatrixOperation;

// A = [[1, 2, 3], [4, 5, 6]], B = [[7, 8], [9, 10], [11, 12]], A * B = [[58, 64], [139, 154]].
HostTensor const kA = fromFloats({2, 3}, {1, 2, 3, 4, 5, 6});
HostTensor const kB = fromFloats({3, 2}, {7, 8, 9, 10, 11, 12});

network::MatrixMultiplyParams operations(MatrixOperation op0, MatrixOperation op1)
{
    network::MatrixMultiplyParams params;
    params.op0 = op0;
    params.op1 = op1;
    return params;
}

//! A fused bias of the tensor's type and values.
network::WeightsBuffer biasOf(HostTensor const& bias)
{
    return network::WeightsBuffer(nvinfer1::Weights{bias.type, bias.constView().data, bias.count()});
}

std::vector<float> multiply(HostTensor const& a, HostTensor const& b, network::MatrixMultiplyParams const& params,
    plan::Epilogue const& epilogue = {})
{
    HostTensor out = zeros(matrixMultiplyOutputShape(a.shape, b.shape, params));
    matrixMultiply(a.constView(), b.constView(), out.view(), params);
    applyEpilogue(epilogue, {a.constView(), b.constView()}, out.view());
    return out.floats();
}

TEST(MatrixMultiply, PlainMatrices)
{
    EXPECT_EQ(matrixMultiplyOutputShape(kA.shape, kB.shape, {}), (Shape{2, 2}));
    EXPECT_EQ(multiply(kA, kB, {}), (std::vector<float>{58, 64, 139, 154}));
}

TEST(MatrixMultiply, TransposedOperands)
{
    HostTensor const aT = fromFloats({3, 2}, {1, 4, 2, 5, 3, 6});
    HostTensor const bT = fromFloats({2, 3}, {7, 9, 11, 8, 10, 12});
    std::vector<float> const expected{58, 64, 139, 154};
    EXPECT_EQ(multiply(aT, kB, operations(MatrixOperation::kTRANSPOSE, MatrixOperation::kNONE)), expected);
    EXPECT_EQ(multiply(kA, bT, operations(MatrixOperation::kNONE, MatrixOperation::kTRANSPOSE)), expected);
    EXPECT_EQ(multiply(aT, bT, operations(MatrixOperation::kTRANSPOSE, MatrixOperation::kTRANSPOSE)), expected);
}

TEST(MatrixMultiply, VectorOperands)
{
    HostTensor const v3 = fromFloats({3}, {1, 2, 3});
    HostTensor const ones = fromFloats({3}, {1, 1, 1});
    HostTensor const w3 = fromFloats({3}, {4, 5, 6});
    auto const vectorTimesMatrix = operations(MatrixOperation::kVECTOR, MatrixOperation::kNONE);
    EXPECT_EQ(matrixMultiplyOutputShape(v3.shape, kB.shape, vectorTimesMatrix), (Shape{2}));
    EXPECT_EQ(multiply(v3, kB, vectorTimesMatrix), (std::vector<float>{58, 64}));
    auto const matrixTimesVector = operations(MatrixOperation::kNONE, MatrixOperation::kVECTOR);
    EXPECT_EQ(multiply(kA, ones, matrixTimesVector), (std::vector<float>{6, 15}));
    auto const dot = operations(MatrixOperation::kVECTOR, MatrixOperation::kVECTOR);
    EXPECT_EQ(matrixMultiplyOutputShape(v3.shape, w3.shape, dot), Shape{});
    EXPECT_EQ(multiply(v3, w3, dot), (std::vector<float>{32}));
    // A batch of vectors against a batch of matrices.
    HostTensor const vectors = fromFloats({2, 2}, {1, 0, 0, 1});
    HostTensor const matrices = fromFloats({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    EXPECT_EQ(multiply(vectors, matrices, vectorTimesMatrix), (std::vector<float>{1, 2, 7, 8}));
}

TEST(MatrixMultiply, BroadcastsBatchDims)
{
    // a: two 1x2 matrices along dim 0; b: two 2x1 matrices along dim 1; output batch [2, 2].
    HostTensor const a = fromFloats({2, 1, 1, 2}, {1, 2, 3, 4});
    HostTensor const b = fromFloats({1, 2, 2, 1}, {1, 1, 1, -1});
    EXPECT_EQ(matrixMultiplyOutputShape(a.shape, b.shape, {}), (Shape{2, 2, 1, 1}));
    EXPECT_EQ(multiply(a, b, {}), (std::vector<float>{3, -1, 7, -1}));
}

TEST(MatrixMultiply, Fp16StorageRoundsThroughHalf)
{
    HostTensor const a = fromFloats({1, 2}, {0.1f, 0.2f}, DataType::kHALF);
    HostTensor const b = fromFloats({2, 1}, {0.3f, 0.4f}, DataType::kHALF);
    HostTensor out = zeros({1, 1}, DataType::kHALF);
    matrixMultiply(a.constView(), b.constView(), out.view(), {});
    float const ha = a.floats()[0];
    float const hb = a.floats()[1];
    float const hc = b.floats()[0];
    float const hd = b.floats()[1];
    double const exact = static_cast<double>(ha) * hc + static_cast<double>(hb) * hd;
    EXPECT_EQ(out.elements<uint16_t>()[0], floatToHalfBits(static_cast<float>(exact)));
    EXPECT_NEAR(out.floats()[0], 0.11f, 1e-3f);
}

TEST(MatrixMultiply, EmptyTensors)
{
    // K = 0: every output is an empty sum.
    HostTensor const a = fromFloats({2, 0}, {});
    HostTensor const b = fromFloats({0, 2}, {});
    HostTensor out = filledWith<float>({2, 2}, 99.0f);
    matrixMultiply(a.constView(), b.constView(), out.view(), {});
    EXPECT_EQ(out.floats(), (std::vector<float>{0, 0, 0, 0}));
    // M = 0: nothing is read or written.
    matrixMultiply(ConstTensorView(DataType::kFLOAT, {0, 3}, nullptr), kB.constView(), test::emptyView({0, 2}), {});
}

TEST(MatrixMultiply, BiasAndReluEpilogue)
{
    // A * B = [[58, 64], [139, 154]]; the bias is added to every row, then the ReLU clamps.
    HostTensor const bias = fromFloats({2}, {-100, -150});
    plan::Epilogue epilogue;
    epilogue.bias = biasOf(bias);
    EXPECT_EQ(multiply(kA, kB, {}, epilogue), (std::vector<float>{-42, -86, 39, 4}));
    epilogue.setRelu();
    EXPECT_EQ(multiply(kA, kB, {}, epilogue), (std::vector<float>{0, 0, 39, 4}));
    // A ReLU alone, and a bias stored in FP16.
    plan::Epilogue reluOnly;
    reluOnly.setRelu();
    HostTensor const negated = fromFloats({2, 3}, {-1, -2, -3, 4, 5, 6});
    EXPECT_EQ(multiply(negated, kB, {}, reluOnly), (std::vector<float>{0, 0, 139, 154}));
    HostTensor const halfBias = fromFloats({2}, {0.5f, -0.25f}, DataType::kHALF);
    plan::Epilogue halfEpilogue;
    halfEpilogue.bias = biasOf(halfBias);
    EXPECT_EQ(multiply(kA, kB, {}, halfEpilogue), (std::vector<float>{58.5f, 63.75f, 139.5f, 153.75f}));
    // Batches share the bias.
    HostTensor const twice = fromFloats({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
    EXPECT_EQ(multiply(twice, fromFloats({1, 3, 2}, kB.floats()), {}, epilogue),
        (std::vector<float>{0, 0, 39, 4, 0, 0, 39, 4}));
}

TEST(MatrixMultiply, SelfGatedActivationEpilogue)
{
    // A * B = [[58, 64], [139, 154]]; a bias of -60 and -65 leaves [[-2, -1], [79, 89]], whose SiLU is x / (1 + e^-x)
    // and whose hard-swish is x * clip(x / 6 + 1 / 2, 0, 1): -2 / 6 and -1 / 3, then x itself (the gate saturates).
    plan::Epilogue epilogue;
    epilogue.bias = biasOf(fromFloats({2}, {-60, -65}));
    epilogue.activates = true;
    epilogue.selfGated = true;
    epilogue.activation = nvinfer1::ActivationType::kSIGMOID;
    std::vector<float> const silu = multiply(kA, kB, {}, epilogue);
    std::vector<double> const expected{
        -2 / (1 + std::exp(2.0)), -1 / (1 + std::exp(1.0)), 79 / (1 + std::exp(-79.0)), 89 / (1 + std::exp(-89.0))};
    for (size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(silu[i], expected[i], 1e-6 * std::abs(expected[i])) << i;
    }
    epilogue.activation = nvinfer1::ActivationType::kHARD_SIGMOID;
    epilogue.alpha = 1.0F / 6.0F;
    epilogue.beta = 0.5F;
    std::vector<float> const hardSwish = multiply(kA, kB, {}, epilogue);
    EXPECT_FLOAT_EQ(hardSwish[0], -1.0F / 3.0F);
    EXPECT_FLOAT_EQ(hardSwish[1], -1.0F / 3.0F);
    EXPECT_EQ(hardSwish[2], 79.0F);
    EXPECT_EQ(hardSwish[3], 89.0F);
}

TEST(MatrixMultiply, ABiasRowPerBlockOfTheOutput)
{
    // Products of one input merged into one (backend/cuda/passes/product_merging.h): block r of the output adds row r.
    HostTensor const twice = fromFloats({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
    plan::Epilogue epilogue;
    epilogue.bias = biasOf(fromFloats({4}, {-100, -150, 1, 2}));
    EXPECT_EQ(multiply(twice, fromFloats({1, 3, 2}, kB.floats()), {}, epilogue),
        (std::vector<float>{-42, -86, 39, 4, 59, 66, 140, 156}));
    // Three rows do not split two blocks.
    HostTensor out = zeros({2, 2, 2});
    epilogue.bias = biasOf(fromFloats({6}, {1, 2, 3, 4, 5, 6}));
    EXPECT_THROW(applyEpilogue(epilogue, {}, out.view()), std::invalid_argument);
}

TEST(MatrixMultiply, RejectsABiasThatDoesNotFit)
{
    HostTensor out = zeros({2, 2});
    HostTensor const three = fromFloats({3}, {1, 2, 3});
    plan::Epilogue epilogue;
    epilogue.bias = biasOf(three);
    EXPECT_THROW(applyEpilogue(epilogue, {kA.constView(), kB.constView()}, out.view()), std::invalid_argument);
    // A vector result has no columns to add a bias to.
    HostTensor const one = fromFloats({1}, {1});
    HostTensor const v2 = fromFloats({2}, {1, 1});
    network::MatrixMultiplyParams vector = operations(MatrixOperation::kNONE, MatrixOperation::kVECTOR);
    epilogue.bias = biasOf(one);
    HostTensor column = zeros({3});
    matrixMultiply(kB.constView(), v2.constView(), column.view(), vector);
    EXPECT_THROW(applyEpilogue(epilogue, {kB.constView(), v2.constView()}, column.view()), std::invalid_argument);
}

TEST(MatrixMultiply, RejectsInconsistentShapes)
{
    EXPECT_THROW(matrixMultiplyOutputShape({2, 3}, {2, 2}, {}), std::invalid_argument);
    EXPECT_THROW(matrixMultiplyOutputShape({2, 2, 3}, {3, 2}, {}), std::invalid_argument);
    EXPECT_THROW(matrixMultiplyOutputShape({2, 2, 3}, {3, 3, 2}, {}), std::invalid_argument);
    HostTensor out = zeros({2, 3});
    EXPECT_THROW(matrixMultiply(kA.constView(), kB.constView(), out.view(), {}), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu
