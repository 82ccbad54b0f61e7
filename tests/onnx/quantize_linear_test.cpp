// The QuantizeLinear and DequantizeLinear importers: a Q/DQ pair on a graph input becomes the two layers (per tensor
// and per axis, with the axis normalized); INT8 and FLOAT8E4M3FN initializers (raw data and int32_data) behind a DQ
// are computed while importing; and each refusal names the node, its op and why (UINT8, INT4, a non-zero or
// non-constant zero point, block_size, FP8 with saturate=0, a scale of rank 2, of another length than its axis, or
// not positive and finite). Values are worked out by hand from ONNX's definition; ONNX Runtime's agreement on whole
// models is model_zoo_test's QuantizedModels.
#include "expect_close.h"
#include "onnx_harness.h"

#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace
{

using kiln::test::expectNodeError;
using kiln::test::ModelBuilder;
using kiln::test::OnnxHarness;

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;
constexpr int32_t kUint8 = ::onnx::TensorProto::UINT8;
constexpr int32_t kInt8 = ::onnx::TensorProto::INT8;
constexpr int32_t kFloat8E4M3FN = 17;
constexpr int32_t kInt4 = 22;

//! An initializer of one-byte elements (INT8, UINT8, FLOAT8E4M3FN) in raw_data, or in int32_data as ONNX also allows.
void byteInitializer(ModelBuilder& m, std::string const& name, int32_t type, std::vector<int64_t> const& dims,
    std::vector<uint8_t> const& bytes, bool asInt32Data = false)
{
    auto* tensor = m.model.mutable_graph()->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(type);
    for (int64_t d : dims)
    {
        tensor->add_dims(d);
    }
    if (asInt32Data)
    {
        for (uint8_t b : bytes)
        {
            tensor->add_int32_data(type == kInt8 ? static_cast<int8_t>(b) : b);
        }
        return;
    }
    tensor->set_raw_data(std::string(bytes.begin(), bytes.end()));
}

//! x [2, 3] -> QuantizeLinear (axis, INT8 zero points) -> DequantizeLinear -> y.
ModelBuilder quantizeDequantize(std::vector<float> const& scales, int64_t axis)
{
    ModelBuilder m(13);
    m.input("x", kFloat, {2, 3});
    std::vector<int64_t> const dims = scales.size() == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{3};
    m.floats("scale", dims, scales);
    byteInitializer(m, "zero", kInt8, dims, std::vector<uint8_t>(scales.size(), 0));
    kiln::test::setInt(m.node("QuantizeLinear", {"x", "scale", "zero"}, {"q"}, "quantize"), "axis", axis);
    kiln::test::setInt(m.node("DequantizeLinear", {"q", "scale", "zero"}, {"y"}, "dequantize"), "axis", axis);
    m.output("y", kFloat);
    return m;
}

std::vector<float> runQuantizeDequantize(ModelBuilder const& m, std::vector<float> const& x)
{
    OnnxHarness h;
    EXPECT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    if (!h.build())
    {
        return {};
    }
    std::vector<float> y(x.size());
    h.run({{"x", x.data()}}, {{"y", y.data()}});
    return y;
}

TEST(OnnxQuantizeLinear, PerTensorAndPerAxisPairsBecomeLayers)
{
    std::vector<float> const x{3, 5, 300, -3, -5, -0.4F};
    // Per tensor, scale 2: 1.5 -> 2, 2.5 -> 2, 150 -> 127, -1.5 -> -2, -2.5 -> -2, -0.2 -> 0.
    kiln::test::expectClose(runQuantizeDequantize(quantizeDequantize({2}, 1), x), {4, 4, 254, -4, -4, 0}, 0.0F);
    // Per axis -1 (the columns), scales 1, 2, 4: 3, 2.5 -> 2, 75; -3, -2.5 -> -2, -0.1 -> 0.
    kiln::test::expectClose(runQuantizeDequantize(quantizeDequantize({1, 2, 4}, -1), x), {3, 4, 300, -3, -4, 0}, 0.0F);
}

//! FLOAT8E4M3FN weights behind DequantizeLinear (per axis 0), multiplied into x: the weights come out of the import as
//! a constant, decoded exactly.
TEST(OnnxQuantizeLinear, Fp8WeightsAreDequantizedWhileImporting)
{
    for (bool asInt32Data : {false, true})
    {
        SCOPED_TRACE(asInt32Data);
        ModelBuilder m(19);
        m.input("x", kFloat, {2, 2});
        // 1, -1.25, 448 and 2^-9 (a subnormal); scales 2 (row 0) and 0.5 (row 1).
        byteInitializer(m, "w", kFloat8E4M3FN, {2, 2}, {0x38, 0xBA, 0x7E, 0x01}, asInt32Data);
        m.floats("scale", {2}, {2.0F, 0.5F});
        kiln::test::setInt(m.node("DequantizeLinear", {"w", "scale"}, {"weights"}, "dequantize"), "axis", 0);
        m.node("Mul", {"x", "weights"}, {"y"});
        m.output("y", kFloat);
        OnnxHarness h;
        ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
        for (int32_t i = 0; i < h.network->getNbLayers(); ++i)
        {
            EXPECT_NE(h.network->getLayer(i)->getType(), nvinfer1::LayerType::kDEQUANTIZE);
        }
        ASSERT_TRUE(h.build());
        std::vector<float> const x{1, 1, 1, 1024};
        std::vector<float> y(4);
        ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
        kiln::test::expectClose(y, {2, -2.5F, 224, 1}, 0.0F);
    }
}

//! Weights behind their Q/DQ pair are computed however much else the parser computed: a model's constants computed
//! from a few values (here 16 ConstantOfShape of 16 MiB, the parser's whole budget for them) leave the weights' Q and
//! DQ, whose outputs hold one element per element of their input, computed all the same. Charged to that budget, the
//! weights of ViT-B/16's later layers had become run-time dequantizations, which its FP8 products did not fuse.
TEST(OnnxQuantizeLinear, WeightsAreComputedWhileImportingAfterTheComputedConstantsBudget)
{
    ModelBuilder m(19);
    m.input("x", kFloat, {2, 2});
    m.int64s("shape", {2}, {1024, 4096});
    for (int i = 0; i < 16; ++i)
    {
        std::string const name = "filled" + std::to_string(i);
        auto& fill = m.node("ConstantOfShape", {"shape"}, {name}, "fill " + std::to_string(i));
        ::onnx::TensorProto* value
            = kiln::test::addAttribute(fill, "value", ::onnx::AttributeProto::TENSOR).mutable_t();
        value->set_data_type(kFloat);
        value->add_dims(1);
        value->add_float_data(1.0F);
    }
    m.floats("w", {2, 2}, {1.0F, -1.25F, 3.0F, 0.5F});
    m.floats("scale", {}, {0.25F});
    byteInitializer(m, "zero", kFloat8E4M3FN, {}, {0});
    m.node("QuantizeLinear", {"w", "scale", "zero"}, {"codes"}, "quantize weights");
    m.node("DequantizeLinear", {"codes", "scale", "zero"}, {"weights"}, "dequantize weights");
    m.node("MatMul", {"x", "weights"}, {"y"});
    m.output("y", kFloat);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    for (int32_t i = 0; i < h.network->getNbLayers(); ++i)
    {
        nvinfer1::LayerType const type = h.network->getLayer(i)->getType();
        EXPECT_TRUE(type != nvinfer1::LayerType::kQUANTIZE && type != nvinfer1::LayerType::kDEQUANTIZE)
            << h.network->getLayer(i)->getName();
    }
}

//! x -> QuantizeLinear "bad" (scale 1, then the zero point `zero` if not empty) -> q.
ModelBuilder quantizeWith(int64_t opset, std::string const& zero)
{
    ModelBuilder m(opset);
    m.input("x", kFloat, {4});
    m.floats("scale", {}, {1.0F});
    std::vector<std::string> inputs{"x", "scale"};
    if (!zero.empty())
    {
        inputs.push_back(zero);
    }
    m.node("QuantizeLinear", inputs, {"q"}, "bad");
    m.output("q", kInt8);
    return m;
}

TEST(OnnxQuantizeLinear, RefusesWhatTensorRTDoesNotTake)
{
    using nvonnxparser::ErrorCode;
    expectNodeError(quantizeWith(13, ""), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "QuantizeLinear",
        "without a zero point or output_dtype, QuantizeLinear quantizes into UINT8");
    ModelBuilder uint8 = quantizeWith(13, "zero");
    byteInitializer(uint8, "zero", kUint8, {}, {128});
    expectNodeError(uint8, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "QuantizeLinear", "UINT8 quantization is asymmetric");
    ModelBuilder nonZero = quantizeWith(13, "zero");
    byteInitializer(nonZero, "zero", kInt8, {}, {3});
    expectNodeError(nonZero, ErrorCode::kUNSUPPORTED_NODE_INPUT, "QuantizeLinear",
        "the zero point (input 2) holds a non-zero value at index 0");
    ModelBuilder runTimeZero = quantizeWith(13, "zero");
    runTimeZero.input("zero", kInt8, {});
    expectNodeError(runTimeZero, ErrorCode::kUNSUPPORTED_NODE_INPUT, "QuantizeLinear",
        "must be an initializer or a Constant of zeros");
    ModelBuilder int4 = quantizeWith(21, "");
    kiln::test::setInt(*int4.model.mutable_graph()->mutable_node(0), "output_dtype", kInt4);
    expectNodeError(int4, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "QuantizeLinear", "INT4 and UINT4 quantization");
    ModelBuilder blocked = quantizeWith(21, "zero");
    byteInitializer(blocked, "zero", kInt8, {}, {0});
    kiln::test::setInt(*blocked.model.mutable_graph()->mutable_node(0), "block_size", 2);
    expectNodeError(blocked, ErrorCode::kUNSUPPORTED_NODE_ATTR, "QuantizeLinear", "blocked quantization");
    ModelBuilder unsaturated = quantizeWith(19, "zero");
    byteInitializer(unsaturated, "zero", kFloat8E4M3FN, {}, {0});
    kiln::test::setInt(*unsaturated.model.mutable_graph()->mutable_node(0), "saturate", 0);
    expectNodeError(unsaturated, ErrorCode::kUNSUPPORTED_NODE_ATTR, "QuantizeLinear", "saturate=0");
}

//! INT8 weights [3, 2] behind DequantizeLinear "bad" (axis 0) with `scales`, multiplied into x.
ModelBuilder dequantizedWeights(std::vector<float> const& scales)
{
    ModelBuilder m(13);
    m.input("x", kFloat, {3, 2});
    byteInitializer(m, "w", kInt8, {3, 2}, {1, 2, 3, 4, 5, 6});
    m.floats("scale", {static_cast<int64_t>(scales.size())}, scales);
    kiln::test::setInt(m.node("DequantizeLinear", {"w", "scale"}, {"weights"}, "bad"), "axis", 0);
    m.node("Mul", {"x", "weights"}, {"y"});
    m.output("y", kFloat);
    return m;
}

//! A per-axis scale of another length than its axis, whose constant weights the importer would compute reading past
//! the scales (the ONNX fuzzer's qdq_filter_scales_short seed), and scales TensorRT does not take: zero, negative,
//! NaN, infinite. Each is refused naming the node; a tiny positive scale is taken.
TEST(OnnxQuantizeLinear, RefusesScalesOfAnotherLengthOrNotPositive)
{
    using nvonnxparser::ErrorCode;
    expectNodeError(dequantizedWeights({0.5F, 0.25F}), ErrorCode::kINVALID_NODE, "DequantizeLinear",
        "the scale (input 1) holds 2 coefficients, but axis 0 of the input has extent 3");
    expectNodeError(dequantizedWeights({0.5F, 0.25F, 1.0F, 2.0F}), ErrorCode::kINVALID_NODE, "DequantizeLinear",
        "the scale (input 1) holds 4 coefficients, but axis 0 of the input has extent 3");
    float const nan = std::numeric_limits<float>::quiet_NaN();
    float const inf = std::numeric_limits<float>::infinity();
    for (auto const& [scales, text] : std::vector<std::pair<std::vector<float>, char const*>>{
             {{0.5F, 0.0F, 1.0F}, "holds 0 at index 1"}, {{0.5F, 1.0F, -2.0F}, "holds -2 at index 2"},
             {{nan, 1.0F, 1.0F}, "holds nan at index 0"}, {{0.5F, inf, 1.0F}, "holds inf at index 1"}})
    {
        expectNodeError(dequantizedWeights(scales), ErrorCode::kINVALID_NODE, "DequantizeLinear", text);
    }
    ModelBuilder zeroScale(13);
    zeroScale.input("x", kFloat, {4});
    zeroScale.floats("scale", {}, {0.0F});
    byteInitializer(zeroScale, "zero", kInt8, {}, {0});
    zeroScale.node("QuantizeLinear", {"x", "scale", "zero"}, {"q"}, "bad");
    zeroScale.output("q", kInt8);
    expectNodeError(zeroScale, ErrorCode::kINVALID_NODE, "QuantizeLinear",
        "scales must be positive and finite, as TensorRT takes them");

    OnnxHarness tiny;
    EXPECT_TRUE(tiny.parse(dequantizedWeights({1e-45F, 1.0F, 1.0F}).bytes())) << tiny.parserErrors();
}

TEST(OnnxQuantizeLinear, DequantizeRefusesUint8AndBlockScales)
{
    using nvonnxparser::ErrorCode;
    ModelBuilder uint8(13);
    uint8.input("q", kUint8, {4});
    uint8.floats("scale", {}, {1.0F});
    uint8.node("DequantizeLinear", {"q", "scale"}, {"y"}, "bad");
    uint8.output("y", kFloat);
    expectNodeError(uint8, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "DequantizeLinear", "UINT8 quantization");
    ModelBuilder blocks(13);
    blocks.input("q", kInt8, {2, 2});
    blocks.floats("scale", {2, 1}, {1.0F, 2.0F});
    blocks.node("DequantizeLinear", {"q", "scale"}, {"y"}, "bad");
    blocks.output("y", kFloat);
    expectNodeError(blocks, ErrorCode::kUNSUPPORTED_NODE_INPUT, "DequantizeLinear",
        "the scale (input 1) must be a scalar or 1-D, not of rank 2");
}

} // namespace
