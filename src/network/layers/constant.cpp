#include "network/layers/constant.h"

#include "core/data_type.h"
#include "network/layers/layer_utils.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

namespace kiln::network
{
namespace
{

//! Constants with at most this many values are treated as shape tensors when they are integers.
constexpr int64_t kMaxShapeValues = nvinfer1::Dims::MAX_DIMS;
//! FLOAT holds every whole number up to this magnitude exactly.
constexpr float kLargestExactFloat = 16777216.0F;

//! The constant's values as shape values: INT32 and INT64 ones, and FLOAT ones that are all whole numbers (the
//! 1.0 that sizes are divided by in torchvision's detection transform); none for other constants.
std::optional<std::vector<nvinfer1::IDimensionExpr const*>> knownValues(
    nvinfer1::IExprBuilder& builder, WeightsBuffer const& weights, int64_t volume)
{
    auto const* bytes = static_cast<uint8_t const*>(weights.data());
    std::vector<nvinfer1::IDimensionExpr const*> values;
    for (int64_t i = 0; i < volume; ++i)
    {
        int64_t value = 0;
        if (weights.type() == nvinfer1::DataType::kINT32)
        {
            int32_t narrow = 0;
            std::memcpy(&narrow, bytes + i * sizeof(int32_t), sizeof(narrow));
            value = narrow;
        }
        else if (weights.type() == nvinfer1::DataType::kINT64)
        {
            std::memcpy(&value, bytes + i * sizeof(int64_t), sizeof(value));
        }
        else if (weights.type() == nvinfer1::DataType::kFLOAT)
        {
            float real = 0.0F;
            std::memcpy(&real, bytes + i * sizeof(float), sizeof(real));
            if (!(std::fabs(real) <= kLargestExactFloat) || std::trunc(real) != real)
            {
                return std::nullopt;
            }
            value = static_cast<int64_t>(real);
        }
        else
        {
            return std::nullopt;
        }
        values.push_back(builder.constant(value));
    }
    return values;
}

} // namespace

bool ConstantParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 0)
    {
        return ctx.fail("a constant layer takes no inputs");
    }
    int64_t const volume = dimsVolume(dimensions);
    if (weights.count() != volume)
    {
        return ctx.fail("the weights hold " + std::to_string(weights.count()) + " values but the dimensions need "
            + std::to_string(volume));
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < dimensions.nbDims; ++i)
    {
        dims.push_back(ctx.constant(dimensions.d[i]));
    }
    if (!ctx.setOutput(0, weights.type(), dims))
    {
        return false;
    }
    if (dimensions.nbDims <= 1 && volume <= kMaxShapeValues)
    {
        ctx.output(0).values = knownValues(ctx.builder(), weights, volume);
    }
    return true;
}

} // namespace kiln::network
