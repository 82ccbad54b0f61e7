// The extents and mask strides of an attention layer (network/layers/attention.h), checked once from its tensors'
// shapes, so that the CPU reference and the CUDA kernel index its operands alike. Plain C++.
#pragma once

#include "core/tensor_view.h"

#include <array>
#include <cstdint>

namespace kiln::backend
{

struct AttentionGeometry
{
    //! The most leading (batch) axes a mask is broadcast along; the scores' rank is at most this plus 2.
    static constexpr int32_t kMaxBatchAxes = 6;

    int64_t batches{1};     //!< the product of the leading extents: one attention problem each
    int64_t queries{0};     //!< Sq
    int64_t keys{0};        //!< Sk
    int64_t depth{0};       //!< D: the extent query and keys are multiplied over
    int64_t valueDepth{0};  //!< Dv: the output's last extent
    bool masked{false};
    //! The output's leading extents, and each operand's element strides along them (0 where the operand has
    //! extent 1 there and is broadcast, as a matrix multiply broadcasts its batch); the mask's also along the queries
    //! and the keys: its element of (batch, i, j) is at the batch's offset + i * maskRowStride + j * maskColumnStride.
    using BatchStrides = std::array<int64_t, kMaxBatchAxes>;
    int32_t batchAxes{0};
    BatchStrides batchExtents{};
    BatchStrides queryStrides{};
    BatchStrides keyStrides{};
    BatchStrides valueStrides{};
    BatchStrides maskStrides{};
    int64_t maskRowStride{0};
    int64_t maskColumnStride{0};

    //! The offset of output batch `b`'s matrix in an operand with these batch strides.
    int64_t offset(BatchStrides const& strides, int64_t b) const
    {
        int64_t result = 0;
        for (int32_t axis = batchAxes - 1; axis >= 0; --axis)
        {
            result += (b % batchExtents[axis]) * strides[axis];
            b /= batchExtents[axis];
        }
        return result;
    }
};

//! The geometry of query [..., Sq, D], keys [..., D, Sk] (or [..., Sk, D] where `keysByRow`), values [..., Sk, Dv],
//! an optional mask (`mask` null: none) broadcast into [..., Sq, Sk], and the output [..., Sq, Dv], whose leading
//! extents the operands' equal or broadcast into (extent 1). Throws std::invalid_argument naming the operand whose
//! shape does not fit.
AttentionGeometry attentionGeometry(Shape const& query, Shape const& keys, Shape const& values, Shape const* mask,
    Shape const& output, bool keysByRow);

} // namespace kiln::backend
