// The plugins the plan fuzzers' seed plans use: Kiln's collection and the seed plugins' library, registered once at
// start, so that plans holding plugin layers load and run instead of stopping at the manifest.
#pragma once

#include <NvInferPlugin.h>
#include <NvInferRuntime.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kiln::fuzz
{

[[noreturn]] inline void die(char const* fuzzer, std::string const& message)
{
    std::fprintf(stderr, "%s: %s\n", fuzzer, message.c_str());
    std::abort();
}

inline void registerSeedPlugins(char const* fuzzer, nvinfer1::ILogger& logger)
{
    initLibNvInferPlugins(&logger, "");
    if (dlopen(KILN_FUZZ_SEED_PLUGIN_LIBRARY, RTLD_NOW | RTLD_GLOBAL) == nullptr)
    {
        die(fuzzer, std::string("cannot load the seed plugins: ") + dlerror());
    }
}

} // namespace kiln::fuzz
