// The interfaces of the layer kinds layer_interfaces.cpp leaves out (resize, deconvolution, scale, padding, select,
// fill, scatter, grid sample, one-hot, non-zero, NMS, reverse sequence, normalization, LRN, cumulative, parametric
// ReLU, squeeze, unsqueeze), with TensorRT's Python property names, and the enums of their modes. Tools that walk a
// network (Polygraphy's inspector) compare a layer's class with these, and read their properties.
#include "bindings.h"
#include "dims_caster.h"
#include "layers.h"
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

void bindModeEnums(py::module_& m)
{
    py::enum_<InterpolationMode>(m, "InterpolationMode")
        .value("NEAREST", InterpolationMode::kNEAREST)
        .value("LINEAR", InterpolationMode::kLINEAR)
        .value("CUBIC", InterpolationMode::kCUBIC);
    m.attr("ResizeMode") = m.attr("InterpolationMode"); // TensorRT's other name for it
    py::enum_<ResizeCoordinateTransformation>(m, "ResizeCoordinateTransformation")
        .value("ALIGN_CORNERS", ResizeCoordinateTransformation::kALIGN_CORNERS)
        .value("ASYMMETRIC", ResizeCoordinateTransformation::kASYMMETRIC)
        .value("HALF_PIXEL", ResizeCoordinateTransformation::kHALF_PIXEL);
    py::enum_<ResizeSelector>(m, "ResizeSelector")
        .value("FORMULA", ResizeSelector::kFORMULA)
        .value("UPPER", ResizeSelector::kUPPER);
    py::enum_<ResizeRoundMode>(m, "ResizeRoundMode")
        .value("HALF_UP", ResizeRoundMode::kHALF_UP)
        .value("HALF_DOWN", ResizeRoundMode::kHALF_DOWN)
        .value("FLOOR", ResizeRoundMode::kFLOOR)
        .value("CEIL", ResizeRoundMode::kCEIL);
    py::enum_<ScaleMode>(m, "ScaleMode")
        .value("UNIFORM", ScaleMode::kUNIFORM)
        .value("CHANNEL", ScaleMode::kCHANNEL)
        .value("ELEMENTWISE", ScaleMode::kELEMENTWISE);
    py::enum_<FillOperation>(m, "FillOperation")
        .value("LINSPACE", FillOperation::kLINSPACE)
        .value("RANDOM_UNIFORM", FillOperation::kRANDOM_UNIFORM)
        .value("RANDOM_NORMAL", FillOperation::kRANDOM_NORMAL);
    py::enum_<ScatterMode>(m, "ScatterMode").value("ELEMENT", ScatterMode::kELEMENT).value("ND", ScatterMode::kND);
    py::enum_<CumulativeOperation>(m, "CumulativeOperation").value("SUM", CumulativeOperation::kSUM);
    py::enum_<BoundingBoxFormat>(m, "BoundingBoxFormat")
        .value("CORNER_PAIRS", BoundingBoxFormat::kCORNER_PAIRS)
        .value("CENTER_SIZES", BoundingBoxFormat::kCENTER_SIZES);
}

void bindResizeLayer(py::module_& m)
{
    LayerClass<IResizeLayer>(m, "IResizeLayer")
        .def_property("shape", &IResizeLayer::getOutputDimensions, &IResizeLayer::setOutputDimensions)
        .def_property(
            "scales",
            [](IResizeLayer const& self) {
                int32_t const count = self.getScales(0, nullptr);
                std::vector<float> scales(static_cast<size_t>(count > 0 ? count : 0));
                if (count > 0)
                {
                    self.getScales(count, scales.data());
                }
                return scales;
            },
            [](IResizeLayer& self, std::vector<float> const& scales) {
                self.setScales(scales.data(), static_cast<int32_t>(scales.size()));
            })
        .def_property("resize_mode", &IResizeLayer::getResizeMode, &IResizeLayer::setResizeMode)
        .def_property("coordinate_transformation", &IResizeLayer::getCoordinateTransformation,
            &IResizeLayer::setCoordinateTransformation)
        .def_property("selector_for_single_pixel", &IResizeLayer::getSelectorForSinglePixel,
            &IResizeLayer::setSelectorForSinglePixel)
        .def_property("nearest_rounding", &IResizeLayer::getNearestRounding, &IResizeLayer::setNearestRounding)
        .def_property("cubic_coeff", &IResizeLayer::getCubicCoeff, &IResizeLayer::setCubicCoeff)
        .def_property("exclude_outside", &IResizeLayer::getExcludeOutside, &IResizeLayer::setExcludeOutside);
}

