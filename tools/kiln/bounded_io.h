// Reading files and sizing host buffers without trusting what the file or the model says: every read is bounded
// (a plan of at most kMaxPlanBytes, a device or pipe read in chunks up to a cap), directories and missing files
// are refused by name, and a tensor's buffer is checked for overflow and against the machine's memory before it is
// allocated. Each failure is an error naming the flag, file or tensor; nothing throws.
#pragma once

#include "host_tensor.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli
{

//! The most --loadEngine and `kiln inspect` read from one plan file.
constexpr size_t kMaxPlanBytes = size_t{16} << 30U;
//! The most read from a file that does not say its size (a device such as /dev/zero, a pipe).
constexpr size_t kMaxStreamedBytes = size_t{1} << 30U;

//! Reads the whole of the file at path, at most maxBytes (and at most kMaxStreamedBytes from a device or pipe).
//! False with error naming flag and path: missing, a directory, larger than the limit, unreadable, or too large
//! to allocate.
bool readBoundedFile(
    std::string const& path, char const* flag, size_t maxBytes, std::vector<uint8_t>& bytes, std::string& error);

//! False with error naming flag and path unless path is a regular file (not a directory, a device or a pipe)
//! of at most maxBytes.
bool checkRegularFile(std::string const& path, char const* flag, size_t maxBytes, std::string& error);

//! The bytes tensor's type and shape need; nullopt when its element count or byte size overflows.
std::optional<size_t> tensorByteSize(nvinfer1::DataType type, nvinfer1::Dims const& dims);

//! Sets tensor.bytes to `bytes` zero bytes. False with error naming the tensor (role is "input" or "output") when
//! the size is more than this machine's memory or cannot be allocated.
bool allocateTensorBytes(HostTensor& tensor, char const* role, size_t bytes, std::string& error);

//! "16 GiB", "3 bytes": a size for messages.
std::string byteCount(uint64_t bytes);

} // namespace kiln::cli
