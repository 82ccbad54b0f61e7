// The CUDA backend's Scatter layer against the CPU reference: kELEMENT along each axis and kND with tuples of every
// length, INT32 and INT64 indices (negative ones too), every element size without a reduction (compared bit for
// bit), every reduction on every type it combines (8-, 16-, 32- and 64-bit elements through the word-wide
// compare-and-swap), FP16 precision, an input of many blocks and empty tensors. Reductions over duplicate indices use
// small integers, whose sums, products, maxima and minima come out the same in any order. What the CPU reference
// rejects or leaves to the backend is checked by hand: duplicate indices without a reduction keep one of their
// updates, out-of-range indices are skipped (backend/cuda/kernels/tensor/scatter.cu). Without a GPU, that the CUDA plan
// builds.
#include "backend_comparison.h"

#include <kiln/ScatterReduction.h>

#include <cstdint>
#include <numeric>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::ScatterReduction;

struct ScatterCase
{
    ScatterMode mode{ScatterMode::kELEMENT};
    int32_t axis{0};
    Dims data;
    Dims indices;
    ScatterReduction reduction{ScatterReduction::kNONE};
};

//! The updates' dims: the indices' for kELEMENT; for kND the indices' but the last, then the data's from k on.
Dims updatesDimsOf(ScatterCase const& c)
{
    if (c.mode == ScatterMode::kELEMENT)
    {
        return c.indices;
    }
    Dims dims{0, {}};
    for (int32_t d = 0; d + 1 < c.indices.nbDims; ++d)
    {
        dims.d[dims.nbDims++] = c.indices.d[d];
    }
    for (auto d = static_cast<int32_t>(c.indices.d[c.indices.nbDims - 1]); d < c.data.nbDims; ++d)
    {
        dims.d[dims.nbDims++] = c.data.d[d];
    }
    return dims;
}

std::string describe(DataType type, ScatterCase const& c)
{
    return kiln::dataTypeName(type) + (c.mode == ScatterMode::kND ? " kND" : " kELEMENT axis " + std::to_string(c.axis))
        + " data " + std::to_string(volumeOf(c.data)) + " indices " + std::to_string(volumeOf(c.indices))
        + " reduction " + std::to_string(static_cast<int32_t>(c.reduction));
}

