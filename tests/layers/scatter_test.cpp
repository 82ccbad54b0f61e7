// IScatterLayer end to end on the CPU backend: ONNX's ScatterElements and ScatterND examples (worked out by hand),
// negative indices, duplicate indices (the last update wins), every reduction of Kiln's extension on floats and on
// wrapping INT8 (expected values from ONNX's reference implementation), every byte-addressable type, FP16 rounding,
// NaN through max and min, empty tensors, the parameters kept by the plan, the setters' defaults and refusals, each
// shape-inference and build error, out-of-range indices at run time, and shape values kept known.
#include "host_tensor.h"
#include "network/layers/scatter.h"
#include "round_trip.h"

#include <kiln/ScatterReduction.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace
{

using namespace nvinfer1;
using kiln::ScatterReduction;
using kiln::test::errorMentions;
using kiln::test::HostTensor;
using kiln::test::LayerHarness;

struct ScatterSetup
{
    ScatterMode mode{ScatterMode::kELEMENT};
    int32_t axis{0};
    ScatterReduction reduction{ScatterReduction::kNONE};
};

Dims dimsOf(kiln::Shape const& shape)
{
    Dims d{static_cast<int32_t>(shape.size()), {}};
    std::copy(shape.begin(), shape.end(), d.d);
    return d;
}

//! The layer on inputs "data", "indices" and "updates" of `h`'s network, with `setup`; null (and a failure) if refused.
IScatterLayer* addScatterOf(LayerHarness& h, HostTensor const& data, HostTensor const& indices,
    HostTensor const& updates, ScatterSetup const& setup)
{
    ITensor* d = h.network->addInput("data", data.type, dimsOf(data.shape));
    ITensor* i = h.network->addInput("indices", indices.type, dimsOf(indices.shape));
    ITensor* u = h.network->addInput("updates", updates.type, dimsOf(updates.shape));
    IScatterLayer* layer = h.network->addScatter(*d, *i, *u, setup.mode);
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    if (layer != nullptr)
    {
        layer->setAxis(setup.axis);
        EXPECT_TRUE(kiln::setScatterReduction(*layer, setup.reduction));
    }
    return layer;
}

//! Scatters through a built and reloaded plan and returns the output; an empty tensor (with a failure) on error.
HostTensor scatter(HostTensor const& data, HostTensor const& indices, HostTensor const& updates, ScatterSetup setup)
{
    LayerHarness h;
    IScatterLayer* layer = addScatterOf(h, data, indices, updates, setup);
    if (layer == nullptr)
    {
        return {};
    }
    h.output(layer, "y");
    if (!h.build())
    {
        return {};
    }
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.engine->getTensorDataType("y"), data.type);
    EXPECT_EQ(h.shapeOf("y"), data.shape);
    HostTensor y = kiln::test::zeros(data.shape, data.type);
    // Empty tensors still need an address: point them at a byte that nothing may touch.
    uint8_t unused = 0;
    auto address = [&unused](HostTensor const& t) -> void* {
        return t.bytes.empty() ? &unused : const_cast<uint8_t*>(t.bytes.data());
    };
    h.run({{"data", address(data)}, {"indices", address(indices)}, {"updates", address(updates)}}, {{"y", address(y)}});
    return y;
}

HostTensor indicesOf(kiln::Shape const& shape, std::vector<int64_t> const& values, DataType type = DataType::kINT64)
{
    return kiln::test::fromInts(shape, values, type);
}

ScatterSetup elementAlong(int32_t axis, ScatterReduction reduction = ScatterReduction::kNONE)
{
    return ScatterSetup{ScatterMode::kELEMENT, axis, reduction};
}

ScatterSetup nd(ScatterReduction reduction = ScatterReduction::kNONE)
{
    return ScatterSetup{ScatterMode::kND, 0, reduction};
}

