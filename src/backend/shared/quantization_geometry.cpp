#include "backend/shared/quantization_geometry.h"

#include "backend/shared/kernel_checks.h"

#include <string>

namespace kiln::backend
{

using kernel_checks::fail;

QuantizationGeometry quantizationGeometry(
    Shape const& data, Shape const& scale, Shape const* zeroPoint, int32_t axis, char const* kernel)
{
    if (zeroPoint != nullptr && *zeroPoint != scale)
    {
        fail(kernel, "the zero point has shape " + shapeText(*zeroPoint) + ", the scale " + shapeText(scale));
    }
    QuantizationGeometry geometry;
    if (scale.size() <= 1 && volume(scale) == 1)
    {
        return geometry;
    }
    if (scale.size() != 1)
    {
        fail(kernel, "the scale must hold one coefficient or be 1-D, not of shape " + shapeText(scale));
    }
    int64_t const rank = static_cast<int64_t>(data.size());
    if (axis < 0 || axis >= rank)
    {
        fail(kernel,
            "axis " + std::to_string(axis) + " is not an axis of the rank-" + std::to_string(rank)
                + " data, and the 1-D scale quantizes per channel along it");
    }
    if (scale[0] != data[static_cast<size_t>(axis)])
    {
        fail(kernel,
            "the scale holds " + std::to_string(scale[0]) + " coefficients, but the data's axis " + std::to_string(axis)
                + " has extent " + std::to_string(data[static_cast<size_t>(axis)]));
    }
    geometry.channels = scale[0];
    for (size_t i = static_cast<size_t>(axis) + 1; i < data.size(); ++i)
    {
        geometry.inner *= data[i];
    }
    return geometry;
}

void checkQuantizationTypes(bool quantizes, nvinfer1::DataType input, nvinfer1::DataType output,
    nvinfer1::DataType scale, nvinfer1::DataType const* zeroPointType, char const* kernel)
{
    nvinfer1::DataType const real = quantizes ? input : output;
    nvinfer1::DataType const quantized = quantizes ? output : input;
    if (!isFloatType(real) || !isFloatType(scale))
    {
        fail(kernel,
            "the real data and the scale must be FLOAT, HALF or BF16, not " + dataTypeName(real) + " and "
                + dataTypeName(scale));
    }
    if (quantized != nvinfer1::DataType::kINT8 && quantized != nvinfer1::DataType::kFP8)
    {
        fail(kernel, "the quantized data must be INT8 or FP8, not " + dataTypeName(quantized));
    }
    if (zeroPointType != nullptr && *zeroPointType != quantized)
    {
        fail(kernel, "the zero point must be " + dataTypeName(quantized) + ", not " + dataTypeName(*zeroPointType));
    }
}

} // namespace kiln::backend
