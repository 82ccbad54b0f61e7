// nvinfer1::Dims <-> Python: any sequence of integers (a tuple, a list, a numpy array) converts to Dims, and Dims
// convert to kiln.tensorrt.Dims, a tuple subclass, so that shapes compare equal to tuples and feed numpy directly.
#pragma once

#include <NvInferRuntime.h>
#include <pybind11/pybind11.h>

namespace kiln::python
{
//! The Python type kiln.tensorrt.Dims (made by bindDims).
pybind11::handle dimsType();
} // namespace kiln::python

namespace pybind11::detail
{

template <>
struct type_caster<nvinfer1::Dims>
{
public:
    PYBIND11_TYPE_CASTER(nvinfer1::Dims, const_name("Dims"));

    bool load(handle source, bool /*convert*/)
    {
        if (!source || !isinstance<sequence>(source) || isinstance<str>(source) || isinstance<bytes>(source))
        {
            return false;
        }
        auto const extents = reinterpret_borrow<sequence>(source);
        if (extents.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
        {
            return false;
        }
        value = nvinfer1::Dims{};
        value.nbDims = static_cast<int32_t>(extents.size());
        for (size_t i = 0; i < extents.size(); ++i)
        {
            make_caster<int64_t> extent;
            if (!extent.load(extents[i], true))
            {
                return false;
            }
            value.d[i] = cast_op<int64_t>(extent);
        }
        return true;
    }

    //! Invalid Dims (nbDims < 0, what the C++ API returns for an unknown tensor name) become None.
    static handle cast(nvinfer1::Dims const& dims, return_value_policy /*policy*/, handle /*parent*/)
    {
        if (dims.nbDims < 0)
        {
            return none().release();
        }
        tuple extents(dims.nbDims);
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            extents[static_cast<size_t>(i)] = int_(dims.d[i]);
        }
        return kiln::python::dimsType()(extents).release();
    }
};

} // namespace pybind11::detail
