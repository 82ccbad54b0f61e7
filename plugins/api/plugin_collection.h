// The list of Kiln's own plugins. Each plugin folder adds its creator factory here.
#pragma once

#include <NvInferRuntime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::plugins
{

//! Makes a creator whose plugins live in the given namespace.
using CreatorFactory = std::function<std::unique_ptr<nvinfer1::IPluginCreatorInterface>(std::string const& ns)>;

//! Every plugin of the collection, in registration order.
std::vector<CreatorFactory> const& collection();

} // namespace kiln::plugins
