#include "inspect_command.h"

#include "core/printable_text.h"
#include "loaded_engine.h"
#include "runtime/plan_description.h"

#include <cstdio>

namespace kiln::cli
{

int inspectPlan(std::string const& path)
{
    std::vector<uint8_t> bytes;
    std::string error;
    if (!readFile(path, "kiln inspect", bytes, error))
    {
        std::fprintf(stderr, "kiln: %s\n", printableText(error).c_str());
        return 1;
    }
    std::string description;
    if (!describePlan(bytes.data(), bytes.size(), path.c_str(), description, error))
    {
        std::fprintf(stderr, "kiln: inspect: \"%s\" is not a plan Kiln can read: %s\n", printableText(path).c_str(),
            printableText(error).c_str());
        return 1;
    }
    std::fputs(description.c_str(), stdout);
    return 0;
}

} // namespace kiln::cli
