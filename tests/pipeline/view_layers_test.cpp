// Views (builder/view_layers.h): reshapes, squeezes, flattens and slices of a contiguous block run nothing and own
// no memory; their outputs are the memory of the tensor they view. Each network of view_networks.h is built twice on
// the CPU backend: with views (kFAST plans make them) and as the reference (kREFERENCE plans run every layer as
// written). Both must give the values worked out from the definitions, bit for bit; the plans are read back to see
// which layers became views, where they start, and what memory the tensors got.
#include "../layers/layer_harness.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"
#include "view_networks.h"

#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;
using kiln::test::views::quarters;
using Maker = std::function<void(INetworkDefinition&)>;
using Outputs = std::map<std::string, std::vector<float>>;

//! `maker`'s network built for the CPU backend's `kernels` (kFAST makes views, kREFERENCE does not), after
//! `configure` (optimization profiles) where given.
std::unique_ptr<LayerHarness> built(
    Maker const& maker, kiln::CpuKernels kernels, std::function<void(LayerHarness&)> const& configure = {})
{
    auto h = std::make_unique<LayerHarness>();
    maker(*h->network);
    kiln::setCpuKernels(*h->config, kernels);
    if (configure)
    {
        configure(*h);
    }
    EXPECT_TRUE(h->build());
    return h;
}

kiln::plan::PlanModel planOf(LayerHarness const& h)
{
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(h.plan->data(), h.plan->size(), model, error)) << error;
    return model;
}

int32_t tensorNamed(kiln::plan::PlanModel const& model, std::string const& name)
{
    for (size_t t = 0; t < model.tensors.size(); ++t)
    {
        if (model.tensors[t].name == name)
        {
            return static_cast<int32_t>(t);
        }
    }
    ADD_FAILURE() << "no tensor \"" << name << "\" in the plan";
    return 0;
}

//! The tensor that `name` views, or "" where it is no view.
std::string viewedBy(kiln::plan::PlanModel const& model, std::string const& name)
{
    kiln::plan::TensorRecord const& tensor = model.tensors[static_cast<size_t>(tensorNamed(model, name))];
    return tensor.viewOf < 0 ? std::string() : model.tensors[static_cast<size_t>(tensor.viewOf)].name;
}

//! Where view `name` starts (in elements), where the builder knew it as a constant.
std::optional<int64_t> constantOffset(kiln::plan::PlanModel const& model, std::string const& name)
{
    kiln::plan::TensorRecord const& tensor = model.tensors[static_cast<size_t>(tensorNamed(model, name))];
    kiln::plan::ExprNode const& node = model.exprs.at(static_cast<size_t>(tensor.viewOffset));
    return node.kind == 0 ? std::optional<int64_t>(node.value) : std::nullopt; // kind 0: a constant
}

//! Checks the memory plan from its definition: a tensor's bytes are in use from the step that writes it to the last
//! step that reads it or a view of it; two tensors in use at one step never share bytes. Views own none.
void expectMemoryPlanHonoursViews(kiln::plan::PlanModel const& model)
{
    size_t const count = model.tensors.size();
    std::vector<int64_t> first(count, -1);
    std::vector<int64_t> last(count, -1);
    auto const storage = [&](int32_t t) { return model.tensors[t].viewOf >= 0 ? model.tensors[t].viewOf : t; };
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        auto const step = static_cast<int64_t>(l);
        for (int32_t t : model.layers[l].outputs)
        {
            first[storage(t)] = first[storage(t)] < 0 ? step : first[storage(t)];
            last[storage(t)] = step;
        }
        for (int32_t t : model.layers[l].inputs)
        {
            if (t >= 0)
            {
                last[storage(t)] = step;
            }
        }
    }
    for (size_t a = 0; a < count; ++a)
    {
        kiln::plan::TensorRecord const& x = model.tensors[a];
        if (x.viewOf >= 0)
        {
            EXPECT_EQ(x.arenaOffset, -1) << x.name << " is a view but has memory";
        }
        for (size_t b = a + 1; b < count && x.arenaOffset >= 0; ++b)
        {
            kiln::plan::TensorRecord const& y = model.tensors[b];
            bool const together = y.arenaOffset >= 0 && first[a] <= last[b] && first[b] <= last[a];
            bool const shareBytes = x.arenaOffset < y.arenaOffset + y.maxBytes
                && y.arenaOffset < x.arenaOffset + x.maxBytes;
            EXPECT_FALSE(together && shareBytes) << x.name << " and " << y.name << " are in use together";
        }
    }
}

