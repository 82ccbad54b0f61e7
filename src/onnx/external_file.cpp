#include "onnx/external_file.h"

#include "onnx/import_error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace kiln::onnxparser
{
namespace
{

//! Whether `path` lies strictly inside `folder` (both real paths).
bool inside(std::filesystem::path const& folder, std::filesystem::path const& path)
{
    auto const [inFolder, inPath] = std::mismatch(folder.begin(), folder.end(), path.begin(), path.end());
    return inFolder == folder.end() && inPath != path.end();
}

//! The real path of what `descriptor` has open, as the kernel keeps it.
std::filesystem::path openedPath(int descriptor, std::string const& what)
{
    std::error_code error;
    std::filesystem::path const path
        = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(descriptor), error);
    if (error)
    {
        fail(ErrorCode::kINVALID_GRAPH, what + ": cannot tell where the opened file lies: " + error.message());
    }
    return path;
}

} // namespace

ExternalFile::ExternalFile(std::string const& what, std::string const& location, std::string const& modelDir)
    : mWhat(what)
{
    std::filesystem::path const relative(location);
    if (relative.is_absolute() || location.find("..") != std::string::npos)
    {
        fail(ErrorCode::kINVALID_GRAPH, what + " must be a path relative to the model's folder");
    }
    if (modelDir.empty())
    {
        fail(ErrorCode::kINVALID_GRAPH, what + " cannot be found: the model was parsed from memory without a path");
    }
    std::error_code error;
    std::filesystem::path const folder = std::filesystem::canonical(modelDir, error);
    if (error)
    {
        fail(ErrorCode::kINVALID_GRAPH,
            what + " cannot be opened: the model's folder " + modelDir + ": " + error.message());
    }
    // Non-blocking, so that a FIFO put in a weights file's place is refused below instead of waiting for a writer.
    std::filesystem::path const path = folder / relative;
    mDescriptor.value = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (mDescriptor.value < 0)
    {
        fail(ErrorCode::kINVALID_GRAPH,
            what + " cannot be opened (looked for " + path.string() + ": " + std::strerror(errno) + ")");
    }
    // From here the checks are on the open file itself.
    std::filesystem::path const opened = openedPath(mDescriptor.value, what);
    if (!inside(folder, opened))
    {
        fail(ErrorCode::kINVALID_GRAPH,
            what + " resolves to " + opened.string() + ", outside the model's folder " + folder.string()
                + " (external data, symbolic links included, must stay inside it)");
    }
    struct stat status
    {
    };
    if (::fstat(mDescriptor.value, &status) != 0 || !S_ISREG(status.st_mode))
    {
        fail(ErrorCode::kINVALID_GRAPH, what + " is not a regular file (" + opened.string() + ")");
    }
    mSize = static_cast<int64_t>(status.st_size);
}

ExternalFile::Descriptor::~Descriptor()
{
    if (value >= 0)
    {
        ::close(value);
    }
}

std::vector<uint8_t> ExternalFile::read(int64_t offset, size_t length) const
{
    std::vector<uint8_t> bytes(length);
    size_t done = 0;
    while (done < length)
    {
        ssize_t const got
            = ::pread(mDescriptor.value, bytes.data() + done, length - done, offset + static_cast<off_t>(done));
        if (got < 0 && errno == EINTR)
        {
            continue;
        }
        if (got <= 0)
        {
            fail(ErrorCode::kINVALID_GRAPH, mWhat + " could not be read");
        }
        done += static_cast<size_t>(got);
    }
    return bytes;
}

} // namespace kiln::onnxparser
