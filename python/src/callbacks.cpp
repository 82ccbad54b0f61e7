#include "callbacks.h"

#include <NvInferRuntime.h>

namespace kiln::python
{

void logCallbackError(std::string const& what)
{
    // Kiln's global logger: the application's (the newest builder's or runtime's), as for Kiln's own errors.
    if (nvinfer1::ILogger* logger = getLogger())
    {
        logger->log(nvinfer1::ILogger::Severity::kERROR, what.c_str());
    }
}

} // namespace kiln::python
