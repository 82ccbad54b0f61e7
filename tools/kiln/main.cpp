// kiln: Kiln's command line. Subcommands: plugins.
#include "plugins_command.h"

#include <NvInferVersion.h>

#include <CLI/CLI.hpp>

int main(int argc, char** argv)
{
    CLI::App app{"kiln " KILN_VERSION_STRING ": an inference engine for TensorRT plugins"};
    app.require_subcommand(1);

    kiln::cli::PluginLibraries libraries;
    CLI::App* plugins = app.add_subcommand("plugins", "List the registered plugin creators with their fields");
    plugins->add_option("--staticPlugins", libraries.staticLibraries,
        "Plugin library to dlopen; its REGISTER_TENSORRT_PLUGIN creators register (repeatable)");
    plugins->add_option("--plugins", libraries.staticLibraries, "Deprecated spelling of --staticPlugins");
    plugins->add_option("--dynamicPlugins", libraries.dynamicLibraries,
        "Plugin library to load through IPluginRegistry::loadLibrary (repeatable)");

    CLI11_PARSE(app, argc, argv);
    if (plugins->parsed())
    {
        return kiln::cli::listPlugins(libraries);
    }
    return 0;
}
