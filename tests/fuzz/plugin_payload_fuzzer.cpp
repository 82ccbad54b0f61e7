// libFuzzer entry point for the plugin payload path: the bytes a plan stores for a plugin layer (what the plugin's
// serialize() wrote, or a V3 plugin's encoded fields) reach the creator's deserializePlugin or createPlugin(kRUNTIME)
// when the plan is loaded. Whatever those bytes are, loading the plan (CPU backend), creating a context and running
// it once (engine_run.h) must end in an engine or a logged error, never a crash, a leak or a hang.
//
// An input is "<seed>\n<payload>": <seed> names one of the seed plans (tests/fuzz/seeds/plans, by file name without
// ".plan"), whose first plugin layer gets <payload> as its bytes before the plan is written again with a valid
// checksum. At start the harness writes one such input per seed plan, its payload unchanged, into the corpus folder
// named by KILN_FUZZ_PAYLOAD_SEEDS (CTest's seed folder).
#include "engine_run.h"
#include "fuzz_plugins.h"
#include "fuzz_support.h"
#include "plan_with_payload.h"

#include <NvInferRuntime.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace
{

//! Seed plans that hold a plugin layer, by name.
std::map<std::string, std::vector<uint8_t>>& seedPlans()
{
    static std::map<std::string, std::vector<uint8_t>> plans;
    return plans;
}

[[noreturn]] void die(std::string const& message)
{
    kiln::fuzz::die("plugin_payload_fuzzer", message);
}

//! Reads the seed plans that hold plugins; a seed the reader rejects means the seeds are stale (make_seeds.sh).
void loadSeedPlans(std::filesystem::path const& folder, char const* corpus)
{
    for (auto const& entry : std::filesystem::directory_iterator(folder))
    {
        std::vector<uint8_t> bytes = kiln::fuzz::readBytes(entry.path());
        kiln::plan::PlanModel model;
        std::string error;
        if (!kiln::plan::readPlan(bytes.data(), bytes.size(), model, error))
        {
            die("seed " + entry.path().string() + " is unreadable (" + error + "): run tests/fuzz/make_seeds.sh");
        }
        kiln::plan::LayerRecord const* layer = kiln::fuzz::firstPluginLayer(model);
        if (layer == nullptr)
        {
            continue;
        }
        auto const& params = static_cast<kiln::network::PluginParams const&>(*layer->params);
        std::string const name = entry.path().stem().string();
        seedPlans()[name] = std::move(bytes);
        if (corpus != nullptr && *corpus != '\0')
        {
            std::ofstream seed(std::filesystem::path(corpus) / name, std::ios::binary);
            seed << name << '\n';
            seed.write(reinterpret_cast<char const*>(params.payload.bytes.data()), params.payload.bytes.size());
        }
    }
}

//! The plan an input stands for; empty where it names no seed plan.
std::vector<uint8_t> planOfInput(uint8_t const* data, size_t size)
{
    kiln::fuzz::PayloadInput input;
    if (!kiln::fuzz::splitInput(data, size, input))
    {
        return {};
    }
    auto const seed = seedPlans().find(input.seed);
    return seed == seedPlans().end() ? std::vector<uint8_t>{}
                                     : kiln::fuzz::planWithPayload(seed->second, input.payload, input.size);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    static kiln::fuzz::SilentLogger logger;
    kiln::fuzz::registerSeedPlugins("plugin_payload_fuzzer", logger);
    loadSeedPlans(KILN_FUZZ_SEED_PLANS, std::getenv("KILN_FUZZ_PAYLOAD_SEEDS"));
    if (seedPlans().empty())
    {
        die(std::string("no seed plan with a plugin layer in ") + KILN_FUZZ_SEED_PLANS);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    static kiln::fuzz::SilentLogger logger;
    static std::unique_ptr<nvinfer1::IRuntime> const runtime{nvinfer1::createInferRuntime(logger)};
    std::vector<uint8_t> const plan = planOfInput(data, size);
    if (plan.empty())
    {
        return 0;
    }
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    if (engine == nullptr)
    {
        return 0;
    }
    kiln::fuzz::runOnce(*engine);
    return 0;
}
