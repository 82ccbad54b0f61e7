#include "backend/cpu/kernels/tensor/trilu.h"

#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cstring>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "trilu";

} // namespace

void trilu(ConstTensorView const& input, TensorView const& output, Trilu const& params)
{
    expectShape(output.shape, input.shape, kKernel, "output");
    if (input.type != output.type)
    {
        fail(kKernel, std::string("input is ") + typeName(input.type) + " but output is " + typeName(output.type));
    }
    if (input.rank() < 2)
    {
        fail(kKernel, "input needs rank >= 2");
    }
    size_t const bytes = byteSizeOf(input.type, kKernel);
    if (input.count() == 0)
    {
        return;
    }
    int64_t const rows = input.shape[input.shape.size() - 2];
    int64_t const cols = input.shape.back();
    int64_t const matrices = input.count() / (rows * cols);
    auto const* source = static_cast<uint8_t const*>(input.data);
    auto* destination = static_cast<uint8_t*>(output.data);
    for (int64_t m = 0; m < matrices; ++m)
    {
        for (int64_t i = 0; i < rows; ++i)
        {
            for (int64_t j = 0; j < cols; ++j)
            {
                bool const keep = params.upper ? j - i >= params.k : j - i <= params.k;
                size_t const offset = static_cast<size_t>((m * rows + i) * cols + j) * bytes;
                if (keep)
                {
                    std::memmove(destination + offset, source + offset, bytes);
                }
                else
                {
                    std::memset(destination + offset, 0, bytes);
                }
            }
        }
    }
}

} // namespace kiln::cpu
