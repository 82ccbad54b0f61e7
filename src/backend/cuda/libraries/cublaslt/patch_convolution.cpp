#include "backend/cuda/libraries/cublaslt/patch_convolution.h"

#include "device_common/element_size.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

namespace kiln::cuda
{
namespace
{

bool allEqual(Shape const& values, int64_t value)
{
    return std::all_of(values.begin(), values.end(), [value](int64_t v) { return v == value; });
}

//! Whether `geometry` has windows that do not overlap: 2-D, strides at least the window, no padding or dilation.
bool apart(ConvolutionGeometry const& geometry)
{
    return geometry.input.size() == 4 && geometry.filter.size() == 4 && geometry.stride.size() == 2
        && geometry.stride[0] >= geometry.filter[2] && geometry.stride[1] >= geometry.filter[3]
        && allEqual(geometry.padding, 0) && allEqual(geometry.dilation, 1);
}

//! Whether `geometry` is a 1x1 convolution of stride 1, which has no windows to gather.
bool onePosition(ConvolutionGeometry const& geometry)
{
    return geometry.filter[2] == 1 && geometry.filter[3] == 1 && allEqual(geometry.stride, 1);
}

//! The 1x1 convolution over the unfolded windows: kh * kw * C channels at each output position.
ConvolutionGeometry unfolded(ConvolutionGeometry const& geometry)
{
    Shape const& output = geometry.output;
    int64_t const rowLength = geometry.filter[1] * geometry.filter[2] * geometry.filter[3];
    ConvolutionGeometry product;
    product.input = {output[0], rowLength, output[2], output[3]};
    product.output = output;
    product.layerOutput = output;
    product.filter = {output[1], rowLength, 1, 1};
    product.padding = {0, 0};
    product.stride = {1, 1};
    product.dilation = {1, 1};
    return product;
}

ConvolutionGeometry checked(ConvolutionGeometry const& geometry)
{
    if (!apart(geometry) || onePosition(geometry) || geometry.input[1] != geometry.filter[1])
    {
        throw std::invalid_argument("convolution: only windows apart (strides at least the window, not both 1), "
                                    "without padding, dilation or groups, unfold into one product");
    }
    return unfolded(geometry);
}

size_t roundUp(size_t value, size_t multiple)
{
    return (value + multiple - 1) / multiple * multiple;
}

} // namespace

bool PatchConvolution::takes(network::ConvolutionParams const& params, plan::Epilogue const& epilogue,
    Shape const& inputShape, nvinfer1::DataType type, TensorFormat format)
{
    bool const fp16 = type == nvinfer1::DataType::kHALF;
    bool const formats = format == TensorFormat::kHWC || format == TensorFormat::kHWC8;
    bool const epilogueRuns = !epilogue.activates || epilogue.relu();
    if (!fp16 || !formats || !epilogueRuns || inputShape.size() != 4 || params.kernelSize.nbDims != 2
        || params.nbGroups != 1)
    {
        return false;
    }
    try
    {
        ConvolutionGeometry const geometry = convolutionGeometry(params, inputShape, false);
        return apart(geometry) && !onePosition(geometry) && volume(geometry.output) > 0;
    }
    catch (std::invalid_argument const&)
    {
        return false; // padded differently before and after: not windows apart either
    }
}

PatchConvolution::PatchConvolution(
    ConvolutionGeometry const& geometry, nvinfer1::DataType type, void const* bias, bool relu, cublasLtHandle_t handle)
    : mProduct(checked(geometry), type, bias, relu, handle)
{
    Shape const& input = geometry.input;
    int64_t const element = static_cast<int64_t>(elementSize(type));
    int64_t const channels = input[1];
    mWindows.images = input[0];
    mWindows.outHeight = geometry.output[2];
    mWindows.outWidth = geometry.output[3];
    mWindows.windowRows = geometry.filter[2];
    mWindows.rowStride = geometry.stride[0];
    mWindows.spanBytes = geometry.filter[3] * channels * element;
    mWindows.windowStepBytes = geometry.stride[1] * channels * element;
    mWindows.inputRowBytes = input[3] * channels * element;
    mWindows.imageBytes = input[2] * mWindows.inputRowBytes;
    mRowsBytes = roundUp(static_cast<size_t>(mWindows.rowsBytes()), 256);
}

void PatchConvolution::run(cublasLtHandle_t handle, void const* input, void const* kernel, void const* residual,
    void* output, void* workspace, cudaStream_t stream)
{
    launchWindowRows(mWindows, input, workspace, stream);
    mProduct.run(handle, workspace, kernel, residual, output, static_cast<std::byte*>(workspace) + mRowsBytes, stream);
}

} // namespace kiln::cuda