TEST(ScatterLayer, ElementOnnxExamples)
{
    // ScatterElements' first example: axis 0, row indices per column.
    HostTensor const y = scatter(kiln::test::zeros({3, 3}), indicesOf({2, 3}, {1, 0, 2, 0, 2, 1}, DataType::kINT32),
        kiln::test::fromFloats({2, 3}, {1.0F, 1.1F, 1.2F, 2.0F, 2.1F, 2.2F}), elementAlong(0));
    EXPECT_EQ(y.floats(), (std::vector<float>{2.0F, 1.1F, 0, 1.0F, 0, 2.2F, 0, 2.1F, 1.2F}));
    // Its second: axis 1 of [[1, 2, 3, 4, 5]], and the same with a negative index (-3 is column 2).
    HostTensor const row = kiln::test::fromFloats({1, 5}, {1, 2, 3, 4, 5});
    HostTensor const updates = kiln::test::fromFloats({1, 2}, {1.1F, 2.1F});
    EXPECT_EQ(scatter(row, indicesOf({1, 2}, {1, 3}), updates, elementAlong(1)).floats(),
        (std::vector<float>{1, 1.1F, 3, 2.1F, 5}));
    EXPECT_EQ(scatter(row, indicesOf({1, 2}, {1, -3}), updates, elementAlong(-1)).floats(),
        (std::vector<float>{1, 1.1F, 2.1F, 4, 5}));
}

TEST(ScatterLayer, ElementIndicesSmallerThanTheData)
{
    // Indices [1, 2] into data [2, 3] along axis 1: only row 0 and its first two columns' updates exist.
    HostTensor const y = scatter(
        kiln::test::zeros({2, 3}), indicesOf({1, 2}, {2, 0}), kiln::test::fromFloats({1, 2}, {7, 8}), elementAlong(1));
    EXPECT_EQ(y.floats(), (std::vector<float>{8, 0, 7, 0, 0, 0}));
}

