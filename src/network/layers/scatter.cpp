#include "network/layers/scatter.h"

#include "core/data_type.h"
#include "core/logging.h"
#include "network/layers/layer_utils.h"

namespace kiln::network
{
namespace
{

using nvinfer1::ScatterMode;

constexpr char const* kData = "the scatter data (input 0)";
constexpr char const* kIndices = "the scatter indices (input 1)";
constexpr char const* kUpdates = "the scatter updates (input 2)";

bool checkTypes(InferenceContext& ctx)
{
    nvinfer1::DataType const type = ctx.input(0).type;
    if (elementSize(type) == 0)
    {
        return ctx.fail(std::string(kData) + " cannot be " + dataTypeName(type) + " (not byte-addressable)");
    }
    if (ctx.rank(0) < 1)
    {
        return ctx.fail(std::string(kData) + " must have rank 1 or more, not 0");
    }
    if (!isIndexType(ctx.input(1).type))
    {
        return ctx.fail(std::string(kIndices) + " must be INT32 or INT64, not " + dataTypeName(ctx.input(1).type));
    }
    if (ctx.input(2).type != type)
    {
        return ctx.fail(std::string(kUpdates) + " must have the data's type " + dataTypeName(type) + ", not "
            + dataTypeName(ctx.input(2).type));
    }
    return true;
}

//! Fails unless the updates have `expected`'s rank and, where both are known, its extents; `what` says whose.
bool checkUpdatesShape(InferenceContext& ctx, std::vector<Dim> const& expected, std::string const& what)
{
    if (ctx.rank(2) != static_cast<int32_t>(expected.size()))
    {
        return ctx.fail(std::string(kUpdates) + " must have rank " + std::to_string(expected.size()) + " (" + what
            + "), not " + std::to_string(ctx.rank(2)));
    }
    for (int32_t d = 0; d < ctx.rank(2); ++d)
    {
        Dim const actual = ctx.dim(2, d);
        Dim const wanted = expected[static_cast<size_t>(d)];
        if (actual.isConstant() && wanted.isConstant() && actual.constant() != wanted.constant())
        {
            return ctx.fail(std::string(kUpdates) + " have extent " + std::to_string(actual.constant()) + " in dim "
                + std::to_string(d) + " where " + what + " give " + std::to_string(wanted.constant()));
        }
    }
    return true;
}

//! kELEMENT: indices of the data's rank, and updates of the indices' shape.
bool checkElementShapes(InferenceContext& ctx)
{
    int32_t const rank = ctx.rank(0);
    if (ctx.rank(1) != rank)
    {
        return ctx.fail(std::string(kIndices) + " of a kELEMENT scatter must have the data's rank "
            + std::to_string(rank) + ", not " + std::to_string(ctx.rank(1)));
    }
    std::vector<Dim> expected;
    for (int32_t d = 0; d < rank; ++d)
    {
        expected.push_back(ctx.dim(1, d));
    }
    return checkUpdatesShape(ctx, expected, "the indices' extents");
}

//! kND: tuples of k coordinates, k known and in [1, rank], and updates [indices dims but the last, data dims from k].
bool checkNdShapes(InferenceContext& ctx)
{
    int32_t const rank = ctx.rank(0);
    int32_t const indicesRank = ctx.rank(1);
    if (indicesRank < 1)
    {
        return ctx.fail(std::string(kIndices) + " of a kND scatter must have rank 1 or more, not 0");
    }
    Dim const k = ctx.dim(1, indicesRank - 1);
    if (!k.isConstant())
    {
        return ctx.fail(std::string("the last dim of ") + kIndices + " (the coordinates per tuple) of a kND scatter "
            + "must be known when the network is built");
    }
    if (k.constant() < 1 || k.constant() > rank)
    {
        return ctx.fail(std::string(kIndices) + " hold tuples of " + std::to_string(k.constant())
            + " coordinates; a kND scatter into data of rank " + std::to_string(rank) + " takes 1 to "
            + std::to_string(rank));
    }
    std::vector<Dim> expected;
    for (int32_t d = 0; d + 1 < indicesRank; ++d)
    {
        expected.push_back(ctx.dim(1, d));
    }
    for (auto d = static_cast<int32_t>(k.constant()); d < rank; ++d)
    {
        expected.push_back(ctx.dim(0, d));
    }
    return checkUpdatesShape(ctx, expected, "the indices' tuples and the data's slices");
}

//! kELEMENT, when building: the axis addresses the data, and the indices fit in the data off the axis.
bool checkElementAxis(InferenceContext& ctx, int32_t axis)
{
    int32_t const rank = ctx.rank(0);
    int32_t const normalized = normalizeAxis(axis, rank);
    if (normalized < 0)
    {
        return ctx.fail("the scatter axis " + std::to_string(axis) + " is out of range [-" + std::to_string(rank) + ", "
            + std::to_string(rank) + ") for data of rank " + std::to_string(rank));
    }
    for (int32_t d = 0; d < rank; ++d)
    {
        Dim const indices = ctx.dim(1, d);
        Dim const data = ctx.dim(0, d);
        if (d != normalized && indices.isConstant() && data.isConstant() && indices.constant() > data.constant())
        {
            return ctx.fail(std::string(kIndices) + " have extent " + std::to_string(indices.constant()) + " in dim "
                + std::to_string(d) + ", beyond the data's " + std::to_string(data.constant()) + " (only the axis "
                + std::to_string(normalized) + " may differ)");
        }
    }
    return true;
}

//! When building: an arithmetic reduction needs numeric data.
bool checkReduction(InferenceContext& ctx, ScatterReduction reduction)
{
    nvinfer1::DataType const type = ctx.input(0).type;
    if (reduction != ScatterReduction::kNONE && !ScatterParams::isReducibleType(type))
    {
        return ctx.fail(std::string("a scatter with reduction ") + scatterReductionName(reduction)
            + " needs FLOAT, HALF, BF16, INT8, UINT8, INT32 or INT64 data, not " + dataTypeName(type));
    }
    return true;
}

//! `element` combined with `update` as `reduction` says, as a dimension expression.
nvinfer1::IDimensionExpr const* combined(InferenceContext& ctx, ScatterReduction reduction,
    nvinfer1::IDimensionExpr const* element, nvinfer1::IDimensionExpr const* update)
{
    using nvinfer1::DimensionOperation;
    switch (reduction)
    {
    case ScatterReduction::kADD: return ctx.builder().operation(DimensionOperation::kSUM, *element, *update);
    case ScatterReduction::kMUL: return ctx.builder().operation(DimensionOperation::kPROD, *element, *update);
    case ScatterReduction::kMAX: return ctx.builder().operation(DimensionOperation::kMAX, *element, *update);
    case ScatterReduction::kMIN: return ctx.builder().operation(DimensionOperation::kMIN, *element, *update);
    case ScatterReduction::kNONE: break;
    }
    return update;
}

//! Scattering into a 1-D shape tensor at constant positions keeps its values known. After the shape checks, 1-D
//! indices are kELEMENT's one index per update, or kND's one tuple of one coordinate for a 0-D update.
void propagateValues(InferenceContext& ctx, ScatterReduction reduction)
{
    TensorFacts const& data = ctx.input(0);
    TensorFacts const& indices = ctx.input(1);
    TensorFacts const& updates = ctx.input(2);
    if (!data.values || data.dims.nbDims != 1 || !indices.values || indices.dims.nbDims != 1 || !updates.values
        || updates.values->size() != indices.values->size())
    {
        return;
    }
    std::vector<nvinfer1::IDimensionExpr const*> values = *data.values;
    auto const extent = static_cast<int64_t>(values.size());
    for (size_t u = 0; u < indices.values->size(); ++u)
    {
        nvinfer1::IDimensionExpr const* index = (*indices.values)[u];
        int64_t const raw = index->isConstant() ? index->getConstantValue() : extent;
        int64_t const position = raw < 0 ? raw + extent : raw;
        if (position < 0 || position >= extent)
        {
            return; // unknown, or out of range: the kernels report it
        }
        auto& element = values[static_cast<size_t>(position)];
        element = combined(ctx, reduction, element, (*updates.values)[u]);
    }
    ctx.output(0).values = std::move(values);
}

} // namespace

char const* scatterReductionName(ScatterReduction reduction)
{
    switch (reduction)
    {
    case ScatterReduction::kNONE: return "none";
    case ScatterReduction::kADD: return "add";
    case ScatterReduction::kMUL: return "mul";
    case ScatterReduction::kMAX: return "max";
    case ScatterReduction::kMIN: return "min";
    }
    return "unknown";
}

bool ScatterParams::isReducibleType(nvinfer1::DataType type)
{
    return isFloatType(type) || isIntegerType(type);
}

bool ScatterParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 3 || !ctx.hasInput(0) || !ctx.hasInput(1) || !ctx.hasInput(2))
    {
        return ctx.fail("a scatter layer takes data, indices and updates");
    }
    if (!checkTypes(ctx))
    {
        return false;
    }
    bool const element = mode == ScatterMode::kELEMENT;
    if (!(element ? checkElementShapes(ctx) : checkNdShapes(ctx)))
    {
        return false;
    }
    // The axis and the reduction are set after the layer is added (TensorRT's API); the output's shape does not
    // depend on them.
    if (ctx.building() && ((element && !checkElementAxis(ctx, axis)) || !checkReduction(ctx, reduction)))
    {
        return false;
    }
    std::vector<Dim> dims;
    for (int32_t d = 0; d < ctx.rank(0); ++d)
    {
        dims.push_back(ctx.dim(0, d));
    }
    if (!ctx.setOutput(0, ctx.input(0).type, dims))
    {
        return false;
    }
    propagateValues(ctx, reduction);
    return true;
}