NetworkMaker scatterOf(DataType type, DataType indexType, ScatterCase const& c)
{
    return [=](INetworkDefinition& network) {
        ITensor* data = network.addInput("data", type, c.data);
        ITensor* indices = network.addInput("indices", indexType, c.indices);
        ITensor* updates = network.addInput("updates", type, updatesDimsOf(c));
        IScatterLayer* layer = network.addScatter(*data, *indices, *updates, c.mode);
        ASSERT_NE(layer, nullptr);
        layer->setAxis(c.axis);
        ASSERT_TRUE(kiln::setScatterReduction(*layer, c.reduction));
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

//! Small integers (so that reductions are exact in any order) of `type`, shifted by `seed`.
HostTensor valuesOf(DataType type, Dims const& dims, int64_t seed)
{
    std::vector<int64_t> values(volumeOf(dims));
    for (size_t i = 0; i < values.size(); ++i)
    {
        auto const n = static_cast<int64_t>(i) + seed;
        values[i] = type == DataType::kBOOL ? (n * 7 + n / 3) % 2 : (n * 37 % 5) - (type == DataType::kUINT8 ? 0 : 2);
    }
    if (!kiln::isFloatType(type))
    {
        return fromInts(shapeOf(dims), values, type);
    }
    return fromFloats(shapeOf(dims), std::vector<float>(values.begin(), values.end()), type);
}

//! `count` indices into `space` positions: slot s picks (s * step + shift) % space, all different while
//! count <= space, repeating beyond; every third one counts from the end.
std::vector<int64_t> spreadIndices(int64_t count, int64_t space, int64_t shift)
{
    int64_t step = 7;
    while (std::gcd(step, space) != 1)
    {
        step += 2;
    }
    std::vector<int64_t> picks(static_cast<size_t>(count));
    for (int64_t s = 0; s < count; ++s)
    {
        int64_t const pick = (s * step + shift) % space;
        picks[static_cast<size_t>(s)] = s % 3 == 1 ? pick - space : pick;
    }
    return picks;
}

//! kELEMENT indices: along the axis, each line of the indices picks distinct positions while it is no longer than
//! the data's axis. kND indices: tuples of coordinates, distinct while there are no more than the places they address.
HostTensor indicesOf(DataType indexType, ScatterCase const& c)
{
    std::vector<int64_t> values(volumeOf(c.indices));
    if (c.mode == ScatterMode::kELEMENT)
    {
        int32_t const axis = c.axis < 0 ? c.axis + c.data.nbDims : c.axis;
        int64_t inner = 1;
        for (int32_t d = axis + 1; d < c.indices.nbDims; ++d)
        {
            inner *= c.indices.d[d];
        }
        int64_t const lineLength = c.indices.d[axis];
        for (int64_t line = 0; line * lineLength < static_cast<int64_t>(values.size()); ++line)
        {
            int64_t const outer = line / inner;
            std::vector<int64_t> const picks = spreadIndices(lineLength, c.data.d[axis], line);
            for (int64_t j = 0; j < lineLength; ++j)
            {
                values[static_cast<size_t>((outer * lineLength + j) * inner + line % inner)]
                    = picks[static_cast<size_t>(j)];
            }
        }
        return fromInts(shapeOf(c.indices), values, indexType);
    }
    auto const k = static_cast<int32_t>(c.indices.d[c.indices.nbDims - 1]);
    int64_t const tuples = static_cast<int64_t>(values.size()) / k;
    int64_t space = 1;
    for (int32_t d = 0; d < k; ++d)
    {
        space *= c.data.d[d];
    }
    std::vector<int64_t> const picks = spreadIndices(tuples, space, 3);
    for (int64_t t = 0; t < tuples; ++t)
    {
        int64_t place = picks[static_cast<size_t>(t)] < 0 ? picks[static_cast<size_t>(t)] + space
                                                          : picks[static_cast<size_t>(t)];
        for (int32_t d = k - 1; d >= 0; --d)
        {
            // Every third coordinate counts from the end.
            int64_t const coordinate = place % c.data.d[d];
            values[static_cast<size_t>(t * k + d)] = (t + d) % 3 == 1 ? coordinate - c.data.d[d] : coordinate;
            place /= c.data.d[d];
        }
    }
    return fromInts(shapeOf(c.indices), values, indexType);
}

void expectAgree(DataType type, DataType indexType, ScatterCase const& c, bool fp16 = false)
{
    expectBackendsAgree(scatterOf(type, indexType, c),
        {{"data", valuesOf(type, c.data, 0)}, {"indices", indicesOf(indexType, c)},
            {"updates", valuesOf(type, updatesDimsOf(c), 11)}},
        fp16, describe(type, c) + (fp16 ? " fp16" : ""));
}

ScatterCase const kElementCase{ScatterMode::kELEMENT, 1, Dims{3, {3, 5, 4}}, Dims{3, {2, 5, 3}}};
ScatterCase const kNdCase{ScatterMode::kND, 0, Dims{3, {3, 5, 4}}, Dims{2, {9, 2}}};

TEST(CudaBackendScatter, BuildsForTheCudaBackendWithoutAGpu)
{
    for (ScatterCase const& c : {kElementCase, kNdCase})
    {
        kiln::plan::PlanModel const model = cudaPlanOf(scatterOf(DataType::kFLOAT, DataType::kINT64, c), true);
        EXPECT_EQ(layersOfKind(model, LayerType::kSCATTER), 1);
    }
}

TEST(CudaBackendScatter, ElementAlongEveryAxisAndNdTuplesOfEveryLength)
{
    SKIP_WITHOUT_GPU();
    std::vector<ScatterCase> cases;
    for (int32_t axis = 0; axis < 3; ++axis)
    {
        cases.push_back({ScatterMode::kELEMENT, axis, Dims{3, {4, 5, 6}}, Dims{3, {3, 4, 5}}});
    }
    cases.push_back({ScatterMode::kELEMENT, -1, Dims{2, {4, 6}}, Dims{2, {4, 6}}});
    for (int64_t k = 1; k <= 3; ++k)
    {
        cases.push_back({ScatterMode::kND, 0, Dims{3, {4, 5, 6}}, Dims{3, {2, 2, k}}});
    }
    for (ScatterCase const& c : cases)
    {
        for (DataType indexType : {DataType::kINT32, DataType::kINT64})
        {
            expectAgree(DataType::kFLOAT, indexType, c);
        }
        expectAgree(DataType::kFLOAT, DataType::kINT64, c, true);
    }
}

TEST(CudaBackendScatter, EveryElementSizeBitForBit)
{
    SKIP_WITHOUT_GPU();
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
             DataType::kBOOL, DataType::kINT32, DataType::kINT64})
    {
        expectAgree(type, DataType::kINT64, kElementCase);
        expectAgree(type, DataType::kINT32, kNdCase);
    }
}

