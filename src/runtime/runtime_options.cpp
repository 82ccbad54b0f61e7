// IRuntime's options that Kiln has nothing behind (DLA, lean runtimes): each refusal logs one error naming the call
// and why (docs/api-coverage.md lists them).
#include "runtime/runtime.h"

#include "core/logging.h"

namespace kiln::runtime
{

void Runtime::setDLACore(int32_t dlaCore) noexcept
{
    if (dlaCore != -1)
    {
        logError("IRuntime::setDLACore: Kiln has no DLA cores");
    }
}

nvinfer1::IRuntime* Runtime::loadRuntime(char const* /*path*/) noexcept
{
    logError("IRuntime::loadRuntime: Kiln has no lean runtimes; its plans load in the runtime that built them");
    return nullptr;
}

} // namespace kiln::runtime
