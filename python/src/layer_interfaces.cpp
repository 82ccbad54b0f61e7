// The interfaces of the layer kinds, with TensorRT's Python property names. Weights read back (kernel, bias,
// weights) are read-only numpy views that keep the layer, and so the network holding the values, alive.
#include "bindings.h"
#include "dims_caster.h"
#include "layers.h"
#include "plugins.h"
#include "weights.h"

#include <pybind11/stl.h>

#include <vector>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

template <typename Layer>
using LayerClass = py::class_<Layer, ILayer, std::unique_ptr<Layer, py::nodelete>>;

//! A permutation as Python sees it: a tuple of MAX_DIMS axes. A shorter sequence is completed with the identity.
py::tuple permutationToTuple(Permutation const& permutation)
{
    py::tuple order(Dims::MAX_DIMS);
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        order[static_cast<size_t>(i)] = permutation.order[i];
    }
    return order;
}

Permutation permutationFrom(std::vector<int32_t> const& order)
{
    if (order.size() > static_cast<size_t>(Dims::MAX_DIMS))
    {
        throw py::value_error("a permutation has at most " + std::to_string(Dims::MAX_DIMS) + " axes");
    }
    Permutation permutation{};
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        permutation.order[i] = i < static_cast<int32_t>(order.size()) ? order[static_cast<size_t>(i)] : i;
    }
    return permutation;
}

void bindComputeLayers(py::module_& m)
{
    LayerClass<IActivationLayer>(m, "IActivationLayer")
        .def_property("type", &IActivationLayer::getActivationType, &IActivationLayer::setActivationType)
        .def_property("alpha", &IActivationLayer::getAlpha, &IActivationLayer::setAlpha)
        .def_property("beta", &IActivationLayer::getBeta, &IActivationLayer::setBeta);
    LayerClass<IElementWiseLayer>(m, "IElementWiseLayer")
        .def_property("op", &IElementWiseLayer::getOperation, &IElementWiseLayer::setOperation);
    LayerClass<IUnaryLayer>(m, "IUnaryLayer")
        .def_property("op", &IUnaryLayer::getOperation, &IUnaryLayer::setOperation);
    LayerClass<ISoftMaxLayer>(m, "ISoftMaxLayer")
        .def_property("axes", &ISoftMaxLayer::getAxes, &ISoftMaxLayer::setAxes);
    LayerClass<IReduceLayer>(m, "IReduceLayer")
        .def_property("op", &IReduceLayer::getOperation, &IReduceLayer::setOperation)
        .def_property("axes", &IReduceLayer::getReduceAxes, &IReduceLayer::setReduceAxes)
        .def_property("keep_dims", &IReduceLayer::getKeepDimensions, &IReduceLayer::setKeepDimensions);
    LayerClass<IMatrixMultiplyLayer>(m, "IMatrixMultiplyLayer")
        .def_property(
            "op0", [](IMatrixMultiplyLayer const& self) { return self.getOperation(0); },
            [](IMatrixMultiplyLayer& self, MatrixOperation op) { self.setOperation(0, op); })
        .def_property(
            "op1", [](IMatrixMultiplyLayer const& self) { return self.getOperation(1); },
            [](IMatrixMultiplyLayer& self, MatrixOperation op) { self.setOperation(1, op); });
    LayerClass<ITopKLayer>(m, "ITopKLayer")
        .def_property("op", &ITopKLayer::getOperation, &ITopKLayer::setOperation)
        .def_property("k", &ITopKLayer::getK, &ITopKLayer::setK)
        .def_property("axes", &ITopKLayer::getReduceAxes, &ITopKLayer::setReduceAxes)
        .def_property("indices_type", &ITopKLayer::getIndicesType, &ITopKLayer::setIndicesType);
}

