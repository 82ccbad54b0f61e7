// The built-in importers, keyed by ONNX op_type. Each op family registers its importers from its own
// file in importers/, with an ImporterRegistration, so adding an op family is adding its file.
#pragma once

#include "onnx/import_context.h"
#include "onnx/node.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln::onnxparser
{

//! Adds the node's layers and returns its outputs in order (an empty Value for an output it leaves out).
using Importer = std::vector<Value> (*)(ImportContext& ctx, Node const& node);

//! Whether a node's domain is ONNX's default operator set ("" or "ai.onnx"), whose ops the built-in importers are.
inline bool isDefaultDomain(std::string const& domain)
{
    return domain.empty() || domain == "ai.onnx";
}

class ImporterTable
{
public:
    //! An importer for an op of ONNX's default domain.
    void add(std::string const& opType, Importer importer)
    {
        mImporters[opType] = importer;
    }
    //! An importer for an op that is TensorRT's own, not ONNX's (TRT_PluginV2): exporters put it in a domain of their
    //! choosing, so it is imported whatever the node's domain.
    void addForAnyDomain(std::string const& opType, Importer importer)
    {
        mImporters[opType] = importer;
        mAnyDomain.insert(opType);
    }
    //! nullptr when op_type has no built-in importer.
    Importer find(std::string const& opType) const
    {
        auto it = mImporters.find(opType);
        return it == mImporters.end() ? nullptr : it->second;
    }
    //! The importer for a node of `domain`, or nullptr: an op of another domain that has a standard op's name
    //! (`Relu` in `com.example`) is that domain's custom op, which the plugin registry may provide, not ONNX's.
    Importer find(std::string const& domain, std::string const& opType) const
    {
        return isDefaultDomain(domain) || mAnyDomain.count(opType) != 0 ? find(opType) : nullptr;
    }
    std::map<std::string, Importer> const& all() const
    {
        return mImporters;
    }

private:
    std::map<std::string, Importer> mImporters;
    std::set<std::string> mAnyDomain;
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
