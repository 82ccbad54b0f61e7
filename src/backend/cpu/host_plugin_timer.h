// The CPU backend's plugin timer: runs the plugin through kiln::IHostPlugin on host buffers, timed by the clock.
#pragma once

#include "backend/plugin_timer.h"

#include <memory>

namespace kiln::cpu
{

std::unique_ptr<backend::PluginTimer> makeHostPluginTimer();

} // namespace kiln::cpu
