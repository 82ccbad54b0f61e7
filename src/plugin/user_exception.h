// Turns an exception thrown by user code (a creator, a plugin library, a resource)
// into text for an error message.
#pragma once

#include <string>

namespace kiln::plugin
{

//! "threw an exception: <what()>" or "threw an exception of unknown type".
//! Call only inside a catch block.
std::string describeCurrentException() noexcept;

} // namespace kiln::plugin
