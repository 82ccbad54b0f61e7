#include "network/layers/slice.h"

#include "core/data_type.h"
#include "core/logging.h"
#include "network/layers/layer_utils.h"

#include <algorithm>
#include <optional>

namespace kiln::network
{
namespace
{

char const* const kParamNames[] = {"start", "size", "stride"};

//! One of start/size/stride as expressions: from shape-tensor input `index` when given, else the static dims.
bool sliceParam(InferenceContext& ctx, int32_t index, nvinfer1::Dims const& fixed, std::vector<Dim>& result)
{
    int32_t const rank = ctx.rank(0);
    char const* const name = kParamNames[index - 1];
    result.clear();
    if (ctx.hasInput(index))
    {
        TensorFacts const& facts = ctx.input(index);
        if (facts.dims.nbDims != 1 || !facts.values || !isIndexType(facts.type))
        {
            return ctx.fail(std::string("the slice ") + name + " (input " + std::to_string(index)
                + ") must be a 1-D INT32 or INT64 shape tensor whose values are known while shapes are inferred");
        }
        for (auto const* value : *facts.values)
        {
            result.push_back(Dim(ctx.builder(), value));
        }
    }
    else
    {
        for (int32_t i = 0; i < fixed.nbDims; ++i)
        {
            result.push_back(ctx.constant(fixed.d[i]));
        }
    }
    if (static_cast<int32_t>(result.size()) != rank)
    {
        return ctx.fail(std::string("the slice ") + name + " has " + std::to_string(result.size())
            + " entries but the input has rank " + std::to_string(rank));
    }
    return true;
}

//! The input coordinate `coordinate` reads along an axis of `extent` under `mode`; nullopt for the fill value
//! or a coordinate the mode cannot sample.
std::optional<int64_t> sampled(int64_t coordinate, int64_t extent, nvinfer1::SampleMode mode)
{
    if (coordinate >= 0 && coordinate < extent)
    {
        return coordinate;
    }
    if (extent <= 0)
    {
        return std::nullopt;
    }
    switch (mode)
    {
    case nvinfer1::SampleMode::kWRAP: return ((coordinate % extent) + extent) % extent;
    case nvinfer1::SampleMode::kCLAMP: return coordinate < 0 ? 0 : extent - 1;
    case nvinfer1::SampleMode::kREFLECT:
    {
        if (extent == 1)
        {
            return 0;
        }
        int64_t const period = 2 * (extent - 1);
        int64_t const folded = ((coordinate % period) + period) % period;
        return folded < extent ? folded : period - folded;
    }
    default: return std::nullopt;
    }
}

//! Slicing known values with constant parameters keeps them known: Shape -> Slice -> Reshape, and Pad's pads that
//! exporters reshape to [rank, 2] and reverse with a step of -1.
void propagateValues(InferenceContext& ctx, std::vector<Dim> const& starts, std::vector<Dim> const& sizes,
    std::vector<Dim> const& strides, nvinfer1::SampleMode mode)
{
    TensorFacts const& data = ctx.input(0);
    std::optional<std::vector<int64_t>> const extents = constantExtents(data.dims);
    std::optional<std::vector<int64_t>> const first = constantExtents(starts);
    std::optional<std::vector<int64_t>> const count = constantExtents(sizes);
    std::optional<std::vector<int64_t>> const step = constantExtents(strides);
    if (!data.values || !extents || !first || !count || !step)
    {
        return;
    }
    // A fill value (or an error the runtime reports) is not a known value: then the output is an ordinary tensor.
    ctx.output(0).values = gatherValues(*data.values, *count, [&](std::vector<int64_t> const& at) {
        int64_t flat = 0;
        for (size_t axis = 0; axis < at.size(); ++axis)
        {
            int64_t coordinate = 0; // start + i * stride, with a model's start and stride: unknown if it overflows
            bool const overflows = __builtin_mul_overflow(at[axis], (*step)[axis], &coordinate)
                || __builtin_add_overflow(coordinate, (*first)[axis], &coordinate);
            std::optional<int64_t> const from = overflows ? std::nullopt : sampled(coordinate, (*extents)[axis], mode);
            if (!from)
            {
                return std::optional<int64_t>{};
            }
            flat = flat * (*extents)[axis] + *from;
        }
        return std::optional<int64_t>{flat};
    });
}

} // namespace

bool SliceParams::infer(InferenceContext& ctx) const
{
    if (!ctx.hasInput(0) || ctx.nbInputs() > 5)
    {
        return ctx.fail("a slice takes a data input and optional start, size, stride and fill inputs");
    }
    int32_t const rank = ctx.rank(0);
    std::vector<Dim> starts;
    std::vector<Dim> sizes;
    std::vector<Dim> strides;
    if (!sliceParam(ctx, 1, start, starts) || !sliceParam(ctx, 2, size, sizes) || !sliceParam(ctx, 3, stride, strides))
    {
        return false;
    }
    for (int32_t i = 0; i < rank; ++i)
    {
        if (sizes[i].isConstant() && sizes[i].constant() < 0)
        {
            return ctx.fail(
                "slice size " + std::to_string(i) + " is negative (" + std::to_string(sizes[i].constant()) + ")");
        }
        Dim const extent = ctx.dim(0, i);
        bool const known = starts[i].isConstant() && sizes[i].isConstant() && strides[i].isConstant();
        if (!known || sizes[i].constant() == 0)
        {
            continue;
        }
        int64_t const first = starts[i].constant();
        int64_t span = 0;
        int64_t last = 0;
        // A plan or a network may hold any 64-bit start and stride: in every mode the last coordinate must not wrap
        // around (the kernels compute each coordinate before sampling it).
        if (__builtin_mul_overflow(sizes[i].constant() - 1, strides[i].constant(), &span)
            || __builtin_add_overflow(first, span, &last))
        {
            return ctx.fail("slice along axis " + std::to_string(i) + ": its last coordinate, start "
                + std::to_string(first) + " + (size " + std::to_string(sizes[i].constant()) + " - 1) * stride "
                + std::to_string(strides[i].constant()) + ", does not fit in 64 bits");
        }
        if (mode == nvinfer1::SampleMode::kSTRICT_BOUNDS && extent.isConstant())
        {
            if (first < 0 || first >= extent.constant() || last < 0 || last >= extent.constant())
            {
                return ctx.fail("slice along axis " + std::to_string(i) + " reads coordinates " + std::to_string(first)
                    + " to " + std::to_string(last) + " outside the extent " + std::to_string(extent.constant())
                    + " (kSTRICT_BOUNDS)");
            }
        }
    }
    if (ctx.hasInput(4))
    {
        if (mode != nvinfer1::SampleMode::kFILL)
        {
            return ctx.fail("a slice fill value (input 4) needs SampleMode::kFILL");
        }
        if (ctx.rank(4) != 0 || ctx.input(4).type != ctx.input(0).type)
        {
            return ctx.fail("the slice fill value (input 4) must be a 0-D tensor of the data's type");
        }
    }
    if (!ctx.setOutput(0, ctx.input(0).type, sizes))
    {
        return false;
    }
    propagateValues(ctx, starts, sizes, strides, mode);
    return true;
}

nvinfer1::Dims SliceLayer::getAxes() const noexcept
{
    nvinfer1::Dims axes{};
    nvinfer1::ITensor const* data = getInput(0);
    axes.nbDims = data != nullptr ? std::max<int32_t>(data->getDimensions().nbDims, 0) : 0;
    for (int32_t i = 0; i < axes.nbDims; ++i)
    {
        axes.d[i] = i;
    }
    return axes;
}

void SliceLayer::setAxes(nvinfer1::Dims const& axes) noexcept
{
    nvinfer1::Dims const every = getAxes();
    bool same = axes.nbDims == every.nbDims;
    for (int32_t i = 0; same && i < axes.nbDims; ++i)
    {
        same = axes.d[i] == i || axes.d[i] == i - every.nbDims;
    }
    if (!same)
    {
        logError("ISliceLayer::setAxes: \"" + name()
            + "\": Kiln slices along every axis in order; give start, size and stride for each axis instead");
    }
}

} // namespace kiln::network