void bindWindowLayers(py::module_& m)
{
    LayerClass<IConvolutionLayer>(m, "IConvolutionLayer")
        .def_property("num_output_maps", &IConvolutionLayer::getNbOutputMaps, &IConvolutionLayer::setNbOutputMaps)
        .def_property("num_groups", &IConvolutionLayer::getNbGroups, &IConvolutionLayer::setNbGroups)
        .def_property("kernel", weightsGetter(&IConvolutionLayer::getKernelWeights),
            weightsSetter(&IConvolutionLayer::setKernelWeights))
        .def_property("bias", weightsGetter(&IConvolutionLayer::getBiasWeights),
            weightsSetter(&IConvolutionLayer::setBiasWeights))
        .def_property("kernel_size_nd", &IConvolutionLayer::getKernelSizeNd, &IConvolutionLayer::setKernelSizeNd)
        .def_property("stride_nd", &IConvolutionLayer::getStrideNd, &IConvolutionLayer::setStrideNd)
        .def_property("padding_nd", &IConvolutionLayer::getPaddingNd, &IConvolutionLayer::setPaddingNd)
        .def_property("dilation_nd", &IConvolutionLayer::getDilationNd, &IConvolutionLayer::setDilationNd)
        .def_property("pre_padding", &IConvolutionLayer::getPrePadding, &IConvolutionLayer::setPrePadding)
        .def_property("post_padding", &IConvolutionLayer::getPostPadding, &IConvolutionLayer::setPostPadding)
        .def_property("padding_mode", &IConvolutionLayer::getPaddingMode, &IConvolutionLayer::setPaddingMode);
    LayerClass<IPoolingLayer>(m, "IPoolingLayer")
        .def_property("type", &IPoolingLayer::getPoolingType, &IPoolingLayer::setPoolingType)
        .def_property("window_size_nd", &IPoolingLayer::getWindowSizeNd, &IPoolingLayer::setWindowSizeNd)
        .def_property("stride_nd", &IPoolingLayer::getStrideNd, &IPoolingLayer::setStrideNd)
        .def_property("padding_nd", &IPoolingLayer::getPaddingNd, &IPoolingLayer::setPaddingNd)
        .def_property("pre_padding", &IPoolingLayer::getPrePadding, &IPoolingLayer::setPrePadding)
        .def_property("post_padding", &IPoolingLayer::getPostPadding, &IPoolingLayer::setPostPadding)
        .def_property("padding_mode", &IPoolingLayer::getPaddingMode, &IPoolingLayer::setPaddingMode)
        .def_property("blend_factor", &IPoolingLayer::getBlendFactor, &IPoolingLayer::setBlendFactor)
        .def_property("average_count_excludes_padding", &IPoolingLayer::getAverageCountExcludesPadding,
            &IPoolingLayer::setAverageCountExcludesPadding);
}

void bindDataLayers(py::module_& m)
{
    LayerClass<IConstantLayer>(m, "IConstantLayer")
        .def_property("weights", weightsGetter(&IConstantLayer::getWeights), weightsSetter(&IConstantLayer::setWeights))
        .def_property("shape", &IConstantLayer::getDimensions, &IConstantLayer::setDimensions);
    LayerClass<IShuffleLayer>(m, "IShuffleLayer")
        .def_property(
            "first_transpose", [](IShuffleLayer const& self) { return permutationToTuple(self.getFirstTranspose()); },
            [](IShuffleLayer& self, std::vector<int32_t> const& order) {
                self.setFirstTranspose(permutationFrom(order));
            })
        .def_property("reshape_dims", &IShuffleLayer::getReshapeDimensions, &IShuffleLayer::setReshapeDimensions)
        .def_property(
            "second_transpose", [](IShuffleLayer const& self) { return permutationToTuple(self.getSecondTranspose()); },
            [](IShuffleLayer& self, std::vector<int32_t> const& order) {
                self.setSecondTranspose(permutationFrom(order));
            })
        .def_property(
            "zero_is_placeholder", &IShuffleLayer::getZeroIsPlaceholder, &IShuffleLayer::setZeroIsPlaceholder);
    LayerClass<IConcatenationLayer>(m, "IConcatenationLayer")
        .def_property("axis", &IConcatenationLayer::getAxis, &IConcatenationLayer::setAxis);
    LayerClass<IIdentityLayer>(m, "IIdentityLayer");
    LayerClass<ICastLayer>(m, "ICastLayer").def_property("to_type", &ICastLayer::getToType, &ICastLayer::setToType);
    LayerClass<IShapeLayer>(m, "IShapeLayer");
    LayerClass<ISliceLayer>(m, "ISliceLayer")
        .def_property("start", &ISliceLayer::getStart, &ISliceLayer::setStart)
        .def_property("shape", &ISliceLayer::getSize, &ISliceLayer::setSize)
        .def_property("stride", &ISliceLayer::getStride, &ISliceLayer::setStride)
        .def_property("mode", &ISliceLayer::getMode, &ISliceLayer::setMode)
        .def_property("axes", &ISliceLayer::getAxes, &ISliceLayer::setAxes);
    LayerClass<IGatherLayer>(m, "IGatherLayer")
        .def_property("axis", &IGatherLayer::getGatherAxis, &IGatherLayer::setGatherAxis)
        .def_property("num_elementwise_dims", &IGatherLayer::getNbElementWiseDims, &IGatherLayer::setNbElementWiseDims)
        .def_property("mode", &IGatherLayer::getMode, &IGatherLayer::setMode);
}

void bindPluginLayers(py::module_& m)
{
    // The plugin given to add_plugin_v2/v3, which the network keeps alive.
    LayerClass<IPluginV2Layer>(m, "IPluginV2Layer")
        .def_property_readonly(
            "plugin", [](IPluginV2Layer& self) { return &self.getPlugin(); },
            py::return_value_policy::reference_internal);
    LayerClass<IPluginV3Layer>(m, "IPluginV3Layer")
        .def_property_readonly(
            "plugin", [](IPluginV3Layer& self) { return &self.getPlugin(); },
            py::return_value_policy::reference_internal);
}

} // namespace

void bindLayerInterfaces(py::module_& m)
{
    bindComputeLayers(m);
    bindWindowLayers(m);
    bindDataLayers(m);
    bindPluginLayers(m);
}

} // namespace kiln::python
