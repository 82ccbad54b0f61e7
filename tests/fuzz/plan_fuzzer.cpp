// libFuzzer entry point for the plan reader: any byte string given to IRuntime::deserializeCudaEngine (CPU backend)
// must give a null engine with a logged error or an engine, never a crash, a leak or a hang. A plan's checksum would
// turn away almost every mutation before the reader parses anything, so inputs that start with the plan's magic get
// their payload size and checksum rewritten first: the reader is fuzzed as if a writer had produced the bytes.
// Engines that load are run once (engine_run.h: zeroed inputs, the profile's minimum shapes, memory capped); the
// plugins of the seed plans are registered, so that plans with plugin layers load and run too.
//
// At start the harness writes, where KILN_FUZZ_PLAN_SEEDS names a folder, each seed plan's variants with a record
// changed to a size that overflows or a broken layer contract (plan_mutations.h) into it: CTest's seed folder.
#include "engine_run.h"
#include "fuzz_plugins.h"
#include "fuzz_support.h"
#include "plan_checksum.h"
#include "plan_mutations.h"
#include "plan_with_payload.h"

#include <NvInferRuntime.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

namespace
{

//! Writes every seed plan's overflow variants into `folder` as "<seed>.<variant>".
void writeOverflowSeeds(std::filesystem::path const& seeds, std::filesystem::path const& folder)
{
    for (auto const& entry : std::filesystem::directory_iterator(seeds))
    {
        for (auto const& [name, plan] : kiln::fuzz::overflowVariants(kiln::fuzz::readBytes(entry.path())))
        {
            std::ofstream file(folder / (entry.path().stem().string() + "." + name), std::ios::binary);
            file.write(reinterpret_cast<char const*>(plan.data()), static_cast<std::streamsize>(plan.size()));
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    static kiln::fuzz::SilentLogger logger;
    kiln::fuzz::registerSeedPlugins("plan_fuzzer", logger);
    char const* folder = std::getenv("KILN_FUZZ_PLAN_SEEDS");
    if (folder != nullptr && *folder != '\0')
    {
        writeOverflowSeeds(KILN_FUZZ_SEED_PLANS, folder);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    static kiln::fuzz::SilentLogger logger;
    static std::unique_ptr<nvinfer1::IRuntime> const runtime{nvinfer1::createInferRuntime(logger)};
    std::vector<uint8_t> const plan = kiln::fuzz::withValidChecksum(data, size);
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    if (engine != nullptr)
    {
        kiln::fuzz::runOnce(*engine);
    }
    return 0;
}
