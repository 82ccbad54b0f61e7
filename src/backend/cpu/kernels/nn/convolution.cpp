#include "backend/cpu/kernels/nn/convolution.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/broadcast.h"
#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/cpu/kernels/nn/filter_operands.h"
#include "backend/shared/kernel_geometry.h"
#include "network/layers/layer_utils.h"

#include <stdexcept>
#include <string>

namespace kiln::cpu
{
namespace
{

using backend::KernelGeometry;
using backend::WindowDirection;

KernelGeometry resolveGeometry(Shape const& inputShape, network::ConvolutionParams const& params)
{
    return backend::resolveKernelGeometry("convolution", WindowDirection::kFORWARD, inputShape, params);
}

} // namespace

Shape convolutionOutputShape(Shape const& inputShape, network::ConvolutionParams const& params)
{
    return resolveGeometry(inputShape, params).outputShape;
}

void runConvolution(network::ConvolutionParams const& params, ConstTensorView const& input, TensorView const& output)
{
    KernelGeometry const geometry = resolveGeometry(input.shape, params);
    Shape const kernelSize = network::dimsToVector(params.kernelSize);
    int64_t const groups = params.nbGroups;
    int64_t const outputMaps = params.nbOutputMaps;
    int64_t const channelsPerGroup = input.shape[1] / groups;
    Shape kernelShape{outputMaps, channelsPerGroup};
    kernelShape.insert(kernelShape.end(), kernelSize.begin(), kernelSize.end());
    FilterOperands const operands
        = loadFilterOperands("convolution", params, kernelShape, geometry.outputShape, input, output);
    if (output.count() == 0)
    {
        return;
    }
    std::vector<float> const& x = operands.input;
    std::vector<float> const& w = operands.kernel;
    std::vector<float> const& b = operands.bias;

    size_t const spatialRank = kernelSize.size();
    Shape const inputSize(input.shape.begin() + 2, input.shape.end());
    Shape const inputStrides = contiguousStrides(inputSize);
    Shape const& outputSize = geometry.window.outputSize;
    int64_t const inputPlane = volume(inputSize);
    int64_t const outputPlane = volume(outputSize);
    int64_t const kernelPlane = volume(kernelSize);
    int64_t const batch = input.shape[0];
    int64_t const mapsPerGroup = outputMaps / groups;

    // For one output position: which kernel taps land inside the input, and where (padding taps are skipped).
    std::vector<int64_t> tapKernelOffset;
    std::vector<int64_t> tapInputOffset;
    tapKernelOffset.reserve(static_cast<size_t>(kernelPlane));
    tapInputOffset.reserve(static_cast<size_t>(kernelPlane));

    Shape outputIndex(spatialRank, 0);
    Shape kernelIndex(spatialRank, 0);
    for (int64_t position = 0; position < outputPlane; ++position, advanceIndex(outputIndex, outputSize))
    {
        tapKernelOffset.clear();
        tapInputOffset.clear();
        for (int64_t tap = 0; tap < kernelPlane; ++tap, advanceIndex(kernelIndex, kernelSize))
        {
            int64_t inputOffset = 0;
            bool inside = true;
            for (size_t axis = 0; axis < spatialRank && inside; ++axis)
            {
                int64_t const coordinate = outputIndex[axis] * geometry.stride[axis] - geometry.window.prePadding[axis]
                    + kernelIndex[axis] * geometry.dilation[axis];
                inside = coordinate >= 0 && coordinate < inputSize[axis];
                inputOffset += coordinate * inputStrides[axis];
            }
            if (inside)
            {
                tapKernelOffset.push_back(tap);
                tapInputOffset.push_back(inputOffset);
            }
        }
        for (int64_t n = 0; n < batch; ++n)
        {
            for (int64_t map = 0; map < outputMaps; ++map)
            {
                int64_t const firstChannel = (map / mapsPerGroup) * channelsPerGroup;
                double sum = b[static_cast<size_t>(map)];
                for (int64_t c = 0; c < channelsPerGroup; ++c)
                {
                    float const* inputPlaneData = x.data() + ((n * input.shape[1] + firstChannel + c) * inputPlane);
                    float const* kernelPlaneData = w.data() + ((map * channelsPerGroup + c) * kernelPlane);
                    for (size_t t = 0; t < tapInputOffset.size(); ++t)
                    {
                        sum += static_cast<double>(inputPlaneData[tapInputOffset[t]])
                            * static_cast<double>(kernelPlaneData[tapKernelOffset[t]]);
                    }
                }
                storeFloat(output, (n * outputMaps + map) * outputPlane + position, static_cast<float>(sum));
            }
        }
    }
}

void run(network::ConvolutionParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runConvolution(params, inputs[0], outputs[0]);
}

} // namespace kiln::cpu
