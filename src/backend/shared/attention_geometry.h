// The extents and element strides of an attention layer's operands (network/fused/attention.h), checked once from
// its tensors' shapes and its params, so that the CPU reference and the CUDA kernel index them alike. Each operand
// is a batch of matrices: its element (batch b, row r, column c) lies at offset(b) + r * row + c * column, whatever
// order its axes are stored in (the layer's axis permutations), whether keys are stored by row or by column, and
// whether the operand is one index of a larger tensor (the layer's picks: offset(b) then starts at that index).
// Plain C++.
#pragma once

#include "core/tensor_view.h"
#include "network/fused/attention.h"

#include <array>
#include <cstdint>

namespace kiln::backend
{

struct AttentionGeometry
{
    //! The most leading (batch) axes; the operands' rank is at most this plus 2.
    static constexpr int32_t kMaxBatchAxes = 6;
    using BatchStrides = std::array<int64_t, kMaxBatchAxes>;

    //! Element strides of one operand: along the output's batch axes (0 where the operand has extent 1 there and is
    //! broadcast, as a matrix multiply broadcasts its batch), along its rows and along its columns; and the element
    //! of the tensor read where its first matrix starts (not 0 where the operand is picked from a larger tensor).
    struct Operand
    {
        BatchStrides batch{};
        int64_t row{0};
        int64_t column{0};
        int64_t start{0};
    };

    int64_t batches{1};    //!< the product of the leading extents: one attention problem each
    int64_t queries{0};    //!< Sq
    int64_t keys{0};       //!< Sk
    int64_t depth{0};      //!< D: the extent query and keys are multiplied over
    int64_t valueDepth{0}; //!< Dv: the output's last extent
    bool masked{false};
    int32_t batchAxes{0};
    BatchStrides batchExtents{};
    Operand queryLayout;  //!< rows: queries; columns: depth
    Operand keyLayout;    //!< rows: keys; columns: depth (however the keys are stored)
    Operand valueLayout;  //!< rows: keys; columns: value depth
    Operand maskLayout;   //!< rows: queries; columns: keys (0 along an axis it is broadcast along)
    Operand outputLayout; //!< rows: queries; columns: value depth

    //! Where output batch `b`'s matrix of `operand` starts in the tensor read or written.
    int64_t offset(Operand const& operand, int64_t b) const
    {
        int64_t result = operand.start;
        for (int32_t axis = batchAxes - 1; axis >= 0; --axis)
        {
            result += (b % batchExtents[axis]) * operand.batch[axis];
            b /= batchExtents[axis];
        }
        return result;
    }
};

//! The shapes of the tensors an attention layer reads and writes, as stored (`mask` null: none).
struct AttentionShapes
{
    Shape const& query;
    Shape const& keys;
    Shape const& values;
    Shape const* mask;
    Shape const& output;
};

//! The geometry of an attention layer: each operand's logical shape is its stored shape with the params' axis
//! permutation applied (query [..., Sq, D], keys [..., D, Sk] or [..., Sk, D] where keysByRow, values [..., Sk, Dv],
//! output [..., Sq, Dv]), a picked operand's stored shape without its pick's axis; the operands' leading extents
//! equal the output's or broadcast into them (extent 1), and a mask's broadcast into the scores [..., Sq, Sk]. Throws
//! std::invalid_argument naming the operand that does not fit.
AttentionGeometry attentionGeometry(AttentionShapes const& shapes, network::AttentionParams const& params);

} // namespace kiln::backend
