// Runs the INT8 plugin workflow (int8_workflow.cpp) as two processes per case: one builds and writes the plan, the
// other loads and runs it, for each format the plugin may ask for and both ways a network gives INT8 scales.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <tuple>

namespace
{

struct Result
{
    int status;
    std::string output; //!< stdout and stderr together
};

Result runTool(std::string const& arguments)
{
    std::string const command = std::string(INT8_WORKFLOW_TOOL) + " " + arguments + " 2>&1";
    Result result{-1, {}};
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr)
    {
        return result;
    }
    std::array<char, 512> buffer{};
    while (fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr)
    {
        result.output += buffer.data();
    }
    result.status = pclose(pipe);
    return result;
}

//! (how the network quantizes: "qdq" or "range", the plugin's format field: 0, 4 or 32, its version: 1 for
//! IPluginV2DynamicExt, 2 for IPluginV2IOExt, 3 for IPluginV3)
class Int8PluginWorkflow : public ::testing::TestWithParam<std::tuple<char const*, char const*, char const*>>
{
protected:
    std::string arguments(std::string const& backend) const
    {
        auto const [mode, format, version] = GetParam();
        std::string const plan = std::string(::testing::TempDir()) + "kiln_int8_" + mode + "_" + format + "_v" + version
            + "_" + backend + ".plan";
        return std::string(INT8_PLUGIN_LIBRARY) + " " + mode + " " + format + " " + version + " " + plan + " "
            + backend;
    }
};

TEST_P(Int8PluginWorkflow, BuildInOneProcessRunInAnother)
{
    Result const built = runTool("build " + arguments("cpu"));
    ASSERT_EQ(built.status, 0) << built.output;
    Result const ran = runTool("run " + arguments("cpu"));
    EXPECT_EQ(ran.status, 0) << ran.output;
    EXPECT_NE(ran.output.find("outputs match for batch 3 and batch 1"), std::string::npos) << ran.output;
    // The plugin's INT8 tensors in the format it asked for, as the inspector reports them (a linear plugin shows no
    // vectorized format anywhere).
    std::string const format = std::get<1>(GetParam());
    if (format == "0")
    {
        EXPECT_EQ(ran.output.find("the inspector shows (CHW"), std::string::npos) << ran.output;
    }
    else
    {
        std::string const shown = format == "4" ? "(CHW4) INT8" : "(CHW32) INT8";
        EXPECT_NE(ran.output.find("the inspector shows " + shown), std::string::npos) << ran.output;
    }
}

TEST_P(Int8PluginWorkflow, BuildInOneProcessRunInAnotherOnTheGpu)
{
    Result const built = runTool("build " + arguments("cuda"));
    if (WIFEXITED(built.status) && WEXITSTATUS(built.status) == 77)
    {
        GTEST_SKIP() << built.output;
    }
    ASSERT_EQ(built.status, 0) << built.output;
    Result const ran = runTool("run " + arguments("cuda"));
    EXPECT_EQ(ran.status, 0) << ran.output;
    EXPECT_NE(ran.output.find("outputs match for batch 3 and batch 1"), std::string::npos) << ran.output;
}

INSTANTIATE_TEST_SUITE_P(FormatsAndScales, Int8PluginWorkflow,
    ::testing::Combine(
        ::testing::Values("qdq", "range"), ::testing::Values("0", "4", "32"), ::testing::Values("1", "2", "3")),
    [](auto const& testInfo) {
        return std::string(std::get<0>(testInfo.param)) + "_format" + std::get<1>(testInfo.param) + "_v"
            + std::get<2>(testInfo.param);
    });

} // namespace
