// --timingCacheFile, as trtexec: the builder reads the cache from the file when it exists and
// the file is rewritten with what the build added.
#pragma once

#include <NvInfer.h>

#include <memory>
#include <string>

namespace kiln::cli
{

//! The cache in `path` (an empty one when there is no such file), attached to `config`; nullptr after logging why
//! (an unreadable or corrupt file, timings from another device).
std::unique_ptr<nvinfer1::ITimingCache> attachTimingCache(nvinfer1::IBuilderConfig& config, std::string const& path);

//! Writes `cache` to `path` through a temporary file, so that an interrupted write leaves the old cache whole.
bool saveTimingCache(nvinfer1::ITimingCache const& cache, std::string const& path);

} // namespace kiln::cli