//! Runs with input x of `shape` holding `x`, every output received whole.
Outputs run(LayerHarness& h, Dims const& shape, std::vector<float> const& x)
{
    EXPECT_TRUE(h.context->setInputShape("x", shape));
    EXPECT_TRUE(h.context->setTensorAddress("x", const_cast<float*>(x.data())));
    Outputs outputs;
    for (int32_t i = 0; i < h.engine->getNbIOTensors(); ++i)
    {
        char const* name = h.engine->getIOTensorName(i);
        if (h.engine->getTensorIOMode(name) != TensorIOMode::kOUTPUT)
        {
            continue;
        }
        Dims const dims = h.context->getTensorShape(name);
        int64_t elements = 1;
        for (int32_t axis = 0; axis < dims.nbDims; ++axis)
        {
            elements *= dims.d[axis];
        }
        outputs[name].assign(static_cast<size_t>(elements), -1000.0F);
        EXPECT_TRUE(h.context->setTensorAddress(name, outputs[name].data()));
    }
    EXPECT_TRUE(h.context->enqueueV3(nullptr)) << h.logger.errors();
    return outputs;
}

//! Both plans of `maker` agree with `expected` (by output) at each of `runs` (shape, input), bit for bit.
struct Pair
{
    std::unique_ptr<LayerHarness> views;
    std::unique_ptr<LayerHarness> reference;
};

Pair buildBoth(Maker const& maker, std::function<void(LayerHarness&)> const& configure = {})
{
    return Pair{
        built(maker, kiln::CpuKernels::kFAST, configure), built(maker, kiln::CpuKernels::kREFERENCE, configure)};
}

void expectBothGive(Pair& both, Dims const& shape, std::vector<float> const& x, Outputs const& expected)
{
    Outputs const withViews = run(*both.views, shape, x);
    Outputs const reference = run(*both.reference, shape, x);
    EXPECT_EQ(withViews, expected);
    EXPECT_EQ(reference, expected);
}

std::vector<float> elementwise(
    std::vector<float> const& a, std::vector<float> const& b, std::function<float(float, float)> f)
{
    std::vector<float> result(a.size());
    std::transform(a.begin(), a.end(), b.begin(), result.begin(), f);
    return result;
}

std::vector<float> twice(std::vector<float> const& x)
{
    return elementwise(x, x, [](float a, float b) { return a + b; });
}

TEST(Views, ReshapesSqueezesAndFlattensOfANetworkInputRunNothing)
{
    Pair both = buildBoth([](INetworkDefinition& n) { kiln::test::views::inputViews(n); });
    kiln::plan::PlanModel const views = planOf(*both.views);
    for (char const* view : {"r1", "r2", "r3", "flat"})
    {
        EXPECT_EQ(viewedBy(views, view), "x") << view; // chains show the first tensor
        EXPECT_EQ(constantOffset(views, view), 0) << view;
    }
    EXPECT_EQ(viewedBy(views, "z"), "") << "a network output is written into the application's memory";
    // Every intermediate tensor is a view of the input: no activation memory at all.
    EXPECT_EQ(views.arenaBytes, 0);
    kiln::plan::PlanModel const reference = planOf(*both.reference);
    EXPECT_TRUE(std::none_of(reference.tensors.begin(), reference.tensors.end(),
        [](kiln::plan::TensorRecord const& t) { return t.viewOf >= 0; }));
    EXPECT_GT(reference.arenaBytes, 0);

    // The input moves between runs: the views follow it.
    for (int64_t phase : {0, 1, 2})
    {
        std::vector<float> const x = quarters(24, phase);
        expectBothGive(both, Dims{3, {2, 3, 4}}, x,
            {{"y", twice(x)}, {"w", elementwise(x, x, [](float a, float b) { return a * b; })}, {"z", x}});
    }
}

