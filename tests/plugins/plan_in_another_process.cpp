#include "plan_in_another_process.h"

#include "kiln_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <tuple>

namespace kiln::test
{
namespace
{

using nlohmann::json;

//! True the first time a plugin is seen on a backend: the checks cost two processes each.
bool firstTime(kiln::Backend backend, std::string const& pluginName, std::string const& version)
{
    static std::mutex mutex;
    static std::set<std::tuple<kiln::Backend, std::string, std::string>> checked;
    std::lock_guard<std::mutex> lock(mutex);
    return checked.emplace(backend, pluginName, version).second;
}

bool anyEmpty(std::vector<HostTensor> const& tensors)
{
    return std::any_of(tensors.begin(), tensors.end(), [](HostTensor const& t) { return t.bytes.empty(); });
}

//! --loadInputs's value, after writing each input's bytes to its file.
std::string writeInputs(ScratchDir const& dir, std::vector<HostTensor> const& inputs)
{
    std::string spec;
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        std::string const name = "input" + std::to_string(i);
        writeBytes(dir.path(name + ".bin"), inputs[i].bytes.data(), inputs[i].bytes.size());
        spec += (spec.empty() ? "" : ",") + name + ":" + dir.path(name + ".bin");
    }
    return spec;
}

//! Whether a value of --exportOutput's file (null for NaN and infinities, which JSON cannot hold) is `expected`.
bool sameValue(json const& value, float expected, double tolerance)
{
    if (value.is_null())
    {
        return !std::isfinite(expected);
    }
    auto const actual = static_cast<float>(value.get<double>());
    return actual == expected || std::fabs(actual - expected) <= tolerance * std::max(1.0F, std::fabs(expected));
}

void expectSameOutputs(json const& exported, std::vector<HostTensor> const& outputs, double tolerance)
{
    ASSERT_EQ(exported.size(), outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        std::string const name = "output" + std::to_string(i);
        auto const found
            = std::find_if(exported.begin(), exported.end(), [&](json const& t) { return t["name"] == name; });
        ASSERT_NE(found, exported.end()) << name << " is missing from --exportOutput's file";
        json const& tensor = *found;
        std::vector<float> const expected = outputs[i].floats();
        ASSERT_EQ(tensor["values"].size(), expected.size()) << name;
        for (size_t k = 0; k < expected.size(); ++k)
        {
            ASSERT_TRUE(sameValue(tensor["values"][k], expected[k], tolerance))
                << name << "[" << k << "]: " << tensor["values"][k] << " in the other process, " << expected[k]
                << " in this one";
        }
    }
}

} // namespace

void checkPlanInAnotherProcess(kiln::Backend backend, std::string const& pluginName, std::string const& version,
    nvinfer1::IHostMemory const& plan, std::vector<HostTensor> const& inputs, std::vector<HostTensor> const& outputs)
{
    if (anyEmpty(inputs) || anyEmpty(outputs) || !firstTime(backend, pluginName, version))
    {
        return;
    }
    SCOPED_TRACE(pluginName + " version " + version + " in another process");
    ScratchDir dir;
    writeBytes(dir.path("plugin.plan"), plan.data(), plan.size());

    KilnRun const inspected = runKiln({"inspect", dir.path("plugin.plan")});
    ASSERT_EQ(inspected.exitCode, 0) << inspected.output;
    EXPECT_NE(
        inspected.output.find("Plugins needed (1):\n  " + pluginName + " version " + version + " "), std::string::npos)
        << inspected.output;

    std::vector<std::string> run{"--loadEngine=" + dir.path("plugin.plan"),
        std::string("--backend=") + kiln::backendName(backend), "--exportOutput=" + dir.path("out.json"), "--warmUp=0",
        "--duration=0", "--iterations=1"};
    if (!inputs.empty())
    {
        run.push_back("--loadInputs=" + writeInputs(dir, inputs));
    }
    KilnRun const loaded = runKiln(run);
    ASSERT_EQ(loaded.exitCode, 0) << loaded.output;
    double const tolerance = backend == kiln::Backend::kCPU ? 0.0 : 1e-6;
    expectSameOutputs(json::parse(readText(dir.path("out.json"))), outputs, tolerance);
}

} // namespace kiln::test
