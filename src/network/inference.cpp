#include "network/inference.h"

namespace kiln::network
{

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
    mOutputs[index].type = type;
    mOutputs[index].dims = dims;
    return true;
}

} // namespace kiln::network
