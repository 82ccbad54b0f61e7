#include "backend/cpu/kernels/nn/broadcast.h"

#include "backend/cpu/kernels/nn/element_access.h"

#include <stdexcept>
#include <string>

namespace kiln::cpu
{

Shape broadcastShape(std::initializer_list<Shape> shapes)
{
    if (shapes.size() == 0)
    {
        return {};
    }
    Shape result = *shapes.begin();
    for (Shape const& shape : shapes)
    {
        if (shape.size() != result.size())
        {
            throw std::invalid_argument("broadcast: ranks differ (" + shapeText(result) + " and " + shapeText(shape)
                + "); TensorRT broadcasting needs equal ranks");
        }
        for (size_t axis = 0; axis < shape.size(); ++axis)
        {
            if (shape[axis] == result[axis] || shape[axis] == 1)
            {
                continue;
            }
            if (result[axis] != 1)
            {
                throw std::invalid_argument("broadcast: extents " + std::to_string(result[axis]) + " and "
                    + std::to_string(shape[axis]) + " clash on axis " + std::to_string(axis));
            }
            result[axis] = shape[axis];
        }
    }
    return result;
}

Shape broadcastStrides(Shape const& shape, Shape const& outputShape)
{
    if (shape.size() != outputShape.size())
    {
        throw std::invalid_argument(
            "broadcast: operand " + shapeText(shape) + " has a different rank than " + shapeText(outputShape));
    }
    Shape strides = contiguousStrides(shape);
    for (size_t axis = 0; axis < shape.size(); ++axis)
    {
        if (shape[axis] == outputShape[axis])
        {
            continue;
        }
        if (shape[axis] != 1)
        {
            throw std::invalid_argument(
                "broadcast: operand " + shapeText(shape) + " does not broadcast to " + shapeText(outputShape));
        }
        strides[axis] = 0;
    }
    return strides;
}

bool advanceIndex(Shape& index, Shape const& extents)
{
    for (size_t axis = index.size(); axis-- > 0;)
    {
        if (++index[axis] < extents[axis])
        {
            return true;
        }
        index[axis] = 0;
    }
    return false;
}

BroadcastWalker::BroadcastWalker(Shape outputShape, std::initializer_list<Shape> operandShapes)
    : mOutputShape(std::move(outputShape))
    , mCounter(mOutputShape.size(), 0)
    , mOperandCount(operandShapes.size())
{
    if (mOperandCount > kMaxOperands)
    {
        throw std::invalid_argument("BroadcastWalker: at most three operands");
    }
    size_t operand = 0;
    for (Shape const& shape : operandShapes)
    {
        mStrides[operand++] = broadcastStrides(shape, mOutputShape);
    }
}

void BroadcastWalker::next()
{
    for (size_t axis = mOutputShape.size(); axis-- > 0;)
    {
        bool const carries = ++mCounter[axis] == mOutputShape[axis];
        for (size_t operand = 0; operand < mOperandCount; ++operand)
        {
            // On a carry the axis returns to 0, undoing its (extent - 1) steps.
            mOffsets[operand] += carries ? -(mOutputShape[axis] - 1) * mStrides[operand][axis]
                                         : mStrides[operand][axis];
        }
        if (!carries)
        {
            return;
        }
        mCounter[axis] = 0;
    }
}

} // namespace kiln::cpu
