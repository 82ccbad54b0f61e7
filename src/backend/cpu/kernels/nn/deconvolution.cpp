#include "backend/cpu/kernels/nn/deconvolution.h"

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

KernelGeometry resolveGeometry(Shape const& inputShape, network::DeconvolutionParams const& params)
{
    return backend::resolveKernelGeometry("deconvolution", WindowDirection::kTRANSPOSED, inputShape, params);
}

//! Extents of a deconvolution's operands; planes count the elements of one channel.
struct Layout
{
    Shape kernelSize;
    Shape inputSize;
    Shape inputStrides;
    int64_t batch;
    int64_t inputChannels;
    int64_t outputMaps;
    int64_t channelsPerGroup;
    int64_t mapsPerGroup;
    int64_t inputPlane;
    int64_t outputPlane;
    int64_t kernelPlane;
};

//! The kernel taps through which one output position receives input, and the input element each one reads.
struct Taps
{
    std::vector<int64_t> kernelOffset;
    std::vector<int64_t> inputOffset;
};

void findTaps(
    KernelGeometry const& geometry, Layout const& layout, Shape const& outputIndex, Shape& kernelIndex, Taps& taps)
{
    // Output o receives input i through tap k when i * stride + k * dilation == o + prePadding.
    taps.kernelOffset.clear();
    taps.inputOffset.clear();
    size_t const spatialRank = layout.kernelSize.size();
    for (int64_t tap = 0; tap < layout.kernelPlane; ++tap, advanceIndex(kernelIndex, layout.kernelSize))
    {
        int64_t inputOffset = 0;
        bool hits = true;
        for (size_t axis = 0; axis < spatialRank && hits; ++axis)
        {
            int64_t const scaled
                = outputIndex[axis] + geometry.window.prePadding[axis] - kernelIndex[axis] * geometry.dilation[axis];
            int64_t const coordinate = scaled / geometry.stride[axis];
            hits = scaled >= 0 && scaled % geometry.stride[axis] == 0 && coordinate < layout.inputSize[axis];
            inputOffset += coordinate * layout.inputStrides[axis];
        }
        if (hits)
        {
            taps.kernelOffset.push_back(tap);
            taps.inputOffset.push_back(inputOffset);
        }
    }
}

//! Every output map's value at one output position, in every image of the batch.
void deconvolvePosition(
    FilterOperands const& operands, Layout const& layout, Taps const& taps, int64_t position, TensorView const& output)
{
    std::vector<float> const& x = operands.input;
    std::vector<float> const& w = operands.kernel;
    std::vector<float> const& b = operands.bias;
    for (int64_t n = 0; n < layout.batch; ++n)
    {
        for (int64_t map = 0; map < layout.outputMaps; ++map)
        {
            int64_t const group = map / layout.mapsPerGroup;
            int64_t const mapInGroup = map % layout.mapsPerGroup;
            double sum = b[static_cast<size_t>(map)];
            for (int64_t c = 0; c < layout.channelsPerGroup; ++c)
            {
                int64_t const channel = group * layout.channelsPerGroup + c;
                float const* inputPlaneData = x.data() + (n * layout.inputChannels + channel) * layout.inputPlane;
                float const* kernelPlaneData
                    = w.data() + (channel * layout.mapsPerGroup + mapInGroup) * layout.kernelPlane;
                for (size_t t = 0; t < taps.inputOffset.size(); ++t)
                {
                    sum += static_cast<double>(inputPlaneData[taps.inputOffset[t]])
                        * static_cast<double>(kernelPlaneData[taps.kernelOffset[t]]);
                }
            }
            storeFloat(output, (n * layout.outputMaps + map) * layout.outputPlane + position, static_cast<float>(sum));
        }
    }
}

} // namespace

Shape deconvolutionOutputShape(Shape const& inputShape, network::DeconvolutionParams const& params)
{
    return resolveGeometry(inputShape, params).outputShape;
}

void runDeconvolution(
    network::DeconvolutionParams const& params, ConstTensorView const& input, TensorView const& output)
{
    KernelGeometry const geometry = resolveGeometry(input.shape, params);
    Shape const kernelSize = network::dimsToVector(params.kernelSize);
    int64_t const groups = params.nbGroups;
    int64_t const inputChannels = input.shape[1];
    int64_t const outputMaps = params.nbOutputMaps;
    int64_t const channelsPerGroup = inputChannels / groups;
    int64_t const mapsPerGroup = outputMaps / groups;
    Shape kernelShape{inputChannels, mapsPerGroup};
    kernelShape.insert(kernelShape.end(), kernelSize.begin(), kernelSize.end());
    FilterOperands const operands
        = loadFilterOperands("deconvolution", params, kernelShape, geometry.outputShape, input, output);
    if (output.count() == 0)
    {
        return;
    }

    Shape const inputSize(input.shape.begin() + 2, input.shape.end());
    Shape const& outputSize = geometry.window.outputSize;
    Layout const layout{kernelSize, inputSize, contiguousStrides(inputSize), input.shape[0], inputChannels, outputMaps,
        channelsPerGroup, mapsPerGroup, volume(inputSize), volume(outputSize), volume(kernelSize)};
    Taps taps;
    taps.kernelOffset.reserve(static_cast<size_t>(layout.kernelPlane));
    taps.inputOffset.reserve(static_cast<size_t>(layout.kernelPlane));

    Shape outputIndex(kernelSize.size(), 0);
    Shape kernelIndex(kernelSize.size(), 0);
    for (int64_t position = 0; position < layout.outputPlane; ++position, advanceIndex(outputIndex, outputSize))
    {
        findTaps(geometry, layout, outputIndex, kernelIndex, taps);
        deconvolvePosition(operands, layout, taps, position, output);
    }
}

void run(network::DeconvolutionParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runDeconvolution(params, inputs[0], outputs[0]);
}

} // namespace kiln::cpu
