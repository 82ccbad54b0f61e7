#include "timing_cache_file.h"

#include "cli_logger.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

namespace kiln::cli
{

std::unique_ptr<nvinfer1::ITimingCache> attachTimingCache(nvinfer1::IBuilderConfig& config, std::string const& path)
{
    std::vector<char> bytes;
    if (std::ifstream file{path, std::ios::binary}; file.good())
    {
        bytes.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
        logInfo("Loaded " + std::to_string(bytes.size()) + " bytes of timing cache from " + path);
    }
    std::unique_ptr<nvinfer1::ITimingCache> cache(config.createTimingCache(bytes.data(), bytes.size()));
    if (cache == nullptr)
    {
        logError("--timingCacheFile: \"" + path + "\" is not a usable timing cache (see the error above)");
        return nullptr;
    }
    if (!config.setTimingCache(*cache, false))
    {
        logError("--timingCacheFile: \"" + path + "\" cannot be used on this device (see the error above)");
        return nullptr;
    }
    return cache;
}

bool saveTimingCache(nvinfer1::ITimingCache const& cache, std::string const& path)
{
    std::unique_ptr<nvinfer1::IHostMemory> const bytes(cache.serialize());
    std::string const temporary = path + ".partial";
    {
        std::ofstream file(temporary, std::ios::binary);
        file.write(static_cast<char const*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
        if (!file.good())
        {
            logError("--timingCacheFile: cannot write \"" + temporary + "\"");
            std::remove(temporary.c_str());
            return false;
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
    {
        logError("--timingCacheFile: cannot replace \"" + path + "\"");
        std::remove(temporary.c_str());
        return false;
    }
    logInfo("Saved " + std::to_string(bytes->size()) + " bytes of timing cache to " + path);
    return true;
}

} // namespace kiln::cli
