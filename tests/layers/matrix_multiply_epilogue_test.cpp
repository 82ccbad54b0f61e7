// The epilogue the builder fuses into matrix multiplies of CUDA plans (a bias per output column,
// then a ReLU): how the params keep it in a plan, that a damaged plan fails to read with a clear
// error, and that the CPU backend computes it too, so that such params are right on both backends.
#include "backend/cpu/layer_runner.h"
#include "network/layers/matrix_multiply.h"
#include "plan/byte_io.h"

#include <gtest/gtest.h>

#include <vector>

namespace
{

using kiln::network::MatrixMultiplyParams;
using kiln::network::WeightsBuffer;
using nvinfer1::DataType;
using nvinfer1::MatrixOperation;

WeightsBuffer floatWeights(std::vector<float> const& values)
{
    return WeightsBuffer(nvinfer1::Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())});
}

MatrixMultiplyParams withEpilogue(std::vector<float> const& bias, bool relu)
{
    MatrixMultiplyParams params;
    params.op1 = MatrixOperation::kTRANSPOSE;
    params.epilogue.bias = floatWeights(bias);
    params.epilogue.relu = relu;
    return params;
}

std::vector<uint8_t> bytesOf(MatrixMultiplyParams const& params)
{
    kiln::plan::ByteWriter writer;
    params.write(writer);
    return writer.take();
}

TEST(MatrixMultiplyEpilogue, TheCpuBackendAddsTheBiasThenAppliesTheRelu)
{
    // a [2, 3] times b^T, b [2, 3]: a b^T = [[1*1 + 2*0 + 3*1, 1*2 + 2*1 + 3*0], [4 + 6, 8 + 5]] = [[4, 4], [10, 13]].
    std::vector<float> const a{1, 2, 3, 4, 5, 6};
    std::vector<float> const b{1, 0, 1, 2, 1, 0};
    std::vector<float> y(4, -99.0F);
    kiln::ConstTensorView const aView(DataType::kFLOAT, {2, 3}, a.data());
    kiln::ConstTensorView const bView(DataType::kFLOAT, {2, 3}, b.data());
    kiln::TensorView const yView{DataType::kFLOAT, {2, 2}, y.data()};
    std::string error;
    // + [-5, 0.5]: [[-1, 4.5], [5, 13.5]]; the ReLU clamps the -1.
    ASSERT_TRUE(kiln::cpu::runLayer(withEpilogue({-5.0F, 0.5F}, true), {aView, bView}, {yView}, error)) << error;
    EXPECT_EQ(y, (std::vector<float>{0.0F, 4.5F, 5.0F, 13.5F}));
    ASSERT_TRUE(kiln::cpu::runLayer(withEpilogue({-5.0F, 0.5F}, false), {aView, bView}, {yView}, error)) << error;
    EXPECT_EQ(y, (std::vector<float>{-1.0F, 4.5F, 5.0F, 13.5F}));
    ASSERT_TRUE(kiln::cpu::runLayer(withEpilogue({}, false), {aView, bView}, {yView}, error)) << error;
    EXPECT_EQ(y, (std::vector<float>{4.0F, 4.0F, 10.0F, 13.0F}));
    // A bias of the wrong length is an error, not a read past its end.
    EXPECT_FALSE(kiln::cpu::runLayer(withEpilogue({1.0F, 2.0F, 3.0F}, false), {aView, bView}, {yView}, error));
    EXPECT_NE(error.find("bias"), std::string::npos) << error;
}

TEST(MatrixMultiplyEpilogue, ThePlanKeepsIt)
{
    std::vector<uint8_t> const bytes = bytesOf(withEpilogue({0.25F, -1.5F, 3.0F}, true));
    MatrixMultiplyParams read;
    kiln::plan::ByteReader reader(bytes.data(), bytes.size());
    ASSERT_TRUE(read.read(reader)) << reader.error();
    EXPECT_EQ(reader.remaining(), 0U);
    EXPECT_EQ(read.op0, MatrixOperation::kNONE);
    EXPECT_EQ(read.op1, MatrixOperation::kTRANSPOSE);
    EXPECT_TRUE(read.epilogue.relu);
    EXPECT_EQ(read.epilogue.bias.toFloat(), (std::vector<float>{0.25F, -1.5F, 3.0F}));
    // Without an epilogue, too.
    std::vector<uint8_t> const plain = bytesOf(MatrixMultiplyParams{});
    kiln::plan::ByteReader plainReader(plain.data(), plain.size());
    ASSERT_TRUE(read.read(plainReader)) << plainReader.error();
    EXPECT_FALSE(read.epilogue.any());
    // Stored in the layer's precision.
    MatrixMultiplyParams half = withEpilogue({0.25F, -1.5F}, false);
    half.storeWeightsAs(DataType::kHALF);
    EXPECT_EQ(half.epilogue.bias.type(), DataType::kHALF);
    EXPECT_EQ(half.epilogue.bias.toFloat(), (std::vector<float>{0.25F, -1.5F}));
}

TEST(MatrixMultiplyEpilogue, DamagedParamsFailToReadWithAClearError)
{
    std::vector<uint8_t> const bytes = bytesOf(withEpilogue({0.25F, -1.5F, 3.0F}, true));
    for (size_t size = 0; size < bytes.size(); ++size)
    {
        MatrixMultiplyParams read;
        kiln::plan::ByteReader reader(bytes.data(), size);
        EXPECT_FALSE(read.read(reader)) << "size " << size;
        EXPECT_NE(reader.error().find("truncated"), std::string::npos) << "size " << size << ": " << reader.error();
    }
    std::vector<uint8_t> badRelu = bytes;
    badRelu.back() = 2;
    MatrixMultiplyParams read;
    kiln::plan::ByteReader reluReader(badRelu.data(), badRelu.size());
    EXPECT_FALSE(read.read(reluReader));
    EXPECT_NE(reluReader.error().find("fused ReLU"), std::string::npos) << reluReader.error();
    // A bias needs output columns, which a vector operand does not give.
    MatrixMultiplyParams vector = withEpilogue({1.0F}, false);
    vector.op1 = MatrixOperation::kVECTOR;
    std::vector<uint8_t> const vectorBytes = bytesOf(vector);
    kiln::plan::ByteReader vectorReader(vectorBytes.data(), vectorBytes.size());
    EXPECT_FALSE(read.read(vectorReader));
    EXPECT_NE(vectorReader.error().find("fused bias"), std::string::npos) << vectorReader.error();
}

} // namespace
