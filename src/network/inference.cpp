#include "network/inference.h"

#include "core/checked_size.h"
#include "core/data_type.h"

#include <algorithm>

namespace kiln::network
{
namespace
{

//! Whether an output whose extents are all known now has an element count and byte size that fit: one that
//! overflows would wrap into a small buffer that the layer's kernel writes past (a one-hot depth of 2^62), so the
//! layer is refused when it is added. Extents known only later are checked by the builder for each profile and by
//! the runtime for each run.
bool constantSizeFits(nvinfer1::DataType type, nvinfer1::DimsExprs const& dims)
{
    std::vector<int64_t> extents;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (!dims.d[i]->isConstant())
        {
            return true;
        }
        extents.push_back(dims.d[i]->getConstantValue());
    }
    std::optional<int64_t> const count = checkedElementCount(extents);
    return count && checkedByteSize(*count, std::max<size_t>(elementSize(type), 1));
}

std::string constantShapeText(nvinfer1::DimsExprs const& dims)
{
    std::string text;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i == 0 ? "" : " x ") + std::to_string(dims.d[i]->getConstantValue());
    }
    return text;
}

} // namespace

bool InferenceContext::setOutput(int32_t index, nvinfer1::DataType type, std::vector<Dim> const& dims)
{
    if (dims.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        return fail("output " + std::to_string(index) + " would have rank " + std::to_string(dims.size())
            + ", more than the maximum of " + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    nvinfer1::DimsExprs exprs{};
    exprs.nbDims = static_cast<int32_t>(dims.size());
    for (size_t i = 0; i < dims.size(); ++i)
    {
        exprs.d[i] = dims[i].get();
    }
    return setOutput(index, type, exprs);
}

bool InferenceContext::setOutput(int32_t index, nvinfer1::DataType type, nvinfer1::DimsExprs const& dims)
{
    if (index < 0 || index >= static_cast<int32_t>(mOutputs.size()))
    {
        return fail("output index " + std::to_string(index) + " is out of range");
    }
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        return fail("output " + std::to_string(index) + " has invalid rank " + std::to_string(dims.nbDims));
    }
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] == nullptr)
        {
            return fail("dimension " + std::to_string(i) + " of output " + std::to_string(index)
                + " could not be computed (an invalid shape operation, such as a division by zero or an overflow)");
        }
        if (dims.d[i]->isConstant() && dims.d[i]->getConstantValue() < 0)
        {
            return fail("dimension " + std::to_string(i) + " of output " + std::to_string(index) + " is negative ("
                + std::to_string(dims.d[i]->getConstantValue()) + ")");
        }
    }
    if (!constantSizeFits(type, dims))
    {
        return fail("output " + std::to_string(index) + " of type " + dataTypeName(type) + " would hold "
            + constantShapeText(dims) + " elements: more elements or bytes than a 64-bit size counts");
    }
    mOutputs[index].type = type;
    mOutputs[index].dims = dims;
    return true;
}

} // namespace kiln::network