TEST(ScatterLayer, NdOnnxExamples)
{
    // ScatterND's first example: single elements of a vector.
    HostTensor const vector = kiln::test::fromFloats({8}, {1, 2, 3, 4, 5, 6, 7, 8});
    EXPECT_EQ(
        scatter(vector, indicesOf({4, 1}, {4, 3, 1, 7}), kiln::test::fromFloats({4}, {9, 10, 11, 12}), nd()).floats(),
        (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));
    // Slices: tuples of one coordinate replace rows of [3, 2]; tuples of two replace elements; -1 is the last row.
    HostTensor const matrix = kiln::test::fromFloats({3, 2}, {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(scatter(matrix, indicesOf({1, 1}, {-1}), kiln::test::fromFloats({1, 2}, {8, 9}), nd()).floats(),
        (std::vector<float>{1, 2, 3, 4, 8, 9}));
    EXPECT_EQ(
        scatter(matrix, indicesOf({2, 2}, {0, 1, 2, 0}, DataType::kINT32), kiln::test::fromFloats({2}, {7, 8}), nd())
            .floats(),
        (std::vector<float>{1, 7, 3, 4, 8, 6}));
    // Indices [2, 1, 1] (a batch of tuples) into [3, 2]: updates [2, 1, 2].
    EXPECT_EQ(scatter(matrix, indicesOf({2, 1, 1}, {2, 0}), kiln::test::fromFloats({2, 1, 2}, {-1, -2, -3, -4}), nd())
                  .floats(),
        (std::vector<float>{-3, -4, 3, 4, -1, -2}));
}

TEST(ScatterLayer, DuplicateIndicesKeepTheLastUpdate)
{
    HostTensor const y = scatter(kiln::test::zeros({1, 3}), indicesOf({1, 3}, {1, 1, -2}),
        kiln::test::fromFloats({1, 3}, {5, 6, 7}), elementAlong(1));
    EXPECT_EQ(y.floats(), (std::vector<float>{0, 7, 0}));
    HostTensor const z
        = scatter(kiln::test::zeros({3}), indicesOf({3, 1}, {2, 0, 2}), kiln::test::fromFloats({3}, {5, 6, 7}), nd());
    EXPECT_EQ(z.floats(), (std::vector<float>{6, 0, 7}));
}

TEST(ScatterLayer, ReductionsMatchOnnxReference)
{
    // Expected values from ONNX Runtime 1.18 (opset 18), duplicates included (column 0 twice in row 0; -1 is column 3).
    // onnx.reference agrees but for ScatterElements' mul, which onnx 1.16.2 computes as min.
    HostTensor const data = kiln::test::fromFloats({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
    HostTensor const indices = indicesOf({2, 3}, {0, 0, 3, -1, 1, 1});
    HostTensor const updates = kiln::test::fromFloats({2, 3}, {2, 3, 0.5F, -2, 4, -1});
    std::vector<std::pair<ScatterReduction, std::vector<float>>> const elementCases{
        {ScatterReduction::kADD, {6, 2, 3, 4.5F, 5, 9, 7, 6}},
        {ScatterReduction::kMUL, {6, 2, 3, 2, 5, -24, 7, -16}},
        {ScatterReduction::kMAX, {3, 2, 3, 4, 5, 6, 7, 8}},
        {ScatterReduction::kMIN, {1, 2, 3, 0.5F, 5, -1, 7, -2}},
    };
    for (auto const& [reduction, expected] : elementCases)
    {
        SCOPED_TRACE(kiln::network::scatterReductionName(reduction));
        EXPECT_EQ(scatter(data, indices, updates, elementAlong(1, reduction)).floats(), expected);
    }
    HostTensor const rows = kiln::test::fromFloats({3, 2}, {1, 2, 3, 4, 5, 6});
    HostTensor const tuples = indicesOf({3, 1}, {2, 0, 2});
    HostTensor const slices = kiln::test::fromFloats({3, 2}, {10, -1, 2, 0.5F, -3, 7});
    std::vector<std::pair<ScatterReduction, std::vector<float>>> const ndCases{
        {ScatterReduction::kADD, {3, 2.5F, 3, 4, 12, 12}},
        {ScatterReduction::kMUL, {2, 1, 3, 4, -150, -42}},
        {ScatterReduction::kMAX, {2, 2, 3, 4, 10, 7}},
        {ScatterReduction::kMIN, {1, 0.5F, 3, 4, -3, -1}},
    };
    for (auto const& [reduction, expected] : ndCases)
    {
        SCOPED_TRACE(kiln::network::scatterReductionName(reduction));
        EXPECT_EQ(scatter(rows, tuples, slices, nd(reduction)).floats(), expected);
    }
}

TEST(ScatterLayer, IntegerReductionsWrap)
{
    // INT8 [100, -100] with updates 100, 50 (both into 0) and -100 (into 1); onnx.reference's numpy wraps the same.
    HostTensor const data = kiln::test::fromInts({2}, {100, -100}, DataType::kINT8);
    HostTensor const indices = indicesOf({3, 1}, {0, 0, 1});
    HostTensor const updates = kiln::test::fromInts({3}, {100, 50, -100}, DataType::kINT8);
    EXPECT_EQ(scatter(data, indices, updates, nd(ScatterReduction::kADD)).ints(), (std::vector<int64_t>{-6, 56}));
    EXPECT_EQ(scatter(data, indices, updates, nd(ScatterReduction::kMUL)).ints(), (std::vector<int64_t>{32, 16}));
    EXPECT_EQ(scatter(data, indices, updates, nd(ScatterReduction::kMAX)).ints(), (std::vector<int64_t>{100, -100}));
    EXPECT_EQ(scatter(data, indices, updates, nd(ScatterReduction::kMIN)).ints(), (std::vector<int64_t>{50, -100}));
    // UINT8 255 + 2 wraps to 1; INT64 keeps what INT32 would lose.
    EXPECT_EQ(scatter(kiln::test::fromInts({1}, {255}, DataType::kUINT8), indicesOf({1, 1}, {0}),
                  kiln::test::fromInts({1}, {2}, DataType::kUINT8), nd(ScatterReduction::kADD))
                  .ints(),
        (std::vector<int64_t>{1}));
    EXPECT_EQ(scatter(kiln::test::fromInts({1}, {int64_t{1} << 40}, DataType::kINT64), indicesOf({1, 1}, {0}),
                  kiln::test::fromInts({1}, {3}, DataType::kINT64), nd(ScatterReduction::kMUL))
                  .ints(),
        (std::vector<int64_t>{int64_t{3} << 40}));
}

TEST(ScatterLayer, ReplacesEveryByteAddressableType)
{
    HostTensor const indices = indicesOf({2, 1}, {2, 0});
    for (DataType type : {DataType::kINT8, DataType::kUINT8, DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        SCOPED_TRACE(kiln::dataTypeName(type));
        HostTensor const data = kiln::test::fromInts({3}, {1, 0, 1}, type);
        HostTensor const updates = kiln::test::fromInts({2}, {0, 1}, type);
        EXPECT_EQ(scatter(data, indices, updates, nd()).ints(), (std::vector<int64_t>{1, 0, 0}));
    }
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(kiln::dataTypeName(type));
        HostTensor const data = kiln::test::fromFloats({3}, {0.5F, -1.25F, 3}, type);
        HostTensor const updates = kiln::test::fromFloats({2}, {8, -0.75F}, type);
        EXPECT_EQ(scatter(data, indices, updates, nd()).floats(), (std::vector<float>{-0.75F, -1.25F, 8}));
    }
}

TEST(ScatterLayer, HalfReductionsRoundAfterEachUpdate)
{
    // At FP16 precision 2048 + 1 rounds back to 2048 (to even) each time: three updates of 1 leave it there, where
    // one sum of 3 would give 2052 (2051 rounds to even).
    LayerHarness h;
    h.config->setFlag(BuilderFlag::kFP16);
    IScatterLayer* layer = addScatterOf(h, kiln::test::fromFloats({1}, {2048}), indicesOf({3, 1}, {0, 0, 0}),
        kiln::test::fromFloats({3}, {1, 1, 1}), nd(ScatterReduction::kADD));
    ASSERT_NE(layer, nullptr);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    float const data = 2048;
    std::vector<int64_t> const indices{0, 0, 0};
    std::vector<float> const updates{1, 1, 1};
    float y = 0;
    ASSERT_TRUE(h.run({{"data", &data}, {"indices", indices.data()}, {"updates", updates.data()}}, {{"y", &y}}));
    EXPECT_EQ(y, 2048.0F);
}

TEST(ScatterLayer, NanWinsMaxAndMin)
{
    float const nan = std::nanf("");
    HostTensor const data = kiln::test::fromFloats({3}, {nan, 1, 2});
    HostTensor const indices = indicesOf({3, 1}, {0, 1, 2});
    HostTensor const updates = kiln::test::fromFloats({3}, {5, nan, 1});
    for (ScatterReduction reduction : {ScatterReduction::kMAX, ScatterReduction::kMIN})
    {
        std::vector<float> const y = scatter(data, indices, updates, nd(reduction)).floats();
        ASSERT_EQ(y.size(), 3U);
        EXPECT_TRUE(std::isnan(y[0]));
        EXPECT_TRUE(std::isnan(y[1]));
        EXPECT_EQ(y[2], reduction == ScatterReduction::kMAX ? 2.0F : 1.0F);
    }
}

TEST(ScatterLayer, EmptyTensors)
{
    // No updates: the data is copied. No data: nothing to do.
    HostTensor const data = kiln::test::fromFloats({2, 2}, {1, 2, 3, 4});
    EXPECT_EQ(scatter(data, indicesOf({0, 1}, {}), kiln::test::zeros({0, 2}), nd()).floats(), data.floats());
    EXPECT_EQ(scatter(data, indicesOf({2, 0}, {}), kiln::test::zeros({2, 0}), elementAlong(1)).floats(), data.floats());
    EXPECT_EQ(
        scatter(kiln::test::zeros({0, 3}), indicesOf({0, 3}, {}), kiln::test::zeros({0, 3}), elementAlong(1)).shape,
        (kiln::Shape{0, 3}));
}

TEST(ScatterLayer, PlanKeepsModeAxisAndReduction)
{
    LayerHarness h;
    IScatterLayer* layer = addScatterOf(h, kiln::test::zeros({2, 3}), indicesOf({2, 2}, {0, 0, 0, 0}),
        kiln::test::zeros({2, 2}), elementAlong(-1, ScatterReduction::kMIN));
    ASSERT_NE(layer, nullptr);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<kiln::network::ScatterParams> const found = kiln::test::paramsInPlan<kiln::network::ScatterParams>(h);
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found[0].mode, ScatterMode::kELEMENT);
    EXPECT_EQ(found[0].axis, -1);
    EXPECT_EQ(found[0].reduction, ScatterReduction::kMIN);
}

TEST(ScatterLayer, DefaultsAndSetters)
{
    LayerHarness h;
    ITensor* data = h.network->addInput("data", DataType::kINT8, Dims{2, {4, 5}});
    ITensor* indices = h.network->addInput("indices", DataType::kINT32, Dims{2, {2, 1}});
    ITensor* updates = h.network->addInput("updates", DataType::kINT8, Dims{2, {2, 5}});
    IScatterLayer* layer = h.network->addScatter(*data, *indices, *updates, ScatterMode::kND);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getType(), LayerType::kSCATTER);
    EXPECT_EQ(layer->getMode(), ScatterMode::kND);
    EXPECT_EQ(layer->getAxis(), 0);
    EXPECT_EQ(kiln::getScatterReduction(*layer), ScatterReduction::kNONE);
    EXPECT_EQ(layer->getNbInputs(), 3);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT8);
    Dims const out = layer->getOutput(0)->getDimensions();
    EXPECT_EQ(std::vector<int64_t>(out.d, out.d + out.nbDims), (std::vector<int64_t>{4, 5}));
    // An axis out of range is kept (the build refuses it); a mode or reduction outside its enum changes nothing.
    layer->setAxis(7);
    EXPECT_EQ(layer->getAxis(), 7);
    layer->setMode(static_cast<ScatterMode>(5));
    EXPECT_EQ(layer->getMode(), ScatterMode::kND);
    EXPECT_TRUE(
        errorMentions(h, "IScatterLayer::setMode: layer \"(Unnamed Layer* 0) [Scatter]\": 5 is not a ScatterMode"))
        << h.logger.errors();
    EXPECT_FALSE(kiln::setScatterReduction(*layer, static_cast<ScatterReduction>(-1)));
    EXPECT_EQ(kiln::getScatterReduction(*layer), ScatterReduction::kNONE);
    EXPECT_TRUE(kiln::setScatterReduction(*layer, ScatterReduction::kMAX));
    EXPECT_EQ(kiln::getScatterReduction(*layer), ScatterReduction::kMAX);
    EXPECT_EQ(h.network->addScatter(*data, *indices, *updates, static_cast<ScatterMode>(2)), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addScatter: 2 is not a ScatterMode")) << h.logger.errors();
}

//! Adds a scatter of inputs with the given types and dims in `mode`, and expects it refused with `message`.
void expectRefused(ScatterMode mode, std::array<std::pair<DataType, Dims>, 3> const& operands, char const* message)
{
    LayerHarness h;
    ITensor* d = h.network->addInput("data", operands[0].first, operands[0].second);
    ITensor* i = h.network->addInput("indices", operands[1].first, operands[1].second);
    ITensor* u = h.network->addInput("updates", operands[2].first, operands[2].second);
    ASSERT_TRUE(d && i && u) << h.logger.errors();
    EXPECT_EQ(h.network->addScatter(*d, *i, *u, mode), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addScatter: layer \"(Unnamed Layer*")) << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, message)) << h.logger.errors();
}