TEST(Views, AReshapeThatConvertsItsInputStaysALayer)
{
    // With kFP16 the reshapes of the FP32 input read it as FP16: they convert, so they run; the reshapes of their
    // FP16 output are views of it.
    Pair both = buildBoth([](INetworkDefinition& n) { kiln::test::views::inputViews(n); },
        [](LayerHarness& h) { h.config->setFlag(BuilderFlag::kFP16); });
    kiln::plan::PlanModel const views = planOf(*both.views);
    EXPECT_EQ(viewedBy(views, "r1"), "");
    EXPECT_EQ(viewedBy(views, "flat"), "");
    EXPECT_EQ(viewedBy(views, "r2"), "r1");
    EXPECT_EQ(viewedBy(views, "r3"), "r1");
    expectMemoryPlanHonoursViews(views);
    std::vector<float> const x = quarters(24, 2); // exact in FP16, and so are their sums and squares
    expectBothGive(both, Dims{3, {2, 3, 4}}, x,
        {{"y", twice(x)}, {"w", elementwise(x, x, [](float a, float b) { return a * b; })}, {"z", x}});
}

TEST(Views, OutermostSlicesOfAContiguousTensorAreViewsAtTheirOffsets)
{
    Pair both = buildBoth([](INetworkDefinition& n) { kiln::test::views::unbindViews(n); });
    kiln::plan::PlanModel const views = planOf(*both.views);
    EXPECT_EQ(viewedBy(views, "heads"), "t");
    EXPECT_EQ(viewedBy(views, "qkv"), "") << "a transpose that moves axes copies";
    char const* const parts[] = {"q", "k", "v"};
    for (int64_t i = 0; i < 3; ++i)
    {
        std::string const slice = std::string(parts[i]) + " slice";
        // The slice's tensor is named after its layer's output, the squeeze's after the part.
        int32_t const sliceOutput = views
                                        .layers[static_cast<size_t>(std::distance(views.layers.begin(),
                                            std::find_if(views.layers.begin(), views.layers.end(),
                                                [&](kiln::plan::LayerRecord const& l) { return l.name == slice; })))]
                                        .outputs.at(0);
        EXPECT_EQ(views.tensors[static_cast<size_t>(sliceOutput)].viewOf, tensorNamed(views, "qkv")) << slice;
        EXPECT_EQ(viewedBy(views, parts[i]), "qkv") << parts[i];
        EXPECT_EQ(constantOffset(views, parts[i]), i * 16) << parts[i]; // [1, 2, 4, 2] blocks
    }
    expectMemoryPlanHonoursViews(views);
    std::vector<float> const x = quarters(48, 3);
    expectBothGive(both, Dims{3, {2, 4, 6}}, x, {{"y", kiln::test::views::unbindExpected(x)}});
}

TEST(Views, GathersOfOneConstantIndexAlongTheFirstAxisAreViewsAtTheirOffsets)
{
    Pair both = buildBoth([](INetworkDefinition& n) { kiln::test::views::gatheredUnbindViews(n); });
    kiln::plan::PlanModel const views = planOf(*both.views);
    EXPECT_EQ(viewedBy(views, "qkv"), "") << "a transpose that moves axes copies";
    char const* const parts[] = {"q", "k", "v"};
    for (int64_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(viewedBy(views, parts[i]), "qkv") << parts[i];
        EXPECT_EQ(constantOffset(views, parts[i]), i * 16) << parts[i]; // [2, 4, 2] blocks; v's index is -1
    }
    expectMemoryPlanHonoursViews(views);
    std::vector<float> const x = quarters(48, 4);
    expectBothGive(both, Dims{3, {2, 4, 6}}, x, {{"y", kiln::test::views::unbindExpected(x)}});
}

TEST(Views, AViewKeepsItsTensorAliveAfterTheTensorsOtherReaders)
{
    Pair both = buildBoth(kiln::test::views::lifetimeViews);
    kiln::plan::PlanModel const views = planOf(*both.views);
    EXPECT_EQ(viewedBy(views, "v"), "a");
    EXPECT_EQ(viewedBy(views, "d"), "c");
    EXPECT_EQ(viewedBy(views, "s"), "r");
    // a is read through v after b, its last other reader, and after r and c are written: they get other bytes.
    expectMemoryPlanHonoursViews(views);
    kiln::plan::TensorRecord const& a = views.tensors[static_cast<size_t>(tensorNamed(views, "a"))];
    for (char const* later : {"c", "r"})
    {
        kiln::plan::TensorRecord const& t = views.tensors[static_cast<size_t>(tensorNamed(views, later))];
        ASSERT_GE(t.arenaOffset, 0) << later;
        EXPECT_TRUE(t.arenaOffset >= a.arenaOffset + a.maxBytes || a.arenaOffset >= t.arenaOffset + t.maxBytes)
            << later << " shares bytes with a, which v still shows";
    }
    std::vector<float> const x = quarters(16, 4);
    auto const [u, y] = kiln::test::views::lifetimeExpected(x);
    expectBothGive(both, Dims{2, {4, 4}}, x, {{"u", u}, {"y", y}});
}

