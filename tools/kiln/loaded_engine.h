// An engine with the runtime that loaded it (destroyed in the right order), from plan bytes or a file.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::cli
{

struct LoadedEngine
{
    std::unique_ptr<nvinfer1::IRuntime> runtime;
    std::unique_ptr<nvinfer1::ICudaEngine> engine; //!< destroyed before the runtime
};

//! Deserializes plan bytes; false after logging why (e.g. a plugin the plan needs is not loaded).
bool loadEngine(void const* data, size_t size, std::string const& origin, LoadedEngine& loaded);

//! Reads a whole plan file, of at most kMaxPlanBytes (bounded_io.h); false with error naming the flag and file.
bool readFile(std::string const& path, char const* flag, std::vector<uint8_t>& bytes, std::string& error);

} // namespace kiln::cli