TEST(ScatterLayer, ShapeInferenceErrors)
{
    auto const f32 = DataType::kFLOAT;
    auto const i64 = DataType::kINT64;
    auto const i4 = DataType::kINT4;
    expectRefused(ScatterMode::kND, {{{i4, Dims{1, {4}}}, {i64, Dims{2, {1, 1}}}, {i4, Dims{1, {1}}}}},
        "the scatter data (input 0) cannot be INT4 (not byte-addressable)");
    expectRefused(ScatterMode::kND, {{{f32, Dims{0, {}}}, {i64, Dims{1, {0}}}, {f32, Dims{0, {}}}}},
        "the scatter data (input 0) must have rank 1 or more, not 0");
    expectRefused(ScatterMode::kND, {{{f32, Dims{1, {4}}}, {f32, Dims{2, {1, 1}}}, {f32, Dims{1, {1}}}}},
        "the scatter indices (input 1) must be INT32 or INT64, not FLOAT");
    expectRefused(ScatterMode::kND, {{{f32, Dims{1, {4}}}, {i64, Dims{2, {1, 1}}}, {DataType::kHALF, Dims{1, {1}}}}},
        "the scatter updates (input 2) must have the data's type FLOAT, not HALF");
    expectRefused(ScatterMode::kELEMENT, {{{f32, Dims{2, {4, 4}}}, {i64, Dims{1, {2}}}, {f32, Dims{1, {2}}}}},
        "the scatter indices (input 1) of a kELEMENT scatter must have the data's rank 2, not 1");
    expectRefused(ScatterMode::kELEMENT, {{{f32, Dims{2, {4, 4}}}, {i64, Dims{2, {2, 3}}}, {f32, Dims{2, {2, 2}}}}},
        "the scatter updates (input 2) have extent 2 in dim 1 where the indices' extents give 3");
    expectRefused(ScatterMode::kND, {{{f32, Dims{2, {4, 4}}}, {i64, Dims{0, {}}}, {f32, Dims{0, {}}}}},
        "the scatter indices (input 1) of a kND scatter must have rank 1 or more, not 0");
    expectRefused(ScatterMode::kND, {{{f32, Dims{2, {4, 4}}}, {i64, Dims{2, {2, 3}}}, {f32, Dims{1, {2}}}}},
        "the scatter indices (input 1) hold tuples of 3 coordinates; a kND scatter into data of rank 2 takes 1 to 2");
    expectRefused(ScatterMode::kND, {{{f32, Dims{2, {4, 4}}}, {i64, Dims{2, {2, 1}}}, {f32, Dims{1, {2}}}}},
        "the scatter updates (input 2) must have rank 2 (the indices' tuples and the data's slices), not 1");
    expectRefused(ScatterMode::kND, {{{f32, Dims{2, {4, 4}}}, {i64, Dims{2, {2, 1}}}, {f32, Dims{2, {2, 3}}}}},
        "the scatter updates (input 2) have extent 3 in dim 1 where the indices' tuples and the data's slices give 4");
}

