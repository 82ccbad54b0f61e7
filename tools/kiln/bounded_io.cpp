#include "bounded_io.h"

#include "core/checked_size.h"
#include "spec_parsing.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <new>

namespace kiln::cli
{
namespace
{

std::string quoted(std::string const& path)
{
    return "\"" + path + "\"";
}

//! The machine's physical memory in bytes; 0 when unknown.
uint64_t physicalMemory()
{
    long const pages = sysconf(_SC_PHYS_PAGES);
    long const pageSize = sysconf(_SC_PAGESIZE);
    return pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) : 0;
}

//! Reads a device or a pipe in chunks until its end, refusing it once it gives more than maxBytes.
bool readStream(std::ifstream& file, std::string const& path, char const* flag, size_t maxBytes,
    std::vector<uint8_t>& bytes, std::string& error)
{
    constexpr size_t kChunk = size_t{1} << 20U;
    while (file)
    {
        size_t const before = bytes.size();
        bytes.resize(before + kChunk);
        file.read(reinterpret_cast<char*>(bytes.data() + before), static_cast<std::streamsize>(kChunk));
        bytes.resize(before + static_cast<size_t>(file.gcount()));
        if (bytes.size() > maxBytes)
        {
            error = std::string(flag) + ": " + quoted(path) + " is not a regular file and gave more than "
                + byteCount(maxBytes) + " (the most kiln reads from a device or pipe); give a file";
            return false;
        }
    }
    if (!file.eof())
    {
        error = std::string(flag) + ": cannot read " + quoted(path) + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

//! Opens path for reading after refusing what cannot be read as a file: missing, a directory.
bool openFile(
    std::string const& path, char const* flag, std::ifstream& file, bool& regular, uint64_t& size, std::string& error)
{
    std::error_code ec;
    std::filesystem::file_status const status = std::filesystem::status(path, ec);
    if (std::filesystem::is_directory(status))
    {
        error = std::string(flag) + ": " + quoted(path) + " is a directory, not a file";
        return false;
    }
    file.open(path, std::ios::binary);
    if (!file)
    {
        error = std::string(flag) + ": cannot open " + quoted(path) + ": " + std::strerror(errno);
        return false;
    }
    regular = std::filesystem::is_regular_file(status);
    size = regular ? std::filesystem::file_size(path, ec) : 0;
    if (ec)
    {
        error = std::string(flag) + ": cannot read the size of " + quoted(path) + ": " + ec.message();
        return false;
    }
    return true;
}

} // namespace

std::string byteCount(uint64_t bytes)
{
    if (bytes >= (uint64_t{1} << 30U) && bytes % (uint64_t{1} << 30U) == 0)
    {
        return std::to_string(bytes >> 30U) + " GiB";
    }
    return std::to_string(bytes) + " bytes";
}

bool checkRegularFile(std::string const& path, char const* flag, size_t maxBytes, std::string& error)
{
    std::ifstream file;
    bool regular = false;
    uint64_t size = 0;
    if (!openFile(path, flag, file, regular, size, error))
    {
        return false;
    }
    if (!regular)
    {
        error = std::string(flag) + ": " + quoted(path) + " is not a regular file (a device or a pipe); give a file";
        return false;
    }
    if (size > maxBytes)
    {
        error = std::string(flag) + ": " + quoted(path) + " is " + std::to_string(size) + " bytes, more than the "
            + byteCount(maxBytes) + " kiln reads";
        return false;
    }
    return true;
}

bool readBoundedFile(
    std::string const& path, char const* flag, size_t maxBytes, std::vector<uint8_t>& bytes, std::string& error)
{
    bytes.clear();
    std::ifstream file;
    bool regular = false;
    uint64_t size = 0;
    try
    {
        if (!openFile(path, flag, file, regular, size, error))
        {
            return false;
        }
        if (!regular)
        {
            if (readStream(file, path, flag, std::min(maxBytes, kMaxStreamedBytes), bytes, error))
            {
                return true;
            }
            bytes.clear();
            return false;
        }
        if (size > maxBytes)
        {
            error = std::string(flag) + ": " + quoted(path) + " is " + std::to_string(size) + " bytes, more than the "
                + byteCount(maxBytes) + " kiln reads";
            return false;
        }
        // A file that grows while it is read gives only the size it had.
        bytes.resize(static_cast<size_t>(size));
        file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
        if (static_cast<uint64_t>(file.gcount()) != size)
        {
            error = std::string(flag) + ": cannot read " + quoted(path) + ": it ended after "
                + std::to_string(file.gcount()) + " of " + std::to_string(size) + " bytes";
            return false;
        }
        return true;
    }
    catch (std::bad_alloc const&)
    {
        error = std::string(flag) + ": cannot allocate memory to read " + quoted(path) + " (" + std::to_string(size)
            + " bytes)";
    }
    catch (std::exception const& e)
    {
        error = std::string(flag) + ": cannot read " + quoted(path) + ": " + e.what();
    }
    bytes.clear();
    return false;
}

std::optional<size_t> tensorByteSize(nvinfer1::DataType type, nvinfer1::Dims const& dims)
{
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        return std::nullopt;
    }
    std::optional<int64_t> const count = checkedElementCount(dims.d, dims.d + dims.nbDims);
    return count ? checkedByteSize(*count, elementSize(type)) : std::nullopt;
}

bool allocateTensorBytes(HostTensor& tensor, char const* role, size_t bytes, std::string& error)
{
    std::string const what = std::string(role) + " \"" + tensor.name + "\" (" + trtexecTypeName(tensor.type)
        + ", shape " + dimsSpec(tensor.dims) + ")";
    uint64_t const memory = physicalMemory();
    if (memory > 0 && bytes > memory)
    {
        error = what + " needs " + std::to_string(bytes) + " bytes, more than this machine's memory ("
            + std::to_string(memory) + " bytes)";
        return false;
    }
    try
    {
        tensor.bytes.assign(bytes, 0);
    }
    catch (std::bad_alloc const&)
    {
        error = what + ": cannot allocate its " + std::to_string(bytes) + " bytes";
        return false;
    }
    return true;
}

} // namespace kiln::cli
