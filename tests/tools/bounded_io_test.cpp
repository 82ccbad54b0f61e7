// bounded_io.h: reads that stop at a bound whatever the file is, and tensor buffers sized without overflow.
#include "bounded_io.h"

#include "kiln_runner.h"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>

namespace
{

using namespace kiln::cli;

bool contains(std::string const& text, std::string const& part)
{
    return text.find(part) != std::string::npos;
}

TEST(BoundedIo, ReadsAFileWhole)
{
    kiln::test::ScratchDir dir;
    std::ofstream(dir.path("f.bin"), std::ios::binary) << "abc";
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(readBoundedFile(dir.path("f.bin"), "--flag", 3, bytes, error)) << error;
    EXPECT_EQ(bytes, (std::vector<uint8_t>{'a', 'b', 'c'}));
    EXPECT_FALSE(readBoundedFile(dir.path("f.bin"), "--flag", 2, bytes, error));
    EXPECT_TRUE(contains(error, "--flag: \"" + dir.path("f.bin") + "\" is 3 bytes, more than the 2 bytes")) << error;
}

TEST(BoundedIo, RefusesDirectoriesAndMissingFilesByName)
{
    kiln::test::ScratchDir dir;
    std::vector<uint8_t> bytes;
    std::string error;
    EXPECT_FALSE(readBoundedFile(dir.path(""), "--loadEngine", kMaxPlanBytes, bytes, error));
    EXPECT_EQ(error, "--loadEngine: \"" + dir.path("") + "\" is a directory, not a file");
    EXPECT_FALSE(readBoundedFile(dir.path("missing"), "--loadEngine", kMaxPlanBytes, bytes, error));
    EXPECT_TRUE(contains(error, "--loadEngine: cannot open \"" + dir.path("missing") + "\"")) << error;
    EXPECT_FALSE(checkRegularFile(dir.path(""), "--onnx", 1, error));
    EXPECT_TRUE(contains(error, "is a directory")) << error;
}

TEST(BoundedIo, ADeviceIsReadUpToTheBoundOnly)
{
    std::vector<uint8_t> bytes;
    std::string error;
    EXPECT_FALSE(readBoundedFile("/dev/zero", "--loadInputs", 5000000, bytes, error));
    EXPECT_TRUE(contains(error, "--loadInputs: \"/dev/zero\" is not a regular file and gave more than 5000000 bytes"))
        << error;
    EXPECT_TRUE(bytes.empty());
    ASSERT_TRUE(readBoundedFile("/dev/null", "--loadInputs", 10, bytes, error)) << error;
    EXPECT_TRUE(bytes.empty());
    EXPECT_FALSE(checkRegularFile("/dev/zero", "--onnx", kMaxPlanBytes, error));
    EXPECT_TRUE(contains(error, "--onnx: \"/dev/zero\" is not a regular file")) << error;
}

TEST(BoundedIo, TensorSizesDoNotWrap)
{
    nvinfer1::Dims dims{};
    dims.nbDims = 2;
    dims.d[0] = int64_t{1} << 62;
    dims.d[1] = 4;
    EXPECT_FALSE(tensorByteSize(nvinfer1::DataType::kFLOAT, dims).has_value());
    dims.d[1] = 1;
    EXPECT_FALSE(tensorByteSize(nvinfer1::DataType::kFLOAT, dims).has_value()) << "2^62 floats are 2^64 bytes";
    dims.d[0] = 3;
    EXPECT_EQ(tensorByteSize(nvinfer1::DataType::kHALF, dims), std::optional<size_t>(6));
}

TEST(BoundedIo, ATensorLargerThanMemoryIsRefusedByName)
{
    HostTensor tensor{"logits", nvinfer1::DataType::kFLOAT, {}, {}};
    tensor.dims.nbDims = 1;
    tensor.dims.d[0] = int64_t{1} << 60;
    std::string error;
    EXPECT_FALSE(allocateTensorBytes(tensor, "output", size_t{1} << 62, error));
    EXPECT_TRUE(contains(error,
        "output \"logits\" (FP32, shape 1152921504606846976) needs 4611686018427387904 bytes, "
        "more than this machine's memory"))
        << error;
    EXPECT_TRUE(tensor.bytes.empty());
}

} // namespace