TEST(ScatterLayer, TupleLengthMustBeKnownWhenBuilding)
{
    LayerHarness h;
    ITensor* d = h.network->addInput("data", DataType::kFLOAT, Dims{2, {4, 4}});
    ITensor* i = h.network->addInput("indices", DataType::kINT64, Dims{2, {2, -1}});
    ITensor* u = h.network->addInput("updates", DataType::kFLOAT, Dims{1, {2}});
    EXPECT_EQ(h.network->addScatter(*d, *i, *u, ScatterMode::kND), nullptr);
    EXPECT_TRUE(errorMentions(h,
        "the last dim of the scatter indices (input 1) (the coordinates per tuple) of a kND "
        "scatter must be known when the network is built"))
        << h.logger.errors();
}

//! A network whose scatter (of `data` dims with `indices` dims) gets `setup` after it is added, expected to fail to
//! build with `message`.
void expectBuildRefused(DataType type, Dims const& data, Dims const& indices, ScatterSetup setup, char const* message)
{
    LayerHarness h;
    ITensor* d = h.network->addInput("data", type, data);
    ITensor* i = h.network->addInput("indices", DataType::kINT32, indices);
    ITensor* u = h.network->addInput("updates", type, indices);
    IScatterLayer* layer = h.network->addScatter(*d, *i, *u, setup.mode);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setAxis(setup.axis);
    ASSERT_TRUE(kiln::setScatterReduction(*layer, setup.reduction));
    h.output(layer, "y");
    kiln::setBackend(*h.config, kiln::Backend::kCPU);
    h.expectBuildToFail(message);
}

