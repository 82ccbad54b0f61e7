// kiln::setCpuThreads and getCpuThreads (include/kiln/CpuBackend.h).
#include "core/logging.h"
#include "runtime/execution_context.h"

#include <kiln/CpuBackend.h>

#include <string>

namespace kiln
{

bool setCpuThreads(nvinfer1::IExecutionContext& context, int32_t threads, bool fixed) noexcept
{
    auto* ours = dynamic_cast<runtime::ExecutionContext*>(&context);
    if (threads < 0)
    {
        logError("kiln::setCpuThreads: " + std::to_string(threads)
            + " threads; expected 0 (the cores available) "
              "or more");
        return false;
    }
    if (ours == nullptr || !ours->executor().setThreads(threads, !fixed))
    {
        logError("kiln::setCpuThreads: the context does not run on Kiln's CPU backend");
        return false;
    }
    return true;
}

int32_t getCpuThreads(nvinfer1::IExecutionContext const& context) noexcept
{
    auto const* ours = dynamic_cast<runtime::ExecutionContext const*>(&context);
    return ours != nullptr ? ours->executor().threads() : 0;
}

} // namespace kiln
