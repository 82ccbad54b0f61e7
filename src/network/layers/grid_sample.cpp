#include "network/layers/grid_sample.h"

#include "core/data_type.h"
#include "core/logging.h"

namespace kiln::network
{
namespace
{

//! The two inputs as errors name them, with the layout each must have.
constexpr char const* kOperandNames[2] = {"the grid sample input (input 0)", "the grid sample grid (input 1)"};
constexpr char const* kOperandLayouts[2] = {"[N, C, H, W]", "[N, H_out, W_out, 2]"};

} // namespace

bool GridSampleParams::isSupportedSampleMode(nvinfer1::SampleMode mode)
{
    return mode == nvinfer1::SampleMode::kFILL || mode == nvinfer1::SampleMode::kCLAMP
        || mode == nvinfer1::SampleMode::kREFLECT;
}

bool GridSampleParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.fail("a grid sample layer takes an input and a grid");
    }
    for (int32_t index = 0; index < 2; ++index)
    {
        nvinfer1::DataType const type = ctx.input(index).type;
        std::string const operand = kOperandNames[index];
        if (!isFloatType(type))
        {
            return ctx.fail(operand + " must be FLOAT, HALF or BF16, not " + dataTypeName(type));
        }
        if (ctx.rank(index) != 4)
        {
            return ctx.fail(
                operand + " must have rank 4 " + kOperandLayouts[index] + ", not " + std::to_string(ctx.rank(index)));
        }
    }
    nvinfer1::DataType const type = ctx.input(0).type;
    if (ctx.input(1).type != type)
    {
        return ctx.fail("the grid sample grid (input 1) must have the input's type " + dataTypeName(type) + ", not "
            + dataTypeName(ctx.input(1).type));
    }
    // Extents known only at run time are checked by the kernels.
    Dim const coordinates = ctx.dim(1, 3);
    if (coordinates.isConstant() && coordinates.constant() != 2)
    {
        return ctx.fail("the grid sample grid's last dim must hold the 2 coordinates (x, y), not "
            + std::to_string(coordinates.constant()));
    }
    Dim const inputBatch = ctx.dim(0, 0);
    Dim const gridBatch = ctx.dim(1, 0);
    if (inputBatch.isConstant() && gridBatch.isConstant() && inputBatch.constant() != gridBatch.constant())
    {
        return ctx.fail("the grid sample grid's batch " + std::to_string(gridBatch.constant())
            + " differs from the input's " + std::to_string(inputBatch.constant()));
    }
    return ctx.setOutput(0, type, {inputBatch, ctx.dim(0, 1), ctx.dim(1, 1), ctx.dim(1, 2)});
}

void GridSampleLayer::setInterpolationMode(nvinfer1::InterpolationMode mode) noexcept
{
    int32_t const value = static_cast<int32_t>(mode);
    if (value < 0 || value >= nvinfer1::EnumMax<nvinfer1::InterpolationMode>())
    {
        logError("IGridSampleLayer::setInterpolationMode: layer \"" + name() + "\": " + std::to_string(value)
            + " is not an InterpolationMode");
        return;
    }
    network().invalidate();
    mutableParams().interpolationMode = mode;
}

bool GridSampleLayer::setSampleMode(nvinfer1::SampleMode mode) noexcept
{
    if (!GridSampleParams::isSupportedSampleMode(mode))
    {
        return false;
    }
    network().invalidate();
    mutableParams().sampleMode = mode;
    return true;
}

} // namespace kiln::network
