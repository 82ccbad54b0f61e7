// The parser's small constants share one layer per contents; the model's named floating-point values keep their own
// (a refit finds them by name).
#include "onnx_harness.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln::test
{
namespace
{

constexpr int32_t kInt64 = ::onnx::TensorProto::INT64;
constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

int32_t constantLayers(nvinfer1::INetworkDefinition& network)
{
    int32_t count = 0;
    for (int32_t i = 0; i < network.getNbLayers(); ++i)
    {
        count += network.getLayer(i)->getType() == nvinfer1::LayerType::kCONSTANT ? 1 : 0;
    }
    return count;
}

TEST(OnnxSharedConstants, EqualSmallConstantsMakeOneLayer)
{
    // y = n + [1, 2, 3] forty times: twenty initializers and twenty Constant nodes of the same values.
    constexpr int32_t kAdds = 40;
    ModelBuilder m;
    m.input("n", kInt64, {3});
    std::string previous = "n";
    for (int32_t i = 0; i < kAdds; ++i)
    {
        std::string const constant = "c" + std::to_string(i);
        if (i % 2 == 0)
        {
            m.int64s(constant, {3}, {1, 2, 3});
        }
        else
        {
            setInts(m.node("Constant", {}, {constant}), "value_ints", {1, 2, 3});
        }
        std::string const sum = i + 1 == kAdds ? "y" : "s" + std::to_string(i);
        m.node("Add", {previous, constant}, {sum});
        previous = sum;
    }
    m.output("y", kInt64);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    EXPECT_EQ(constantLayers(*h.network), 1);
    ASSERT_TRUE(h.build());
    std::vector<int64_t> const n{10, 20, 30};
    std::vector<int64_t> y(3);
    ASSERT_TRUE(h.run({{"n", n.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<int64_t>{10 + kAdds, 20 + 2 * kAdds, 30 + 3 * kAdds}));
}

TEST(OnnxSharedConstants, NamedFloatInitializersKeepTheirOwnLayers)
{
    // Two initializers of equal values: each is named for refit, so each keeps a layer; the equal unnamed floats of
    // Constant nodes' value_floats share one.
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.floats("w1", {2}, {0.5F, 0.5F});
    m.floats("w2", {2}, {0.5F, 0.5F});
    setFloat(m.node("Constant", {}, {"k1"}), "value_float", 2.0F);
    setFloat(m.node("Constant", {}, {"k2"}), "value_float", 2.0F);
    m.node("Mul", {"x", "w1"}, {"a"});
    m.node("Mul", {"a", "w2"}, {"b"});
    m.node("Add", {"b", "k1"}, {"c"});
    m.node("Add", {"c", "k2"}, {"y"});
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    EXPECT_EQ(constantLayers(*h.network), 3);
    ASSERT_TRUE(h.build());
    std::vector<float> const x{4.0F, 8.0F};
    std::vector<float> y(2);
    ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{5.0F, 6.0F}));
}

} // namespace
} // namespace kiln::test
