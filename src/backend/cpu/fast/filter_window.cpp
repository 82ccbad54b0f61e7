#include "backend/cpu/fast/filter_window.h"

#include "backend/cpu/fast/onednn.h"
#include "backend/cpu/kernels/layer_inputs.h"
#include "network/layers/layer_utils.h"

namespace kiln::cpu::fast
{

using backend::WindowDirection;
using dnnl::memory;

FilterWindow filterWindow(network::WindowedFilterParams const& params, WindowDirection direction,
    Shape const& inputShape, Shape const& outputShape)
{
    bool const transposed = direction == WindowDirection::kTRANSPOSED;
    char const* layer = transposed ? "deconvolution" : "convolution";
    backend::KernelGeometry const geometry = backend::resolveKernelGeometry(layer, direction, inputShape, params);
    Shape const kernelSize = network::dimsToVector(params.kernelSize);
    FilterWindow window;
    for (size_t axis = 0; axis < kernelSize.size(); ++axis)
    {
        int64_t const extent = 1 + geometry.dilation[axis] * (kernelSize[axis] - 1);
        int64_t const before = geometry.window.prePadding[axis];
        int64_t const input = inputShape[2 + axis];
        int64_t const output = outputShape[2 + axis];
        window.strides.push_back(geometry.stride[axis]);
        window.dilation.push_back(geometry.dilation[axis] - 1);
        window.before.push_back(before);
        // Convolution: O = (I + B + A - DK) / S + 1. Deconvolution: O = (I - 1) * S + DK - B - A.
        window.after.push_back(transposed ? (input - 1) * geometry.stride[axis] + extent - output - before
                                          : (output - 1) * geometry.stride[axis] + extent - input - before);
    }
    return window;
}

memory::desc filterWeights(
    network::WindowedFilterParams const& params, WindowDirection direction, int64_t inputChannels)
{
    bool const transposed = direction == WindowDirection::kTRANSPOSED;
    Shape const kernelSize = network::dimsToVector(params.kernelSize);
    int64_t const groups = params.nbGroups;
    int64_t const maps = params.nbOutputMaps;
    // As the layer stores them: [K, C / G, k...] or, transposed, [C, K / G, k...].
    Shape stored = transposed ? Shape{inputChannels, maps / groups} : Shape{maps, inputChannels / groups};
    stored.insert(stored.end(), kernelSize.begin(), kernelSize.end());
    filterWeightsView(params, stored, transposed ? "deconvolution" : "convolution");

    memory::dims dims = groups == 1 ? memory::dims{maps, inputChannels}
                                    : memory::dims{groups, maps / groups, inputChannels / groups};
    dims.insert(dims.end(), kernelSize.begin(), kernelSize.end());
    if (!transposed)
    {
        return linearDesc(dims);
    }
    // iow, iohw, iodhw and their grouped forms, by the number of spatial axes.
    using Tag = memory::format_tag;
    static constexpr Tag kTransposed[] = {Tag::bac, Tag::bacd, Tag::bacde};
    static constexpr Tag kGroupedTransposed[] = {Tag::acbd, Tag::acbde, Tag::acbdef};
    size_t const spatial = kernelSize.size() - 1;
    return memory::desc(dims, memory::data_type::f32, groups == 1 ? kTransposed[spatial] : kGroupedTransposed[spatial]);
}

} // namespace kiln::cpu::fast