//! Two profiles: n in [2, 4] and n in [5, 9].
void twoProfiles(LayerHarness& h, int32_t axis, int64_t otherExtent, std::array<int64_t, 4> bounds)
{
    for (int32_t p = 0; p < 2; ++p)
    {
        IOptimizationProfile* profile = h.builder->createOptimizationProfile();
        Dims min = h.network->getInput(0)->getDimensions();
        for (int32_t d = 0; d < min.nbDims; ++d)
        {
            min.d[d] = d == axis ? bounds[static_cast<size_t>(2 * p)] : (min.d[d] < 0 ? otherExtent : min.d[d]);
        }
        Dims max = min;
        max.d[axis] = bounds[static_cast<size_t>(2 * p + 1)];
        profile->setDimensions("x", OptProfileSelector::kMIN, min);
        profile->setDimensions("x", OptProfileSelector::kOPT, max);
        profile->setDimensions("x", OptProfileSelector::kMAX, max);
        h.config->addOptimizationProfile(profile);
    }
}

TEST(Views, SliceOffsetsFollowTheRunsShapesUnderTwoProfiles)
{
    Pair both = buildBoth(kiln::test::views::halvesViews, [](LayerHarness& h) { twoProfiles(h, 0, 4, {2, 4, 5, 9}); });
    kiln::plan::PlanModel const views = planOf(*both.views);
    EXPECT_EQ(viewedBy(views, "first"), "t");
    EXPECT_EQ(viewedBy(views, "second"), "t");
    EXPECT_EQ(constantOffset(views, "second"), std::nullopt) << "it starts at n / 2 rows";
    for (auto [profile, rows] :
        {std::pair{0, 2}, std::pair{1, 7}, std::pair{0, 3}, std::pair{1, 9}, std::pair{1, 5}, std::pair{0, 4}})
    {
        SCOPED_TRACE("profile " + std::to_string(profile) + ", rows " + std::to_string(rows));
        for (LayerHarness* h : {both.views.get(), both.reference.get()})
        {
            ASSERT_TRUE(h->context->setOptimizationProfileAsync(profile, nullptr));
        }
        std::vector<float> const x = quarters(static_cast<size_t>(rows * 4), rows);
        std::vector<float> const t = twice(x);
        auto const split = t.begin() + rows / 2 * 4;
        std::vector<float> const first(t.begin(), split);
        std::vector<float> const second(split, t.end());
        expectBothGive(both, Dims{2, {rows, 4}}, x,
            {{"y1", twice(first)}, {"y2", elementwise(second, second, [](float p, float q) { return p * q; })}});
    }
}

TEST(Views, UnboundPartsStartWhereTheRunsBatchPutsThem)
{
    Pair both = buildBoth(kiln::test::views::dynamicUnbindViews, [](LayerHarness& h) {
        twoProfiles(h, 1, 0, {1, 3, 4, 6});
    });
    kiln::plan::PlanModel const views = planOf(*both.views);
    for (char const* view : {"p0", "p1", "p2", "p0 rows", "p1 rows", "p2 rows"})
    {
        EXPECT_EQ(viewedBy(views, view), "t") << view;
    }
    EXPECT_EQ(constantOffset(views, "p0 rows"), 0);
    EXPECT_EQ(constantOffset(views, "p1 rows"), std::nullopt) << "it starts at b * 4";
    expectMemoryPlanHonoursViews(views);
    for (auto [profile, batch] : {std::pair{1, 6}, std::pair{0, 1}, std::pair{0, 3}, std::pair{1, 4}})
    {
        SCOPED_TRACE("batch " + std::to_string(batch));
        for (LayerHarness* h : {both.views.get(), both.reference.get()})
        {
            ASSERT_TRUE(h->context->setOptimizationProfileAsync(profile, nullptr));
        }
        size_t const part = static_cast<size_t>(batch * 4);
        std::vector<float> const x = quarters(3 * part, batch);
        std::vector<float> const t = twice(x);
        std::vector<float> y(part);
        for (size_t i = 0; i < part; ++i)
        {
            y[i] = (t[i] + t[part + i]) * t[2 * part + i];
        }
        expectBothGive(both, Dims{3, {3, batch, 4}}, x, {{"y", y}});
    }
}