void bindWeightedLayers(py::module_& m)
{
    using D = IDeconvolutionLayer;
    LayerClass<D>(m, "IDeconvolutionLayer")
        .def_property("num_output_maps", &D::getNbOutputMaps, &D::setNbOutputMaps)
        .def_property("num_groups", &D::getNbGroups, &D::setNbGroups)
        .def_property("kernel", weightsGetter(&D::getKernelWeights), weightsSetter(&D::setKernelWeights))
        .def_property("bias", weightsGetter(&D::getBiasWeights), weightsSetter(&D::setBiasWeights))
        .def_property("kernel_size_nd", &D::getKernelSizeNd, &D::setKernelSizeNd)
        .def_property("stride_nd", &D::getStrideNd, &D::setStrideNd)
        .def_property("padding_nd", &D::getPaddingNd, &D::setPaddingNd)
        .def_property("dilation_nd", &D::getDilationNd, &D::setDilationNd)
        .def_property("pre_padding", &D::getPrePadding, &D::setPrePadding)
        .def_property("post_padding", &D::getPostPadding, &D::setPostPadding)
        .def_property("padding_mode", &D::getPaddingMode, &D::setPaddingMode);
    LayerClass<IScaleLayer>(m, "IScaleLayer")
        .def_property("mode", &IScaleLayer::getMode, &IScaleLayer::setMode)
        .def_property("shift", weightsGetter(&IScaleLayer::getShift), weightsSetter(&IScaleLayer::setShift))
        .def_property("scale", weightsGetter(&IScaleLayer::getScale), weightsSetter(&IScaleLayer::setScale))
        .def_property("power", weightsGetter(&IScaleLayer::getPower), weightsSetter(&IScaleLayer::setPower))
        .def_property("channel_axis", &IScaleLayer::getChannelAxis, &IScaleLayer::setChannelAxis);
    LayerClass<INormalizationLayer>(m, "INormalizationLayer")
        .def_property("epsilon", &INormalizationLayer::getEpsilon, &INormalizationLayer::setEpsilon)
        .def_property("axes", &INormalizationLayer::getAxes, &INormalizationLayer::setAxes)
        .def_property("num_groups", &INormalizationLayer::getNbGroups, &INormalizationLayer::setNbGroups)
        .def_property(
            "compute_precision", &INormalizationLayer::getComputePrecision, &INormalizationLayer::setComputePrecision)
        .def_property_readonly("is_v2", &INormalizationLayer::isV2);
    LayerClass<ILRNLayer>(m, "ILRNLayer")
        .def_property("window_size", &ILRNLayer::getWindowSize, &ILRNLayer::setWindowSize)
        .def_property("alpha", &ILRNLayer::getAlpha, &ILRNLayer::setAlpha)
        .def_property("beta", &ILRNLayer::getBeta, &ILRNLayer::setBeta)
        .def_property("k", &ILRNLayer::getK, &ILRNLayer::setK);
    LayerClass<IParametricReLULayer>(m, "IParametricReLULayer");
}

//! A fill's alpha or beta as TensorRT's Python API gives it: an int where it was set as one (the Int64 setters,
//! for INT64 outputs), a float otherwise; setting a Python int uses the Int64 setter.
auto fillValueGetter(double (IFillLayer::*asDouble)() const noexcept, int64_t (IFillLayer::*asInt)() const noexcept)
{
    return [asDouble, asInt](IFillLayer const& self) {
        return self.isAlphaBetaInt64() ? py::object(py::int_((self.*asInt)()))
                                       : py::object(py::float_((self.*asDouble)()));
    };
}

auto fillValueSetter(void (IFillLayer::*asDouble)(double) noexcept, void (IFillLayer::*asInt)(int64_t) noexcept)
{
    return [asDouble, asInt](IFillLayer& self, py::object const& value) {
        if (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value))
        {
            (self.*asInt)(value.cast<int64_t>());
        }
        else
        {
            (self.*asDouble)(value.cast<double>());
        }
    };
}

