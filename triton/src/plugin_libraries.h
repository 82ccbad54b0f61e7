// Plugin libraries a model needs, loaded into the server's process before its plan or ONNX file is read.
#pragma once

#include <string>
#include <vector>

namespace kiln::triton
{

//! Loads each library as trtexec's --staticPlugins does (dlopen with RTLD_GLOBAL: a library's static initialisers
//! register its creators with REGISTER_TENSORRT_PLUGIN). Libraries stay loaded for the life of the process: the
//! registry holds their creators. A BackendError (NOT_FOUND) names a library that cannot be loaded and why.
void loadPluginLibraries(std::vector<std::string> const& paths);

//! Registers Kiln's plugin collection (NVIDIA's standard plugins: EfficientNMS_TRT, ...) once.
void registerKilnPlugins();

} // namespace kiln::triton
