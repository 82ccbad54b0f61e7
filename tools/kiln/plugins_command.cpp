#include "plugins_command.h"

#include "core/printable_text.h"

#include <NvInferRuntime.h>
#include <kiln/PluginRegistry.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

namespace kiln::cli
{
namespace
{

char const* fieldTypeName(nvinfer1::PluginFieldType type)
{
    using nvinfer1::PluginFieldType;
    switch (type)
    {
    case PluginFieldType::kFLOAT16: return "FLOAT16";
    case PluginFieldType::kFLOAT32: return "FLOAT32";
    case PluginFieldType::kFLOAT64: return "FLOAT64";
    case PluginFieldType::kINT8: return "INT8";
    case PluginFieldType::kINT16: return "INT16";
    case PluginFieldType::kINT32: return "INT32";
    case PluginFieldType::kCHAR: return "CHAR";
    case PluginFieldType::kDIMS: return "DIMS";
    case PluginFieldType::kUNKNOWN: return "UNKNOWN";
    case PluginFieldType::kBF16: return "BF16";
    case PluginFieldType::kINT64: return "INT64";
    case PluginFieldType::kFP8: return "FP8";
    case PluginFieldType::kINT4: return "INT4";
    case PluginFieldType::kFP4: return "FP4";
    }
    return "?";
}

struct CreatorSummary
{
    std::string name;
    std::string version;
    std::string pluginNamespace;
    std::string interface;
    nvinfer1::PluginFieldCollection const* fields{nullptr};
    std::string library;
};

CreatorSummary summarize(nvinfer1::IPluginCreatorInterface& creator)
{
    CreatorSummary summary;
    char const* kind = creator.getInterfaceInfo().kind;
    if (std::strcmp(kind, "PLUGIN CREATOR_V1") == 0)
    {
        auto& v2 = static_cast<nvinfer1::IPluginCreator&>(creator);
        summary = {v2.getPluginName(), v2.getPluginVersion(), v2.getPluginNamespace(), "IPluginV2 family",
            v2.getFieldNames(), {}};
    }
    else if (std::strcmp(kind, "PLUGIN CREATOR_V3ONE") == 0)
    {
        auto& v3 = static_cast<nvinfer1::IPluginCreatorV3One&>(creator);
        summary
            = {v3.getPluginName(), v3.getPluginVersion(), v3.getPluginNamespace(), "IPluginV3", v3.getFieldNames(), {}};
    }
    else
    {
        summary.name = std::string("(creator of unknown kind \"") + kind + "\")";
    }
    return summary;
}

} // namespace

int listPlugins(PluginLibraries const& libraries)
{
    if (!loadPluginLibraries(libraries))
    {
        return 1;
    }
    int32_t count = 0;
    nvinfer1::IPluginCreatorInterface* const* creators = getPluginRegistry()->getAllCreators(&count);
    std::vector<CreatorSummary> summaries;
    for (int32_t i = 0; i < count; ++i)
    {
        summaries.push_back(summarize(*creators[i]));
        summaries.back().library = pluginLibraryOf(*creators[i]);
    }
    std::sort(summaries.begin(), summaries.end(), [](auto const& a, auto const& b) {
        return std::tie(a.pluginNamespace, a.name, a.version) < std::tie(b.pluginNamespace, b.name, b.version);
    });

    std::printf("%d registered plugin creator%s\n", count, count == 1 ? "" : "s");
    for (auto const& s : summaries)
    {
        // Names and fields come from plugin libraries: printed escaped, as every string Kiln did not write.
        std::printf("\n%s  version %s  namespace \"%s\"  (%s)\n", printableText(s.name).c_str(),
            printableText(s.version).c_str(), printableText(s.pluginNamespace).c_str(), s.interface.c_str());
        std::printf(
            "    from %s\n", s.library.empty() ? "the application or Kiln itself" : printableText(s.library).c_str());
        if (s.fields == nullptr || s.fields->nbFields == 0)
        {
            std::printf("    (no fields)\n");
            continue;
        }
        for (int32_t f = 0; f < s.fields->nbFields; ++f)
        {
            nvinfer1::PluginField const& field = s.fields->fields[f];
            std::printf("    %-24s %-8s length %d\n", field.name ? printableText(field.name).c_str() : "(unnamed)",
                fieldTypeName(field.type), field.length);
        }
    }
    return 0;
}

} // namespace kiln::cli
