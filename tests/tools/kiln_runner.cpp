#include "kiln_runner.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/wait.h>
#include <unistd.h>

namespace kiln::test
{
namespace
{

std::string shellQuote(std::string const& word)
{
    std::string quoted = "'";
    for (char c : word)
    {
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
}

} // namespace

ScratchDir::ScratchDir()
{
    std::string pattern = (std::filesystem::temp_directory_path() / "kiln_cli_test_XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    mPath = made != nullptr ? made : "";
}

ScratchDir::~ScratchDir()
{
    std::error_code ignored;
    std::filesystem::remove_all(mPath, ignored);
}

KilnRun runKiln(std::vector<std::string> args)
{
    // The tests describe the CPU backend unless they choose one; without a flag, a machine with a GPU would use it.
    bool const subcommand = !args.empty() && (args[0] == "inspect" || args[0] == "plugins");
    bool const chosen
        = std::any_of(args.begin(), args.end(), [](std::string const& a) { return a.rfind("--backend", 0) == 0; });
    if (!subcommand && !chosen)
    {
        args.push_back("--backend=cpu");
    }
    return runKilnAsIs(args);
}

KilnRun runKilnAsIs(std::vector<std::string> const& args)
{
    std::string command = shellQuote(KILN_EXE);
    for (std::string const& arg : args)
    {
        command += " " + shellQuote(arg);
    }
    command += " 2>&1";
    KilnRun run;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr)
    {
        return run;
    }
    char buffer[4096];
    size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    {
        run.output.append(buffer, got);
    }
    int const status = pclose(pipe);
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

std::string readText(std::string const& path)
{
    std::ifstream file(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

void writeBytes(std::string const& path, void const* data, size_t size)
{
    std::ofstream file(path, std::ios::binary);
    file.write(static_cast<char const*>(data), static_cast<std::streamsize>(size));
}

} // namespace kiln::test