//! A slice whose start is read from an input's extent: x [6, 4] + x, rows [k, k + 2) for k the length of input o.
void startFromExtent(INetworkDefinition& n)
{
    using namespace kiln::test::views;
    ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims{2, {6, 4}});
    ITensor& o = *n.addInput("o", DataType::kFLOAT, Dims{1, {-1}});
    ITensor& t = sum(n, x, x, "t");
    ITensor& rows = sliced(n, t, joined(n, {&extents(n, o, 0, 1), &int64s(n, {0})}), int64s(n, {2, 4}), "rows");
    markOutput(n, sum(n, rows, rows, "rows + rows"), "y");
}

TEST(Views, ASliceOutsideItsInputFailsTheRunAsTheReferenceDoes)
{
    auto const configure = [](LayerHarness& h) { h.setProfile("o", Dims{1, {0}}, Dims{1, {4}}, Dims{1, {6}}); };
    std::vector<float> const x = quarters(24, 5);
    std::vector<float> const t = twice(x);
    std::vector<float> const o(6, 0.0F);
    // One engine at a time: Kiln logs to the logger of the runtime made last.
    for (kiln::CpuKernels kernels : {kiln::CpuKernels::kFAST, kiln::CpuKernels::kREFERENCE})
    {
        std::unique_ptr<LayerHarness> const built = ::built(startFromExtent, kernels, configure);
        LayerHarness* h = built.get();
        bool const views = kernels == kiln::CpuKernels::kFAST;
        EXPECT_EQ(viewedBy(planOf(*h), "rows"), views ? "t" : "");
        std::vector<float> y(8, -1000.0F);
        ASSERT_TRUE(h->context->setTensorAddress("o", const_cast<float*>(o.data())));
        ASSERT_TRUE(h->context->setInputShape("o", Dims{1, {4}}));
        ASSERT_TRUE(h->run({{"x", x.data()}}, {{"y", y.data()}}));
        EXPECT_EQ(y, twice(std::vector<float>(t.begin() + 16, t.end())));
        // Rows [5, 7) of 6: the reference's kernel refuses them (kSTRICT_BOUNDS), and so does the view.
        ASSERT_TRUE(h->context->setInputShape("o", Dims{1, {5}}));
        EXPECT_FALSE(h->context->enqueueV3(nullptr));
        EXPECT_NE(h->logger.errors().find(views ? "does not lie inside" : "slice"), std::string::npos)
            << h->logger.errors();
        // Back inside: the next run succeeds.
        ASSERT_TRUE(h->context->setInputShape("o", Dims{1, {3}}));
        ASSERT_TRUE(h->run({{"x", x.data()}}, {{"y", y.data()}}));
        EXPECT_EQ(y, twice(std::vector<float>(t.begin() + 12, t.begin() + 20)));
    }
}

//! A gather along `axis` of `t` by constant INT32 `indices` of shape `shape`.
ITensor& gathered(INetworkDefinition& n, ITensor& t, int32_t axis, Dims const& shape,
    std::vector<int32_t> const& indices, char const* name)
{
    // The network keeps the weights' address: the values must outlive the build, so they are kept here.
    static std::vector<std::vector<int32_t>> kept;
    kept.push_back(indices);
    Weights const weights{DataType::kINT32, kept.back().data(), static_cast<int64_t>(indices.size())};
    return kiln::test::views::named(n.addGather(t, *n.addConstant(shape, weights)->getOutput(0), axis), name);
}

