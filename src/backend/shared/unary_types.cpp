#include "backend/shared/unary_types.h"

#include "core/data_type.h"

#include <stdexcept>
#include <string>

namespace kiln::backend
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::UnaryOperation;

bool isIntegerOperation(UnaryOperation op)
{
    return op == UnaryOperation::kABS || op == UnaryOperation::kNEG || op == UnaryOperation::kSIGN;
}

bool producesBool(UnaryOperation op)
{
    return op == UnaryOperation::kISINF || op == UnaryOperation::kISNAN || op == UnaryOperation::kNOT;
}

} // namespace

DataType unaryOutputType(UnaryOperation op, DataType inputType)
{
    if (static_cast<int32_t>(op) < 0 || static_cast<int32_t>(op) >= nvinfer1::EnumMax<UnaryOperation>())
    {
        throw std::invalid_argument("unary: unknown UnaryOperation");
    }
    bool const integer = inputType == DataType::kINT32 || inputType == DataType::kINT64 || inputType == DataType::kINT8;
    if (op == UnaryOperation::kNOT ? inputType == DataType::kBOOL
                                   : isFloatType(inputType) || (integer && isIntegerOperation(op)))
    {
        return producesBool(op) ? DataType::kBOOL : inputType;
    }
    throw std::invalid_argument(
        "unary: operation " + std::to_string(static_cast<int32_t>(op)) + " does not take " + dataTypeName(inputType));
}

} // namespace kiln::backend
