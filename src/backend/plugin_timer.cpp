#include "backend/plugin_timer.h"

#include "core/tensor_view.h"

#include <device_common/element_size.h>

#include <algorithm>

namespace kiln::backend
{

size_t pluginTensorBytes(nvinfer1::PluginTensorDesc const& desc)
{
    Shape const shape(desc.dims.d, desc.dims.d + std::max(desc.dims.nbDims, 0));
    auto const count = static_cast<size_t>(storedCount(shape, desc.format));
    size_t const bytes = count * elementSize(desc.type);
    // Sub-byte types pack two elements a byte; round up so that an odd count keeps its last element.
    return desc.type == nvinfer1::DataType::kINT4 || desc.type == nvinfer1::DataType::kFP4 ? (count + 1) / 2 : bytes;
}

} // namespace kiln::backend