void bindIndexingLayers(py::module_& m)
{
    LayerClass<IPaddingLayer>(m, "IPaddingLayer")
        .def_property("pre_padding_nd", &IPaddingLayer::getPrePaddingNd, &IPaddingLayer::setPrePaddingNd)
        .def_property("post_padding_nd", &IPaddingLayer::getPostPaddingNd, &IPaddingLayer::setPostPaddingNd);
    LayerClass<ISelectLayer>(m, "ISelectLayer");
    LayerClass<IFillLayer>(m, "IFillLayer")
        .def_property("shape", &IFillLayer::getDimensions, &IFillLayer::setDimensions)
        .def_property("operation", &IFillLayer::getOperation, &IFillLayer::setOperation)
        .def_property("alpha", fillValueGetter(&IFillLayer::getAlpha, &IFillLayer::getAlphaInt64),
            fillValueSetter(&IFillLayer::setAlpha, &IFillLayer::setAlphaInt64))
        .def_property("beta", fillValueGetter(&IFillLayer::getBeta, &IFillLayer::getBetaInt64),
            fillValueSetter(&IFillLayer::setBeta, &IFillLayer::setBetaInt64))
        .def("is_alpha_beta_int64", &IFillLayer::isAlphaBetaInt64)
        .def_property("to_type", &IFillLayer::getToType, &IFillLayer::setToType);
    LayerClass<IScatterLayer>(m, "IScatterLayer")
        .def_property("mode", &IScatterLayer::getMode, &IScatterLayer::setMode)
        .def_property("axis", &IScatterLayer::getAxis, &IScatterLayer::setAxis);
    LayerClass<IGridSampleLayer>(m, "IGridSampleLayer")
        .def_property(
            "interpolation_mode", &IGridSampleLayer::getInterpolationMode, &IGridSampleLayer::setInterpolationMode)
        .def_property("align_corners", &IGridSampleLayer::getAlignCorners, &IGridSampleLayer::setAlignCorners)
        .def_property("sample_mode", &IGridSampleLayer::getSampleMode, &IGridSampleLayer::setSampleMode);
    LayerClass<IQuantizeLayer>(m, "IQuantizeLayer")
        .def_property("axis", &IQuantizeLayer::getAxis, &IQuantizeLayer::setAxis)
        .def_property("to_type", &IQuantizeLayer::getToType, &IQuantizeLayer::setToType);
    LayerClass<IDequantizeLayer>(m, "IDequantizeLayer")
        .def_property("axis", &IDequantizeLayer::getAxis, &IDequantizeLayer::setAxis)
        .def_property("to_type", &IDequantizeLayer::getToType, &IDequantizeLayer::setToType);
    LayerClass<IOneHotLayer>(m, "IOneHotLayer").def_property("axis", &IOneHotLayer::getAxis, &IOneHotLayer::setAxis);
    LayerClass<INonZeroLayer>(m, "INonZeroLayer")
        .def_property("indices_type", &INonZeroLayer::getIndicesType, &INonZeroLayer::setIndicesType);
    LayerClass<INMSLayer>(m, "INMSLayer")
        .def_property("bounding_box_format", &INMSLayer::getBoundingBoxFormat, &INMSLayer::setBoundingBoxFormat)
        .def_property("topk_box_limit", &INMSLayer::getTopKBoxLimit, &INMSLayer::setTopKBoxLimit)
        .def_property("indices_type", &INMSLayer::getIndicesType, &INMSLayer::setIndicesType);
    LayerClass<IReverseSequenceLayer>(m, "IReverseSequenceLayer")
        .def_property("batch_axis", &IReverseSequenceLayer::getBatchAxis, &IReverseSequenceLayer::setBatchAxis)
        .def_property(
            "sequence_axis", &IReverseSequenceLayer::getSequenceAxis, &IReverseSequenceLayer::setSequenceAxis);
    LayerClass<ISqueezeLayer>(m, "ISqueezeLayer");
    LayerClass<IUnsqueezeLayer>(m, "IUnsqueezeLayer");
    LayerClass<ICumulativeLayer>(m, "ICumulativeLayer")
        .def_property("op", &ICumulativeLayer::getOperation, &ICumulativeLayer::setOperation)
        .def_property("exclusive", &ICumulativeLayer::getExclusive, &ICumulativeLayer::setExclusive)
        .def_property("reverse", &ICumulativeLayer::getReverse, &ICumulativeLayer::setReverse);
}

} // namespace

void bindMoreLayerInterfaces(py::module_& m)
{
    bindModeEnums(m);
    bindResizeLayer(m);
    bindWeightedLayers(m);
    bindIndexingLayers(m);
}

} // namespace kiln::python
