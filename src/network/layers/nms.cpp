#include "network/layers/nms.h"

#include "core/data_type.h"
#include "core/logging.h"

#include <string>

namespace kiln::network
{
namespace
{

std::string operand(int32_t index)
{
    static char const* const kNames[]
        = {"the boxes", "the scores", "maxOutputBoxesPerClass", "the IoU threshold", "the score threshold"};
    return std::string(kNames[index]) + " (input " + std::to_string(index) + ")";
}

std::string describe(TensorFacts const& facts)
{
    return "a " + std::to_string(facts.dims.nbDims) + "-D " + dataTypeName(facts.type) + " tensor";
}

//! Input `index`, when given, must be a 0-D tensor of `type`.
bool checkScalar(InferenceContext& ctx, int32_t index, nvinfer1::DataType type)
{
    if (!ctx.hasInput(index))
    {
        return true;
    }
    TensorFacts const& facts = ctx.input(index);
    if (facts.type != type || facts.dims.nbDims != 0)
    {
        return ctx.fail(operand(index) + " must be a 0-D " + dataTypeName(type) + " tensor, not " + describe(facts));
    }
    return true;
}

bool checkTypesAndRanks(InferenceContext& ctx)
{
    TensorFacts const& boxes = ctx.input(NMSParams::kBoxes);
    TensorFacts const& scores = ctx.input(NMSParams::kScores);
    if (!isFloatType(boxes.type) || (boxes.dims.nbDims != 3 && boxes.dims.nbDims != 4))
    {
        return ctx.fail(operand(NMSParams::kBoxes)
            + " must be FLOAT, HALF or BF16 of shape [batch, boxes, 4] or [batch, boxes, classes, 4], not "
            + describe(boxes));
    }
    if (scores.type != boxes.type || scores.dims.nbDims != 3)
    {
        return ctx.fail(operand(NMSParams::kScores) + " must be a 3-D " + dataTypeName(boxes.type)
            + " tensor [batch, boxes, classes] (the boxes' type), not " + describe(scores));
    }
    return checkScalar(ctx, NMSParams::kMaxOutputBoxesPerClass, nvinfer1::DataType::kINT32)
        && checkScalar(ctx, NMSParams::kIoUThreshold, nvinfer1::DataType::kFLOAT)
        && checkScalar(ctx, NMSParams::kScoreThreshold, nvinfer1::DataType::kFLOAT);
}

//! Extents `a` (of the boxes) and `b` (of the scores) must agree where both are known.
bool checkSameExtent(InferenceContext& ctx, Dim a, Dim b, char const* what)
{
    if (a.isConstant() && b.isConstant() && a.constant() != b.constant())
    {
        return ctx.fail("the boxes have " + std::to_string(a.constant()) + " " + what + " but the scores "
            + std::to_string(b.constant()));
    }
    return true;
}

bool checkExtents(InferenceContext& ctx)
{
    int32_t const boxesRank = ctx.rank(NMSParams::kBoxes);
    Dim const coordinates = ctx.dim(NMSParams::kBoxes, boxesRank - 1);
    if (coordinates.isConstant() && coordinates.constant() != 4)
    {
        return ctx.fail(operand(NMSParams::kBoxes) + " must hold each box's 4 coordinates in its last axis, not "
            + std::to_string(coordinates.constant()));
    }
    return checkSameExtent(ctx, ctx.dim(NMSParams::kBoxes, 0), ctx.dim(NMSParams::kScores, 0), "batch items")
        && checkSameExtent(ctx, ctx.dim(NMSParams::kBoxes, 1), ctx.dim(NMSParams::kScores, 1), "boxes")
        && (boxesRank == 3
            || checkSameExtent(ctx, ctx.dim(NMSParams::kBoxes, 2), ctx.dim(NMSParams::kScores, 2), "classes"));
}

//! The most boxes the layer can select: batch * classes * boxes, each class's share limited by
//! maxOutputBoxesPerClass where its value is a build-time constant (a value known only at run time cannot bound the
//! memory planned, and an expression of a network input's value would make that input a shape tensor).
Dim mostSelected(InferenceContext& ctx)
{
    Dim perClass = ctx.dim(NMSParams::kBoxes, 1);
    TensorFacts const& limit = ctx.input(NMSParams::kMaxOutputBoxesPerClass);
    if (limit.values && limit.values->size() == 1 && limit.values->front()->isConstant())
    {
        int64_t const value = limit.values->front()->getConstantValue();
        perClass = perClass.min(ctx.constant(value > 0 ? value : 0));
    }
    return ctx.dim(NMSParams::kScores, 0) * ctx.dim(NMSParams::kScores, 2) * perClass;
}

} // namespace

void NMSLayer::setBoundingBoxFormat(nvinfer1::BoundingBoxFormat fmt) noexcept
{
    int32_t const value = static_cast<int32_t>(fmt);
    if (value < 0 || value >= nvinfer1::EnumMax<nvinfer1::BoundingBoxFormat>())
    {
        logError("INMSLayer::setBoundingBoxFormat: layer \"" + name() + "\": " + std::to_string(value)
            + " is not a BoundingBoxFormat");
        return;
    }
    network().invalidate();
    mutableParams().boxFormat = fmt;
}

void NMSLayer::setTopKBoxLimit(int32_t limit) noexcept
{
    if (limit < 0)
    {
        logError("INMSLayer::setTopKBoxLimit: layer \"" + name() + "\": the limit " + std::to_string(limit)
            + " is negative");
        return;
    }
    network().invalidate();
    mutableParams().topKBoxLimit = limit;
}

bool NMSLayer::setIndicesType(nvinfer1::DataType type) noexcept
{
    if (!isIndexType(type))
    {
        logError("INMSLayer::setIndicesType: the indices type must be INT32 or INT64, not " + dataTypeName(type));
        return false;
    }
    network().invalidate();
    mutableParams().indicesType = type;
    return true;
}

bool NMSParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() < 3 || ctx.nbInputs() > 5 || !ctx.hasInput(kBoxes) || !ctx.hasInput(kScores)
        || !ctx.hasInput(kMaxOutputBoxesPerClass))
    {
        return ctx.fail("an NMS layer takes the boxes, the scores and maxOutputBoxesPerClass, then optionally the IoU "
                        "and score thresholds");
    }
    if (!checkTypesAndRanks(ctx) || !checkExtents(ctx))
    {
        return false;
    }
    Dim const most = mostSelected(ctx);
    if (most.get() == nullptr)
    {
        return ctx.fail("the most boxes the layer can select could not be computed");
    }
    nvinfer1::IDimensionExpr const* count = ctx.builder().declareSizeTensor(1, *most.get(), *most.get());
    return ctx.setOutput(0, indicesType, {Dim(ctx.builder(), count), ctx.constant(3)})
        && ctx.setOutput(1, nvinfer1::DataType::kINT32, std::vector<Dim>{});
}

} // namespace kiln::network
