#include "onnx/importer_table.h"

#include <vector>

namespace kiln::onnxparser
{
namespace
{

//! What the op families registered, in the order their files were loaded: a function's static, so that it exists
//! before the first registration whatever order the files' statics are made in.
std::vector<void (*)(ImporterTable&)>& registrations()
{
    static std::vector<void (*)(ImporterTable&)> functions;
    return functions;
}

} // namespace

ImporterRegistration::ImporterRegistration(void (*registerImporters)(ImporterTable& table))
{
    registrations().push_back(registerImporters);
}

ImporterTable const& builtinImporters()
{
    static ImporterTable const table = [] {
        ImporterTable t;
        for (auto const registerImporters : registrations())
        {
            registerImporters(t);
        }
        return t;
    }();
    return table;
}

} // namespace kiln::onnxparser
