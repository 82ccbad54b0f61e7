// kiln: Kiln's command line. `kiln [trtexec flags]` builds, runs and times a model as trtexec
// does; `kiln inspect PLAN` and `kiln plugins` are subcommands.
#include "inspect_command.h"
#include "plugins_command.h"
#include "run_command.h"

#include <NvInferVersion.h>

#include <CLI/CLI.hpp>

#include "core/printable_text.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

namespace
{

int runPlugins(int argc, char** argv)
{
    CLI::App app{"kiln plugins: list the registered plugin creators with their fields"};
    kiln::cli::PluginLibraries libraries;
    app.add_option("--staticPlugins", libraries.staticLibraries,
        "Plugin library to dlopen; its REGISTER_TENSORRT_PLUGIN creators register (repeatable)");
    std::vector<std::string> deprecated; // its own list: two options bound to one vector overwrite each other
    app.add_option("--plugins", deprecated, "Deprecated spelling of --staticPlugins");
    app.add_option("--dynamicPlugins", libraries.dynamicLibraries,
        "Plugin library to load through IPluginRegistry::loadLibrary (repeatable)");
    CLI11_PARSE(app, argc, argv);
    libraries.staticLibraries.insert(libraries.staticLibraries.end(), deprecated.begin(), deprecated.end());
    return kiln::cli::listPlugins(libraries);
}

int runInspect(int argc, char** argv)
{
    CLI::App app{"kiln inspect: the plugins, tensors, layers and memory plan of a plan file"};
    std::string plan;
    app.add_option("PLAN", plan, "The plan file (from --saveEngine)")->required();
    CLI11_PARSE(app, argc, argv);
    return kiln::cli::inspectPlan(plan);
}

} // namespace

int main(int argc, char** argv)
{
    // Every failure is reported and ends with a non-zero exit, never an abort: the commands report their own
    // errors by flag, file or tensor, and this catches what escapes them.
    try
    {
        // Subcommands are words; everything else is the trtexec-style main command.
        if (argc > 1 && std::strcmp(argv[1], "plugins") == 0)
        {
            return runPlugins(argc - 1, argv + 1);
        }
        if (argc > 1 && std::strcmp(argv[1], "inspect") == 0)
        {
            return runInspect(argc - 1, argv + 1);
        }
        return kiln::cli::runMainCommand(argc, argv);
    }
    catch (std::bad_alloc const&)
    {
        std::fprintf(stderr, "kiln: out of memory: an allocation failed\n");
    }
    catch (std::exception const& e)
    {
        std::fprintf(stderr, "kiln: unexpected error: %s\n", kiln::printableText(e.what()).c_str());
    }
    return 1;
}