TEST(ScatterLayer, AxisAndReductionErrorsFailTheBuild)
{
    expectBuildRefused(DataType::kFLOAT, Dims{2, {3, 4}}, Dims{2, {1, 1}}, elementAlong(2),
        "the scatter axis 2 is out of range [-2, 2) for data of rank 2");
    expectBuildRefused(DataType::kFLOAT, Dims{2, {3, 4}}, Dims{2, {1, 5}}, elementAlong(0),
        "the scatter indices (input 1) have extent 5 in dim 1, beyond the data's 4 (only the axis 0 may differ)");
    expectBuildRefused(DataType::kBOOL, Dims{1, {4}}, Dims{1, {2}}, elementAlong(0, ScatterReduction::kADD),
        "a scatter with reduction add needs FLOAT, HALF, BF16, INT8, UINT8, INT32 or INT64 data, not BOOL");
}

TEST(ScatterLayer, IndicesOutOfRangeFailWhenRun)
{
    // Data [2, 3]: along axis 1, index 3 and -4 are out of range; kND tuples address axis 0 (extent 2) then 1.
    struct Case
    {
        ScatterSetup setup;
        kiln::Shape indicesShape;
        std::vector<int64_t> indices;
        kiln::Shape updatesShape;
        char const* message;
    };
    std::vector<Case> const cases{
        {elementAlong(1), {1, 2}, {0, 3}, {1, 2}, "index 3 (indices element 1) is out of range for axis 1 of extent 3"},
        {elementAlong(1), {1, 1}, {-4}, {1, 1}, "index -4 (indices element 0) is out of range for axis 1 of extent 3"},
        {nd(), {2, 1}, {1, -3}, {2, 3}, "index -3 (indices element 1) is out of range for axis 0 of extent 2"},
        {nd(), {1, 2}, {1, 3}, {1}, "index 3 (indices element 1) is out of range for axis 1 of extent 3"},
    };
    for (Case const& c : cases)
    {
        SCOPED_TRACE(c.message);
        LayerHarness h;
        HostTensor const data = kiln::test::zeros({2, 3});
        HostTensor const indices = indicesOf(c.indicesShape, c.indices);
        HostTensor updates = kiln::test::zeros(c.updatesShape);
        HostTensor y = kiln::test::zeros({2, 3});
        IScatterLayer* layer = addScatterOf(h, data, indices, updates, c.setup);
        ASSERT_NE(layer, nullptr);
        h.output(layer, "y");
        ASSERT_TRUE(h.build());
        ASSERT_TRUE(h.context->setTensorAddress("data", const_cast<uint8_t*>(data.bytes.data())));
        ASSERT_TRUE(h.context->setTensorAddress("indices", const_cast<uint8_t*>(indices.bytes.data())));
        ASSERT_TRUE(h.context->setTensorAddress("updates", updates.bytes.data()));
        ASSERT_TRUE(h.context->setTensorAddress("y", y.bytes.data()));
        EXPECT_FALSE(h.context->enqueueV3(nullptr));
        EXPECT_TRUE(errorMentions(h, "layer \"(Unnamed Layer* 0) [Scatter]\": scatter: ")) << h.logger.errors();
        EXPECT_TRUE(errorMentions(h, c.message)) << h.logger.errors();
    }
}

