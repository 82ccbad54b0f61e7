// Runs the seed workflow (seed_workflow.cpp) as two separate processes per plugin
// interface: one builds and writes the plan, the other loads and runs it.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace
{

struct Result
{
    int status;
    std::string output; //!< stdout and stderr together
};

Result runTool(std::string const& arguments)
{
    std::string const command = std::string(SEED_WORKFLOW_TOOL) + " " + arguments + " 2>&1";
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

std::string planPath(std::string const& plugin)
{
    return std::string(::testing::TempDir()) + "kiln_seed_" + plugin + ".plan";
}

class SeedWorkflow : public ::testing::TestWithParam<char const*>
{
};

TEST_P(SeedWorkflow, BuildInOneProcessRunInAnother)
{
    std::string const plugin = GetParam();
    std::string const library = SEED_PLUGIN_LIBRARY;
    Result const built = runTool("build " + library + " " + plugin + " " + planPath(plugin));
    ASSERT_EQ(built.status, 0) << built.output;
    Result const ran = runTool("run " + library + " " + plugin + " " + planPath(plugin));
    EXPECT_EQ(ran.status, 0) << ran.output;
    EXPECT_NE(ran.output.find("outputs match for batch 3 and batch 1"), std::string::npos) << ran.output;
}

TEST_P(SeedWorkflow, BuildInOneProcessRunInAnotherOnTheGpu)
{
    // The same two processes with a CUDA plan: the plugins' own CUDA kernels run on device memory.
    std::string const plugin = GetParam();
    std::string const library = SEED_PLUGIN_LIBRARY;
    std::string const plan = planPath(plugin + "_cuda");
    Result const built = runTool("build " + library + " " + plugin + " " + plan + " cuda");
    if (WIFEXITED(built.status) && WEXITSTATUS(built.status) == 77)
    {
        GTEST_SKIP() << built.output;
    }
    ASSERT_EQ(built.status, 0) << built.output;
    Result const ran = runTool("run " + library + " " + plugin + " " + plan + " cuda");
    EXPECT_EQ(ran.status, 0) << ran.output;
    EXPECT_NE(ran.output.find("outputs match for batch 3 and batch 1"), std::string::npos) << ran.output;
}

TEST_P(SeedWorkflow, LoadingWithoutTheLibraryNamesWhatIsMissing)
{
    std::string const plugin = GetParam();
    std::string const library = SEED_PLUGIN_LIBRARY;
    ASSERT_EQ(runTool("build " + library + " " + plugin + " " + planPath(plugin)).status, 0);
    Result const ran = runTool("run none " + plugin + " " + planPath(plugin));
    EXPECT_NE(ran.status, 0);
    EXPECT_NE(ran.output.find(plugin + " (version 1, namespace \"\")"), std::string::npos) << ran.output;
    EXPECT_NE(ran.output.find("libkiln_seed_plugins.so"), std::string::npos) << ran.output;
    EXPECT_NE(ran.output.find("load that library first"), std::string::npos) << ran.output;
}

INSTANTIATE_TEST_SUITE_P(AllInterfaces, SeedWorkflow,
    ::testing::Values("MyCustomPlugin", "FooPlugin", "CustomPlugin", "ScaledAdd"),
    [](auto const& testInfo) { return std::string(testInfo.param); });

} // namespace
