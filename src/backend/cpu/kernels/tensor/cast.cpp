#include "backend/cpu/kernels/tensor/cast.h"

#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <cstring>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "cast";

bool isCastable(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT:
    case DataType::kHALF:
    case DataType::kBF16:
    case DataType::kINT8:
    case DataType::kUINT8:
    case DataType::kINT32:
    case DataType::kINT64:
    case DataType::kBOOL: return true;
    default: return false;
    }
}

//! Integer types, BOOL included (read as 0 or 1), hold exact int64 values.
int64_t readExactInteger(void const* data, DataType type, int64_t i)
{
    switch (type)
    {
    case DataType::kINT8: return static_cast<int8_t const*>(data)[i];
    case DataType::kUINT8: return static_cast<uint8_t const*>(data)[i];
    case DataType::kBOOL: return static_cast<uint8_t const*>(data)[i] != 0 ? 1 : 0;
    default: return readInteger(data, type, i);
    }
}

void writeWrappedInteger(void* data, DataType type, int64_t i, int64_t value)
{
    switch (type)
    {
    case DataType::kINT8: static_cast<int8_t*>(data)[i] = static_cast<int8_t>(value); return;
    case DataType::kUINT8: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(value); return;
    case DataType::kBOOL: static_cast<uint8_t*>(data)[i] = value != 0 ? 1 : 0; return;
    default: writeInteger(data, type, i, value); return;
    }
}

} // namespace

void cast(ConstTensorView const& input, TensorView const& output)
{
    expectShape(output.shape, input.shape, kKernel, "output");
    if (!isCastable(input.type) || !isCastable(output.type))
    {
        fail(kKernel, std::string("cannot cast ") + dataTypeName(input.type) + " to " + dataTypeName(output.type));
    }
    int64_t const count = input.count();
    if (count == 0)
    {
        return;
    }
    if (input.type == output.type)
    {
        std::memmove(output.data, input.data, static_cast<size_t>(count) * elementSize(input.type));
        return;
    }
    bool const fromFloat = isFloatType(input.type);
    bool const toFloat = isFloatType(output.type);
    size_t const outputBytes = elementSize(output.type);
    for (int64_t i = 0; i < count; ++i)
    {
        if (toFloat)
        {
            float const value = fromFloat ? readFloat(input.data, input.type, i)
                                          : static_cast<float>(readExactInteger(input.data, input.type, i));
            writeFloat(output.data, output.type, i, value);
        }
        else if (!fromFloat)
        {
            writeWrappedInteger(output.data, output.type, i, readExactInteger(input.data, input.type, i));
        }
        else
        {
            // encodeScalar truncates toward zero and saturates, and gives value != 0 for BOOL.
            auto const bytes = encodeScalar(output.type, static_cast<double>(readFloat(input.data, input.type, i)));
            std::memcpy(static_cast<uint8_t*>(output.data) + static_cast<size_t>(i) * outputBytes, bytes.data(),
                outputBytes);
        }
    }
}

} // namespace kiln::cpu
