// The epilogue the builder fuses into matrix multiplies of CUDA plans (a bias per output column,
// then a ReLU): how the plan's layer record keeps it, that a damaged record fails to read with a
// clear error, and that the CPU backend computes it too, so that fused layers have a reference.
#include "backend/cpu/layer_runner.h"
#include "network/layers/matrix_multiply.h"
#include "serial/byte_io.h"
#include "plan/plan_model.h"

#include <gtest/gtest.h>

#include <memory>
#include <tuple>
#include <vector>

namespace
{

using kiln::network::MatrixMultiplyParams;
using kiln::network::WeightsBuffer;
using kiln::plan::Epilogue;
using nvinfer1::DataType;
using nvinfer1::MatrixOperation;

WeightsBuffer floatWeights(std::vector<float> const& values)
{
    return WeightsBuffer(nvinfer1::Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())});
}

Epilogue epilogueOf(std::vector<float> const& bias, bool relu)
{
    Epilogue epilogue;
    epilogue.bias = floatWeights(bias);
    if (relu)
    {
        epilogue.setRelu();
    }
    return epilogue;
}

//! a b^T with the given epilogue, as a plan records it.
kiln::plan::LayerRecord transposedProductWith(Epilogue epilogue)
{
    auto params = std::make_shared<MatrixMultiplyParams>();
    params->op1 = MatrixOperation::kTRANSPOSE;
    kiln::plan::LayerRecord record;
    record.type = nvinfer1::LayerType::kMATRIX_MULTIPLY;
    record.params = std::move(params);
    record.epilogue = std::move(epilogue);
    return record;
}

std::vector<uint8_t> bytesOf(Epilogue const& epilogue)
{
    kiln::serial::ByteWriter writer;
    Epilogue::fields(epilogue, kiln::serial::FieldWriter(writer));
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
    auto run = [&](Epilogue const& epilogue) {
        return kiln::cpu::runLayer(transposedProductWith(epilogue), {aView, bView}, {yView}, error);
    };
    // + [-5, 0.5]: [[-1, 4.5], [5, 13.5]]; the ReLU clamps the -1.
    ASSERT_TRUE(run(epilogueOf({-5.0F, 0.5F}, true))) << error;
    EXPECT_EQ(y, (std::vector<float>{0.0F, 4.5F, 5.0F, 13.5F}));
    ASSERT_TRUE(run(epilogueOf({-5.0F, 0.5F}, false))) << error;
    EXPECT_EQ(y, (std::vector<float>{-1.0F, 4.5F, 5.0F, 13.5F}));
    ASSERT_TRUE(run(epilogueOf({}, false))) << error;
    EXPECT_EQ(y, (std::vector<float>{4.0F, 4.0F, 10.0F, 13.0F}));
    // A bias of the wrong length is an error, not a read past its end.
    EXPECT_FALSE(run(epilogueOf({1.0F, 2.0F, 3.0F}, false)));
    EXPECT_NE(error.find("bias"), std::string::npos) << error;
}

TEST(MatrixMultiplyEpilogue, TheCpuBackendAddsAResidualItWritesOver)
{
    // The builder may give a layer that adds its residual the residual's own bytes (builder/residual_buffers.h): the
    // reference kernels then read the residual before the product overwrites it. a b^T as above, plus [[1, -2], [3,
    // -4]] held in y itself, then the ReLU: [[5, 2], [13, 9]].
    std::vector<float> const a{1, 2, 3, 4, 5, 6};
    std::vector<float> const b{1, 0, 1, 2, 1, 0};
    std::vector<float> y{1.0F, -2.0F, 3.0F, -4.0F};
    kiln::ConstTensorView const aView(DataType::kFLOAT, {2, 3}, a.data());
    kiln::ConstTensorView const bView(DataType::kFLOAT, {2, 3}, b.data());
    kiln::TensorView const yView{DataType::kFLOAT, {2, 2}, y.data()};
    Epilogue epilogue = epilogueOf({}, true);
    epilogue.addsResidual = true;
    std::string error;
    ASSERT_TRUE(kiln::cpu::runLayer(transposedProductWith(epilogue), {aView, bView, yView}, {yView}, error)) << error;
    EXPECT_EQ(y, (std::vector<float>{5.0F, 2.0F, 13.0F, 9.0F}));
}

TEST(MatrixMultiplyEpilogue, ThePlanKeepsIt)
{
    std::vector<uint8_t> const bytes = bytesOf(epilogueOf({0.25F, -1.5F, 3.0F}, true));
    Epilogue read;
    kiln::serial::ByteReader reader(bytes.data(), bytes.size());
    Epilogue::fields(read, kiln::serial::FieldReader(reader));
    ASSERT_TRUE(reader.ok()) << reader.error();
    EXPECT_EQ(reader.remaining(), 0U);
    EXPECT_TRUE(read.relu());
    EXPECT_EQ(read.bias.toFloat(), (std::vector<float>{0.25F, -1.5F, 3.0F}));
    // Without an epilogue, too.
    std::vector<uint8_t> const plain = bytesOf(Epilogue{});
    kiln::serial::ByteReader plainReader(plain.data(), plain.size());
    Epilogue::fields(read, kiln::serial::FieldReader(plainReader));
    ASSERT_TRUE(plainReader.ok()) << plainReader.error();
    EXPECT_FALSE(read.any());
    // Stored in the layer's precision.
    WeightsBuffer const half = epilogueOf({0.25F, -1.5F}, false).bias.storedAs(DataType::kHALF);
    EXPECT_EQ(half.type(), DataType::kHALF);
    EXPECT_EQ(half.toFloat(), (std::vector<float>{0.25F, -1.5F}));
}

TEST(MatrixMultiplyEpilogue, DamagedRecordsFailToReadWithAClearError)
{
    std::vector<uint8_t> const bytes = bytesOf(epilogueOf({0.25F, -1.5F, 3.0F}, true));
    for (size_t size = 0; size < bytes.size(); ++size)
    {
        Epilogue read;
        kiln::serial::ByteReader reader(bytes.data(), size);
        Epilogue::fields(read, kiln::serial::FieldReader(reader));
        EXPECT_FALSE(reader.ok()) << "size " << size;
        EXPECT_NE(reader.error().find("truncated"), std::string::npos) << "size " << size << ": " << reader.error();
    }
    // The record ends with the activation's presence (1 byte), type (4), alpha (4), beta (4) and self-gating (1).
    size_t const presence = bytes.size() - 14;
    size_t const type = bytes.size() - 13;
    size_t const selfGated = bytes.size() - 1;
    for (auto [at, value, field] : {std::tuple{presence, uint8_t{2}, "fused activation present"},
             std::tuple{type, uint8_t{200}, "fused activation"},
             std::tuple{selfGated, uint8_t{2}, "fused activation self-gated"}})
    {
        std::vector<uint8_t> damaged = bytes;
        damaged[at] = value;
        Epilogue read;
        kiln::serial::ByteReader reader(damaged.data(), damaged.size());
        Epilogue::fields(read, kiln::serial::FieldReader(reader));
        EXPECT_FALSE(reader.ok()) << field;
        EXPECT_NE(reader.error().find(field), std::string::npos) << reader.error();
    }
}

} // namespace
