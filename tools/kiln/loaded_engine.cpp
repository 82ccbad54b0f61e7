#include "loaded_engine.h"

#include "bounded_io.h"
#include "cli_logger.h"

namespace kiln::cli
{

bool loadEngine(void const* data, size_t size, std::string const& origin, LoadedEngine& loaded)
{
    loaded.engine.reset();
    loaded.runtime.reset(nvinfer1::createInferRuntime(logger()));
    if (loaded.runtime != nullptr)
    {
        loaded.engine.reset(loaded.runtime->deserializeCudaEngine(data, size));
    }
    if (loaded.engine == nullptr)
    {
        logError("Cannot load the engine from " + origin
            + " (see the error above). A plan that needs plugins "
              "loads only when their libraries are loaded: --staticPlugins=LIB or --dynamicPlugins=LIB");
        return false;
    }
    return true;
}

bool readFile(std::string const& path, char const* flag, std::vector<uint8_t>& bytes, std::string& error)
{
    return readBoundedFile(path, flag, kMaxPlanBytes, bytes, error);
}

} // namespace kiln::cli
