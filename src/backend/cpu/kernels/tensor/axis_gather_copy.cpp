#include "backend/cpu/kernels/tensor/axis_gather_copy.h"

#include "backend/cpu/kernels/tensor/element_access.h"

#include <cstring>

namespace kiln::cpu::tensor_detail
{
namespace
{

//! The innermost axis's elements, of kBytes each, into `out`: a copy of a size known at compile time is one move, where
//! one of a run-time size is a call per element (most of a nearest-neighbour resize's or a slice's time).
template <size_t kBytes>
uint8_t* copyInnermost(
    std::vector<int64_t> const& table, uint8_t const* source, int64_t stride, uint8_t const* fillBytes, uint8_t* out)
{
    for (int64_t coordinate : table)
    {
        std::memcpy(out, (source && coordinate >= 0) ? source + coordinate * stride : fillBytes, kBytes);
        out += kBytes;
    }
    return out;
}

struct AxisCopier
{
    std::vector<std::vector<int64_t>> const& sourceCoordinate;
    Shape inputStrides; //!< in bytes
    size_t elementBytes;
    uint8_t const* fillBytes;
    uint8_t const* input;
    uint8_t* out;

    // Walks the output in row-major order; `source` is null once some coordinate reads the fill value.
    void copy(size_t dim, uint8_t const* source)
    {
        std::vector<int64_t> const& table = sourceCoordinate[dim];
        bool const innermost = dim + 1 == sourceCoordinate.size();
        if (innermost && copiedWhole(table, source, inputStrides[dim]))
        {
            return;
        }
        for (int64_t coordinate : table)
        {
            uint8_t const* next = (source && coordinate >= 0) ? source + coordinate * inputStrides[dim] : nullptr;
            if (innermost)
            {
                std::memcpy(out, next ? next : fillBytes, elementBytes);
                out += elementBytes;
            }
            else
            {
                copy(dim + 1, next);
            }
        }
    }

    //! The innermost axis copied by copyInnermost where the element size is one it is compiled for.
    bool copiedWhole(std::vector<int64_t> const& table, uint8_t const* source, int64_t stride)
    {
        switch (elementBytes)
        {
        case 1: out = copyInnermost<1>(table, source, stride, fillBytes, out); return true;
        case 2: out = copyInnermost<2>(table, source, stride, fillBytes, out); return true;
        case 4: out = copyInnermost<4>(table, source, stride, fillBytes, out); return true;
        case 8: out = copyInnermost<8>(table, source, stride, fillBytes, out); return true;
        default: return false;
        }
    }
};

} // namespace

void copyByAxisTables(ConstTensorView const& input, TensorView const& output,
    std::vector<std::vector<int64_t>> const& sourceCoordinate, uint8_t const* fillBytes)
{
    if (output.count() == 0)
    {
        return;
    }
    size_t const elementBytes = elementSize(output.type);
    if (output.rank() == 0)
    {
        std::memcpy(output.data, input.data, elementBytes);
        return;
    }
    Shape strides = contiguousStrides(input.shape);
    for (int64_t& stride : strides)
    {
        stride *= static_cast<int64_t>(elementBytes);
    }
    AxisCopier copier{sourceCoordinate, strides, elementBytes, fillBytes, static_cast<uint8_t const*>(input.data),
        static_cast<uint8_t*>(output.data)};
    copier.copy(0, copier.input);
}

} // namespace kiln::cpu::tensor_detail
