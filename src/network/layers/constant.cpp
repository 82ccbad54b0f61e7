#include "network/layers/constant.h"

#include "core/data_type.h"
#include "network/layers/layer_utils.h"

#include <cstring>

namespace kiln::network
{
namespace
{

//! Constants with at most this many values are treated as shape tensors when they are integers.
constexpr int64_t kMaxShapeValues = nvinfer1::Dims::MAX_DIMS;

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
    if (isIndexType(weights.type()) && dimensions.nbDims <= 1 && volume <= kMaxShapeValues)
    {
        std::vector<nvinfer1::IDimensionExpr const*> values;
        for (int64_t i = 0; i < volume; ++i)
        {
            int64_t value = 0;
            if (weights.type() == nvinfer1::DataType::kINT32)
            {
                int32_t narrow = 0;
                std::memcpy(&narrow, static_cast<uint8_t const*>(weights.data()) + i * sizeof(int32_t), sizeof(narrow));
                value = narrow;
            }
            else
            {
                std::memcpy(&value, static_cast<uint8_t const*>(weights.data()) + i * sizeof(int64_t), sizeof(value));
            }
            values.push_back(ctx.builder().constant(value));
        }
        ctx.output(0).values = std::move(values);
    }
    return true;
}

} // namespace kiln::network
