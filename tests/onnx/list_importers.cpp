// The ONNX op types the parser imports itself, read from its importer table. `onnx_list_importers` prints them as
// docs/onnx-ops.md holds them; `onnx_list_importers --check FILE` exits 1, naming the differences, unless FILE is
// exactly that (CTest runs it on docs/onnx-ops.md, so the document stays true when importers are added).
#include "onnx/importer_table.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

namespace
{

std::string markdown()
{
    auto const& importers = kiln::onnxparser::builtinImporters().all();
    std::ostringstream out;
    out << "# ONNX ops with a built-in importer\n\n"
        << "Kiln's ONNX parser imports the " << importers.size() << " op types below itself";
    if (importers.count("TRT_PluginV2") != 0)
    {
        out << ",\n`TRT_PluginV2` among them (onnx-tensorrt's op that carries a serialized plugin)";
    }
    out << ". They import nodes of ONNX's\ndefault domain (`\"\"` or `ai.onnx`)"
        << (importers.count("TRT_PluginV2") != 0 ? ", and `TRT_PluginV2` of any domain" : "")
        << ". A node of any other op type or\ndomain (`Relu` in `com.example` is that domain's op, not ONNX's) is "
        << "looked up in the plugin registry\nby its name (see the README's ONNX parser section). How each op fares in "
        << "ONNX's own node tests:\n[onnx-conformance.md](onnx-conformance.md). What the parser refuses or computes "
        << "only at run time\nto protect itself from a model: [onnx-parser-limits.md](onnx-parser-limits.md).\n\n"
        << "Generated from the parser's importer table by `onnx_list_importers` (`tests/onnx/list_importers.cpp`):\n"
        << "after adding an importer, run `build/tests/onnx/onnx_list_importers > docs/onnx-ops.md`. CTest checks\n"
        << "that this file is current (`onnx.importer_list_is_current`).\n\n";
    for (auto const& [opType, importer] : importers)
    {
        out << "- `" << opType << "`\n";
    }
    return out.str();
}

//! The op types a list in markdown() form names, one per "- `Op`" line.
std::set<std::string> listedOps(std::string const& text)
{
    std::set<std::string> ops;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
    {
        if (line.size() > 4 && line.rfind("- `", 0) == 0 && line.back() == '`')
        {
            ops.insert(line.substr(3, line.size() - 4));
        }
    }
    return ops;
}

int check(char const* path)
{
    std::ifstream file(path);
    if (!file)
    {
        std::cerr << "onnx_list_importers: cannot read " << path << "\n";
        return 2;
    }
    std::string const current((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::string const expected = markdown();
    if (current == expected)
    {
        std::cout << path << " is current: " << listedOps(expected).size() << " op types\n";
        return 0;
    }
    std::set<std::string> const listed = listedOps(current);
    std::set<std::string> const imported = listedOps(expected);
    std::cerr << path << " is out of date.\n";
    for (auto const& op : imported)
    {
        if (listed.count(op) == 0)
        {
            std::cerr << "  has an importer, not listed: " << op << "\n";
        }
    }
    for (auto const& op : listed)
    {
        if (imported.count(op) == 0)
        {
            std::cerr << "  listed, has no importer: " << op << "\n";
        }
    }
    std::cerr << "Regenerate it: build/tests/onnx/onnx_list_importers > docs/onnx-ops.md\n";
    return 1;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 1)
    {
        std::cout << markdown();
        return 0;
    }
    if (argc == 3 && std::string(argv[1]) == "--check")
    {
        return check(argv[2]);
    }
    std::cerr << "usage: onnx_list_importers [--check FILE]\n";
    return 2;
}
