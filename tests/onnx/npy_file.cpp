#include "npy_file.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

struct TypeCode
{
    DataType type;
    char const* descr;
    size_t size;
};

constexpr TypeCode kTypes[] = {
    {DataType::kFLOAT, "<f4", 4},
    {DataType::kHALF, "<f2", 2},
    {DataType::kINT64, "<i8", 8},
    {DataType::kINT32, "<i4", 4},
    {DataType::kINT8, "|i1", 1},
    {DataType::kUINT8, "|u1", 1},
    {DataType::kBOOL, "|b1", 1},
};

[[noreturn]] void fail(std::string const& path, std::string const& why)
{
    throw std::runtime_error(path + ": " + why);
}

//! The text after `key` in the header dict, up to (not including) the first of `stops`.
std::string headerField(std::string const& header, std::string const& key, char const* stops, std::string const& path)
{
    size_t const at = header.find("'" + key + "'");
    if (at == std::string::npos)
    {
        fail(path, "the .npy header has no '" + key + "'");
    }
    size_t const colon = header.find(':', at);
    size_t const end = header.find_first_of(stops, colon + 1);
    return header.substr(colon + 1, end - colon - 1);
}

} // namespace

HostTensor readNpy(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        fail(path, "cannot open");
    }
    std::string const data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0 || data[6] != 1)
    {
        fail(path, "not a version 1 .npy file");
    }
    size_t const headerLength = static_cast<uint8_t>(data[8])
        | (static_cast<size_t>(static_cast<uint8_t>(data[9])) << 8);
    if (data.size() < 10 + headerLength)
    {
        fail(path, "truncated header");
    }
    std::string const header = data.substr(10, headerLength);
    if (headerField(header, "fortran_order", ",}", path).find("False") == std::string::npos)
    {
        fail(path, "Fortran order is not supported");
    }
    std::string const descr = headerField(header, "descr", ",}", path);
    HostTensor array;
    size_t elementSize = 0;
    for (TypeCode const& code : kTypes)
    {
        if (descr.find(code.descr) != std::string::npos)
        {
            array.type = code.type;
            elementSize = code.size;
        }
    }
    if (elementSize == 0)
    {
        fail(path, "unsupported dtype " + descr);
    }
    std::string const shape = headerField(header, "shape", ")", path);
    size_t count = 1;
    for (size_t i = shape.find('('); i != std::string::npos && i < shape.size();)
    {
        size_t const digit = shape.find_first_of("0123456789", i);
        if (digit == std::string::npos)
        {
            break;
        }
        size_t end = digit;
        int64_t const extent = std::stoll(shape.substr(digit), &end);
        array.shape.push_back(extent);
        count *= static_cast<size_t>(extent);
        i = digit + end;
    }
    size_t const bytes = count * elementSize;
    if (data.size() != 10 + headerLength + bytes)
    {
        fail(path,
            "holds " + std::to_string(data.size() - 10 - headerLength) + " data bytes, expected "
                + std::to_string(bytes));
    }
    array.bytes.assign(data.begin() + static_cast<std::ptrdiff_t>(10 + headerLength), data.end());
    return array;
}

void writeNpy(std::string const& path, HostTensor const& array)
{
    char const* descr = nullptr;
    for (TypeCode const& code : kTypes)
    {
        if (code.type == array.type)
        {
            descr = code.descr;
        }
    }
    if (descr == nullptr)
    {
        fail(path, "no .npy dtype for this tensor type");
    }
    std::string shape = "(";
    for (int64_t extent : array.shape)
    {
        shape += std::to_string(extent) + ", ";
    }
    if (array.shape.size() > 1)
    {
        shape.resize(shape.size() - 1); // (2, 3) but (2,)
    }
    shape += ")";
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Magic, version, length and header are padded to a multiple of 64 bytes, ending in a newline.
    while ((10 + header.size() + 1) % 64 != 0)
    {
        header.push_back(' ');
    }
    header.push_back('\n');
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    char const length[2] = {static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
    out.write(length, 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<char const*>(array.bytes.data()), static_cast<std::streamsize>(array.bytes.size()));
    if (!out)
    {
        fail(path, "cannot write");
    }
}

} // namespace kiln::test
