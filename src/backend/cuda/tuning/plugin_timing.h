// The CUDA backend's plugin timer: runs the plugin's own enqueue on zero-filled device buffers and a stream of its
// own, timed with CUDA events.
#pragma once

#include "backend/plugin_timer.h"

#include <memory>

namespace kiln::cuda
{

std::unique_ptr<backend::PluginTimer> makeDevicePluginTimer();

} // namespace kiln::cuda
