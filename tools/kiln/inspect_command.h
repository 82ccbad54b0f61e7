// `kiln inspect PLAN`: what a plan holds, read straight from the file (no plugin has to be
// loaded): the build passes of its backend, the plugins and libraries it needs, its I/O tensors
// and profiles, its layers with their chosen precision and formats, and its memory plan.
#pragma once

#include <string>

namespace kiln::cli
{

//! Prints the plan at path to stdout. Returns the process exit code.
int inspectPlan(std::string const& path);

} // namespace kiln::cli