//! What is no view: a transpose that moves axes, a slice of an inner axis, one of stride 2, one that wraps, a gather
//! of one index along an inner axis, and one of two indices.
void notViews(INetworkDefinition& n)
{
    using namespace kiln::test::views;
    ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims{2, {4, 6}});
    ITensor& t = sum(n, x, x, "t");
    IShuffleLayer* transpose = n.addShuffle(t);
    transpose->setFirstTranspose(Permutation{{1, 0}});
    transpose->setReshapeDimensions(Dims{2, {4, 6}});
    ITensor& moved = named(transpose, "moved");
    ITensor& inner = named(n.addSlice(t, Dims{2, {0, 1}}, Dims{2, {4, 2}}, Dims{2, {1, 1}}), "inner");
    ITensor& strided = named(n.addSlice(t, Dims{2, {0, 0}}, Dims{2, {2, 6}}, Dims{2, {2, 1}}), "strided");
    ISliceLayer* wrap = n.addSlice(t, Dims{2, {0, 0}}, Dims{2, {2, 6}}, Dims{2, {1, 1}});
    wrap->setMode(SampleMode::kWRAP);
    wrap->setStart(Dims{2, {3, 0}}); // rows 3 and 0
    ITensor& wrapped = named(wrap, "wrapped");
    ITensor& kept = named(n.addSlice(t, Dims{2, {1, 0}}, Dims{2, {2, 6}}, Dims{2, {1, 1}}), "kept");
    ITensor& column = gathered(n, t, 1, Dims{0, {}}, {4}, "column");
    ITensor& rows = gathered(n, t, 0, Dims{1, {2}}, {3, 1}, "rows");
    ITensor& row = gathered(n, t, 0, Dims{0, {}}, {2}, "row");
    markOutput(n, sum(n, moved, moved, "moved twice"), "a");
    markOutput(n, sum(n, inner, inner, "inner twice"), "b");
    markOutput(n, sum(n, strided, wrapped, "strided + wrapped"), "c");
    markOutput(n, sum(n, kept, kept, "kept twice"), "d");
    markOutput(n, sum(n, column, column, "column twice"), "e");
    markOutput(n, sum(n, rows, rows, "rows twice"), "f");
    markOutput(n, sum(n, row, row, "row twice"), "g");
}

TEST(Views, LayersThatMoveElementsStayCopies)
{
    Pair both = buildBoth(notViews);
    kiln::plan::PlanModel const views = planOf(*both.views);
    for (char const* copy : {"moved", "inner", "strided", "wrapped", "column", "rows"})
    {
        EXPECT_EQ(viewedBy(views, copy), "") << copy;
    }
    EXPECT_EQ(viewedBy(views, "kept"), "t");
    EXPECT_EQ(constantOffset(views, "kept"), 6);
    EXPECT_EQ(viewedBy(views, "row"), "t");
    EXPECT_EQ(constantOffset(views, "row"), 12);
    std::vector<float> const x = quarters(24, 6);
    Outputs const withViews = run(*both.views, Dims{2, {4, 6}}, x);
    EXPECT_EQ(withViews, run(*both.reference, Dims{2, {4, 6}}, x));
    std::vector<float> const t = twice(x);
    EXPECT_EQ(withViews.at("d"), twice(std::vector<float>(t.begin() + 6, t.begin() + 18)));
    EXPECT_EQ(withViews.at("g"), twice(std::vector<float>(t.begin() + 12, t.begin() + 18)));
    std::vector<float> column;
    for (size_t r = 0; r < 4; ++r)
    {
        column.push_back(t[r * 6 + 4]);
    }
    EXPECT_EQ(withViews.at("e"), twice(column));
}

//! Names of the layers a profiler hears of.
class RecordingProfiler final : public IProfiler
{
public:
    void reportLayerTime(char const* layerName, float) noexcept override
    {
        names.insert(layerName);
    }
    std::set<std::string> names;
};

TEST(Views, TheInspectorSaysWhichLayersAreViewsAndTheProfilerHearsOnlyOfLayersThatRun)
{
    std::unique_ptr<LayerHarness> h
        = built([](INetworkDefinition& n) { kiln::test::views::inputViews(n); }, kiln::CpuKernels::kFAST);
    std::unique_ptr<IEngineInspector> inspector(h->engine->createEngineInspector());
    nlohmann::json const engine = nlohmann::json::parse(inspector->getEngineInformation(LayerInformationFormat::kJSON));
    std::set<std::string> views;
    for (nlohmann::json const& layer : engine["Layers"])
    {
        if (layer.value("TacticName", "") == "view")
        {
            views.insert(layer["Name"].get<std::string>());
            EXPECT_EQ(layer["ViewOf"], "x");
        }
    }
    EXPECT_EQ(views, (std::set<std::string>{"r1", "r2", "r3", "flat"}));
    RecordingProfiler profiler;
    h->context->setProfiler(&profiler);
    std::vector<float> const x = quarters(24);
    run(*h, Dims{3, {2, 3, 4}}, x);
    EXPECT_EQ(profiler.names, (std::set<std::string>{"add", "square", "z"}));
}

