// trt.Weights: nvinfer1::Weights plus the Python object whose memory it points into, kept alive with it.
#pragma once

#include <NvInferRuntime.h>
#include <pybind11/numpy.h>

namespace kiln::python
{

struct PyWeights
{
    nvinfer1::Weights weights{nvinfer1::DataType::kFLOAT, nullptr, 0};
    pybind11::object owner; //!< the numpy array holding the values (None for empty or borrowed weights)

    //! The values, or empty weights of type FLOAT where none were given (an optional bias).
    static nvinfer1::Weights orEmpty(PyWeights const* weights)
    {
        return weights != nullptr ? weights->weights : nvinfer1::Weights{nvinfer1::DataType::kFLOAT, nullptr, 0};
    }
};

//! A read-only numpy view of weights that `owner` (a layer, whose network holds the copy) keeps alive.
pybind11::object weightsToNumpy(nvinfer1::Weights const& weights, pybind11::handle owner);

//! A layer's weights property: the getter gives weightsToNumpy's view; weights set through the setter stay alive
//! with the layer (keep_alive).
template <typename Layer>
auto weightsGetter(nvinfer1::Weights (Layer::*get)() const)
{
    return [get](pybind11::object self) { return weightsToNumpy((self.cast<Layer&>().*get)(), self); };
}

template <typename Layer>
pybind11::cpp_function weightsSetter(void (Layer::*set)(nvinfer1::Weights))
{
    return pybind11::cpp_function(
        [set](Layer& self, PyWeights const& weights) { (self.*set)(weights.weights); }, pybind11::keep_alive<1, 2>());
}

} // namespace kiln::python