TEST(ScatterLayer, ScatteringIntoAShapeKeepsItsValuesKnown)
{
    // x's shape [2, 3, 4] with element 1 set to 6 (kELEMENT) and element -1 multiplied by 1 (kND, a 0-D update):
    // a reshape target [2, 6, 4] known while the network is defined.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {2, 3, 4}});
    ITensor* shape = h.network->addShape(*x)->getOutput(0);
    std::vector<int64_t> const position{1};
    std::vector<int64_t> const six{6};
    std::vector<int64_t> const last{-1};
    std::vector<int64_t> const one{1};
    auto constant = [&h](Dims const& dims, std::vector<int64_t> const& values) {
        return h.network->addConstant(dims, Weights{DataType::kINT64, values.data(), 1})->getOutput(0);
    };
    IScatterLayer* set = h.network->addScatter(
        *shape, *constant(Dims{1, {1}}, position), *constant(Dims{1, {1}}, six), ScatterMode::kELEMENT);
    ASSERT_NE(set, nullptr) << h.logger.errors();
    IScatterLayer* scaled = h.network->addScatter(
        *set->getOutput(0), *constant(Dims{1, {1}}, last), *constant(Dims{0, {}}, one), ScatterMode::kND);
    ASSERT_NE(scaled, nullptr) << h.logger.errors();
    ASSERT_TRUE(kiln::setScatterReduction(*scaled, ScatterReduction::kMUL));
    EXPECT_TRUE(scaled->getOutput(0)->isShapeTensor());
    ITensor* flat = h.network->addInput("flat", DataType::kFLOAT, Dims{1, {48}});
    IShuffleLayer* reshape = h.network->addShuffle(*flat);
    reshape->setInput(1, *scaled->getOutput(0));
    Dims const dims = reshape->getOutput(0)->getDimensions();
    EXPECT_EQ(std::vector<int64_t>(dims.d, dims.d + dims.nbDims), (std::vector<int64_t>{2, 6, 4}));
}

} // namespace