TEST(Views, PlansWithViewsRoundTripAndMalformedViewsAreRefused)
{
    std::unique_ptr<LayerHarness> h
        = built([](INetworkDefinition& n) { kiln::test::views::inputViews(n); }, kiln::CpuKernels::kFAST);
    std::unique_ptr<IHostMemory> again(h->engine->serialize());
    ASSERT_EQ(again->size(), h->plan->size());
    EXPECT_TRUE(std::equal(static_cast<uint8_t const*>(again->data()),
        static_cast<uint8_t const*>(again->data()) + again->size(), static_cast<uint8_t const*>(h->plan->data())));

    kiln::plan::PlanModel const good = planOf(*h);
    int32_t const r1 = tensorNamed(good, "r1");
    int32_t const r2 = tensorNamed(good, "r2");
    std::vector<std::function<void(kiln::plan::PlanModel&)>> const corruptions{
        [&](kiln::plan::PlanModel& m) { m.tensors[r1].viewOf = r1; },                 // itself
        [&](kiln::plan::PlanModel& m) { m.tensors[r2].viewOf = r1; },                 // a view
        [&](kiln::plan::PlanModel& m) { m.tensors[r1].viewOffset = -1; },             // no offset
        [&](kiln::plan::PlanModel& m) { m.tensors[tensorNamed(m, "y")].viewOf = 0; }, // an output
        [&](kiln::plan::PlanModel& m) { m.tensors[r1].type = DataType::kHALF; },      // another type
    };
    for (size_t c = 0; c < corruptions.size(); ++c)
    {
        kiln::plan::PlanModel bad = good;
        corruptions[c](bad);
        std::vector<uint8_t> const bytes = kiln::plan::writePlan(bad);
        kiln::plan::PlanModel read;
        std::string error;
        EXPECT_FALSE(kiln::plan::readPlan(bytes.data(), bytes.size(), read, error)) << "corruption " << c;
        EXPECT_NE(error.find("view"), std::string::npos) << "corruption " << c << ": " << error;
    }
}

//! A run places its views before it learns any size, so a plan whose view depends on a size tensor is refused: here
//! the reshape of a NonZero's [1, n] positions into [n], which the builder keeps a layer, made a view.
TEST(Views, APlanWithAViewOfADataDependentShapeIsRefused)
{
    std::unique_ptr<LayerHarness> h = built(
        [](INetworkDefinition& n) {
            ITensor* x = n.addInput("x", DataType::kFLOAT, Dims{1, {6}});
            INonZeroLayer* positions = n.addNonZero(*x);
            positions->getOutput(0)->setName("positions");
            IShuffleLayer* flat = n.addShuffle(*positions->getOutput(0));
            flat->setReshapeDimensions(Dims{1, {-1}});
            flat->getOutput(0)->setName("flat");
            IIdentityLayer* y = n.addIdentity(*flat->getOutput(0));
            y->getOutput(0)->setName("y");
            n.markOutput(*y->getOutput(0));
        },
        kiln::CpuKernels::kFAST);
    kiln::plan::PlanModel bad = planOf(*h);
    int32_t const flat = tensorNamed(bad, "flat");
    ASSERT_EQ(bad.tensors[static_cast<size_t>(flat)].viewOf, -1) << "the builder made the reshape a view";
    bad.tensors[static_cast<size_t>(flat)].viewOf = tensorNamed(bad, "positions");
    bad.tensors[static_cast<size_t>(flat)].viewOffset = kiln::plan::constantNode(bad, 0);
    bad.tensors[static_cast<size_t>(flat)].arenaOffset = -1;
    std::vector<uint8_t> const bytes = kiln::plan::writePlan(bad);
    kiln::plan::PlanModel read;
    std::string error;
    EXPECT_FALSE(kiln::plan::readPlan(bytes.data(), bytes.size(), read, error));
    EXPECT_NE(error.find("\"flat\" is a view whose place or shape depends on a data-dependent size"), std::string::npos)
        << error;
}

} // namespace
