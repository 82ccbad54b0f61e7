#include "backend/cpu/kernels/tensor/axis_gather_copy.h"

#include "backend/cpu/kernels/tensor/element_access.h"

#include <cstring>

namespace kiln::cpu::tensor_detail
{
namespace
{

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
