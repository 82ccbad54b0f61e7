// An ONNX model's external data file, opened for reading only where it lies inside the model's folder. The check is
// made on the file that was opened (its real path as the kernel reports it for the open descriptor), not on a name
// resolved before opening: a path swapped for a symbolic link in between cannot take weights from elsewhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::onnxparser
{

class ExternalFile
{
public:
    //! Opens `location` (relative to `modelDir`, the model's folder) for `what` (a tensor's description, for errors).
    //! Throws the parser's error where the location is absolute, climbs out with "..", cannot be opened, is no
    //! regular file, or resolves (symbolic links followed) outside the model's folder.
    ExternalFile(std::string const& what, std::string const& location, std::string const& modelDir);

    int64_t size() const
    {
        return mSize;
    }
    //! `length` bytes from `offset`, which the caller checked lie inside the file. Throws where the read falls short.
    std::vector<uint8_t> read(int64_t offset, size_t length) const;

private:
    //! Closes the file when the ExternalFile goes, or when its constructor throws after opening it.
    struct Descriptor
    {
        int value{-1};
        Descriptor() = default;
        Descriptor(Descriptor const&) = delete;
        Descriptor& operator=(Descriptor const&) = delete;
        ~Descriptor();
    };

    std::string mWhat;
    Descriptor mDescriptor;
    int64_t mSize{0};
};

} // namespace kiln::onnxparser
