// The built-in importers, keyed by ONNX op_type. Each op family registers its importers from its own
// file in importers/, with an ImporterRegistration, so adding an op family is adding its file.
#pragma once

#include "onnx/import_context.h"
#include "onnx/node.h"

#include <map>
#include <string>
#include <vector>

namespace kiln::onnxparser
{

//! Adds the node's layers and returns its outputs in order (an empty Value for an output it leaves out).
using Importer = std::vector<Value> (*)(ImportContext& ctx, Node const& node);

class ImporterTable
{
public:
    void add(std::string const& opType, Importer importer)
    {
        mImporters[opType] = importer;
    }
    //! nullptr when op_type has no built-in importer.
    Importer find(std::string const& opType) const
    {
        auto it = mImporters.find(opType);
        return it == mImporters.end() ? nullptr : it->second;
    }
    std::map<std::string, Importer> const& all() const
    {
        return mImporters;
    }

private:
    std::map<std::string, Importer> mImporters;
};

//! Every built-in importer (built once, on first use).
ImporterTable const& builtinImporters();

//! Adds an op family's importers to the built-in table when the parser's library is loaded. Each file in importers/
//! holds one, at namespace scope:
//!     ImporterRegistration const kRegistration([](ImporterTable& table) { table.add("GridSample", importGridSample);
//!     });
class ImporterRegistration
{
public:
    explicit ImporterRegistration(void (*registerImporters)(ImporterTable& table));
};

} // namespace kiln::onnxparser