void ScatterLayer::setMode(nvinfer1::ScatterMode mode) noexcept
{
    int32_t const value = static_cast<int32_t>(mode);
    if (value < 0 || value >= nvinfer1::EnumMax<nvinfer1::ScatterMode>())
    {
        logError(
            "IScatterLayer::setMode: layer \"" + name() + "\": " + std::to_string(value) + " is not a ScatterMode");
        return;
    }
    network().invalidate();
    mutableParams().mode = mode;
}

bool ScatterLayer::setReduction(ScatterReduction reduction)
{
    int32_t const value = static_cast<int32_t>(reduction);
    if (value < 0 || value >= nvinfer1::EnumMax<ScatterReduction>())
    {
        return false;
    }
    network().invalidate();
    mutableParams().reduction = reduction;
    return true;
}

} // namespace kiln::network

namespace kiln
{

bool setScatterReduction(nvinfer1::IScatterLayer& layer, ScatterReduction reduction) noexcept
{
    auto* ours = dynamic_cast<network::ScatterLayer*>(&layer);
    return ours != nullptr && ours->setReduction(reduction);
}

ScatterReduction getScatterReduction(nvinfer1::IScatterLayer const& layer) noexcept
{
    auto const* ours = dynamic_cast<network::ScatterLayer const*>(&layer);
    return ours ? ours->reduction() : ScatterReduction::kNONE;
}

} // namespace kiln