TEST(CudaBackendScatter, EveryReductionOnEveryTypeItCombines)
{
    SKIP_WITHOUT_GPU();
    // Twice as many updates as places along the axis, and 30 tuples for 15 places: every element gets two.
    ScatterCase element{ScatterMode::kELEMENT, 1, Dims{3, {3, 5, 4}}, Dims{3, {3, 10, 4}}};
    ScatterCase tuples{ScatterMode::kND, 0, Dims{3, {3, 5, 2}}, Dims{2, {30, 2}}};
    for (ScatterReduction reduction :
        {ScatterReduction::kADD, ScatterReduction::kMUL, ScatterReduction::kMAX, ScatterReduction::kMIN})
    {
        element.reduction = reduction;
        tuples.reduction = reduction;
        for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
                 DataType::kINT32, DataType::kINT64})
        {
            expectAgree(type, DataType::kINT64, element);
            expectAgree(type, DataType::kINT32, tuples);
        }
        expectAgree(DataType::kFLOAT, DataType::kINT64, element, true);
    }
}

TEST(CudaBackendScatter, InputSpanningManyBlocks)
{
    SKIP_WITHOUT_GPU();
    // 300,000 updates: 1,172 blocks.
    expectAgree(DataType::kFLOAT, DataType::kINT32,
        {ScatterMode::kELEMENT, 2, Dims{3, {30, 100, 128}}, Dims{3, {30, 100, 100}}});
    expectAgree(DataType::kHALF, DataType::kINT64,
        {ScatterMode::kND, 0, Dims{3, {60, 50, 100}}, Dims{2, {3000, 2}}, ScatterReduction::kADD});
}

TEST(CudaBackendScatter, EmptyTensors)
{
    SKIP_WITHOUT_GPU();
    expectAgree(DataType::kFLOAT, DataType::kINT64, {ScatterMode::kND, 0, Dims{2, {3, 4}}, Dims{2, {0, 1}}});
    expectAgree(DataType::kFLOAT, DataType::kINT64, {ScatterMode::kELEMENT, 1, Dims{2, {3, 4}}, Dims{2, {3, 0}}});
    expectAgree(DataType::kFLOAT, DataType::kINT64, {ScatterMode::kELEMENT, 1, Dims{2, {0, 4}}, Dims{2, {0, 2}}});
}

TEST(CudaBackendScatter, DuplicateIndicesKeepOneOfTheirUpdates)
{
    SKIP_WITHOUT_GPU();
    ScatterCase const c{ScatterMode::kND, 0, Dims{1, {3}}, Dims{2, {4, 1}}};
    auto const outputs = runOn(kiln::Backend::kCUDA, scatterOf(DataType::kFLOAT, DataType::kINT64, c),
        {{"data", fromFloats({3}, {1, 2, 3})}, {"indices", fromInts({4, 1}, {0, 2, 0, 0}, DataType::kINT64)},
            {"updates", fromFloats({4}, {10, 20, 30, 40})}});
    ASSERT_EQ(outputs.count("y"), 1U);
    std::vector<float> const y = outputs.at("y").floats();
    ASSERT_EQ(y.size(), 3U);
    EXPECT_TRUE(y[0] == 10 || y[0] == 30 || y[0] == 40) << y[0];
    EXPECT_EQ(y[1], 2);
    EXPECT_EQ(y[2], 20);
}

TEST(CudaBackendScatter, IndicesOutOfRangeAreSkipped)
{
    SKIP_WITHOUT_GPU();
    // The CPU reference rejects 3 and -4 along an axis of 3; the GPU cannot report them and skips their updates.
    ScatterCase const element{ScatterMode::kELEMENT, 1, Dims{2, {2, 3}}, Dims{2, {2, 2}}};
    auto const skipped = runOn(kiln::Backend::kCUDA, scatterOf(DataType::kFLOAT, DataType::kINT32, element),
        {{"data", fromFloats({2, 3}, {1, 2, 3, 4, 5, 6})},
            {"indices", fromInts({2, 2}, {3, 0, -1, -4}, DataType::kINT32)},
            {"updates", fromFloats({2, 2}, {10, 20, 30, 40})}});
    ASSERT_EQ(skipped.count("y"), 1U);
    EXPECT_EQ(skipped.at("y").floats(), (std::vector<float>{20, 2, 3, 4, 5, 30}));
    // A kND tuple with one bad coordinate skips its whole slice.
    ScatterCase const tuples{ScatterMode::kND, 0, Dims{2, {2, 3}}, Dims{2, {2, 1}}, ScatterReduction::kADD};
    auto const sliced = runOn(kiln::Backend::kCUDA, scatterOf(DataType::kFLOAT, DataType::kINT64, tuples),
        {{"data", fromFloats({2, 3}, {1, 2, 3, 4, 5, 6})}, {"indices", fromInts({2, 1}, {2, 1}, DataType::kINT64)},
            {"updates", fromFloats({2, 3}, {10, 20, 30, 40, 50, 60})}});
    ASSERT_EQ(sliced.count("y"), 1U);
    EXPECT_EQ(sliced.at("y").floats(), (std::vector<float>{1, 2, 3, 44, 55, 66}));
}

} // namespace
