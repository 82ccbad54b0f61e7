// Numpy-style broadcasting of tensors of equal rank, as TensorRT requires: along each axis the extents are
// equal or one of them is 1, which then repeats. (Rank alignment by prepending 1s is the parser's job.)
#pragma once

#include "core/tensor_view.h"

#include <array>
#include <cstdint>
#include <initializer_list>

namespace kiln::cpu
{

//! The broadcast shape of equal-rank shapes; throws std::invalid_argument when ranks differ or extents clash.
//! An axis where one extent is 0 and the others are 0 or 1 broadcasts to 0 (an empty result).
Shape broadcastShape(std::initializer_list<Shape> shapes);

//! Element strides for reading a tensor of `shape` while walking `outputShape`: 0 on broadcast axes.
Shape broadcastStrides(Shape const& shape, Shape const& outputShape);

//! Walks an output shape in row-major order and keeps, for each of up to three operands, the linear offset of the
//! element that operand contributes. Offsets update incrementally, so a step costs O(1) amortized.
class BroadcastWalker
{
public:
    static constexpr size_t kMaxOperands = 3;

    //! Throws std::invalid_argument when an operand does not broadcast to `outputShape`.
    BroadcastWalker(Shape outputShape, std::initializer_list<Shape> operandShapes);

    int64_t offset(size_t operand) const
    {
        return mOffsets[operand];
    }

    //! Moves to the next output element (row-major).
    void next();

private:
    Shape mOutputShape;
    Shape mCounter;
    size_t mOperandCount{0};
    std::array<Shape, kMaxOperands> mStrides{};
    std::array<int64_t, kMaxOperands> mOffsets{};
};

//! Odometer increment of a multi-index within `extents`; returns false after the last index (it wraps to zeros).
bool advanceIndex(Shape& index, Shape const& extents);

} // namespace kiln::cpu
