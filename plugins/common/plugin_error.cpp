#include "plugin_error.h"

namespace kiln::plugins
{

void logError(std::string const& message) noexcept
{
    if (nvinfer1::ILogger* logger = getLogger())
    {
        logger->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    }
}

} // namespace kiln::plugins
