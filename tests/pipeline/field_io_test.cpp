// The field lists that write and read every layer kind's parameters (serial/field_io.h): what they write reads back
// the same, and a corrupted field is an error naming it rather than a wrong value.
#include "network/layers/layer_kinds.h"
#include "network/weights_buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

namespace kiln::serial
{
namespace
{

using network::ResizeParams;
using network::ShuffleParams;

//! `params` written and read back into a fresh parameter struct of its kind; the reader's error on failure.
template <typename Params>
bool roundTrip(Params const& params, Params& read, std::string& error)
{
    ByteWriter writer;
    params.write(writer);
    ByteReader reader(writer.bytes().data(), writer.bytes().size());
    bool const ok = read.read(reader) && reader.remaining() == 0;
    error = reader.error();
    return ok;
}

TEST(FieldIo, EveryFieldTypeRoundTrips)
{
    ResizeParams resize;
    resize.hasOutputDimensions = true;
    resize.outputDimensions = nvinfer1::Dims{3, {2, 4, 8}};
    resize.scales = {1.0F, 2.5F, 0.5F};
    resize.resizeMode = nvinfer1::InterpolationMode::kCUBIC;
    resize.cubicCoeff = -0.5F;
    resize.excludeOutside = true;
    ResizeParams resizeRead;
    std::string error;
    ASSERT_TRUE(roundTrip(resize, resizeRead, error)) << error;
    EXPECT_TRUE(resizeRead.hasOutputDimensions);
    EXPECT_EQ(resizeRead.outputDimensions.nbDims, 3);
    EXPECT_EQ(resizeRead.outputDimensions.d[2], 8);
    EXPECT_EQ(resizeRead.scales, resize.scales);
    EXPECT_EQ(resizeRead.resizeMode, nvinfer1::InterpolationMode::kCUBIC);
    EXPECT_EQ(resizeRead.cubicCoeff, -0.5F);
    EXPECT_TRUE(resizeRead.excludeOutside);

    ShuffleParams shuffle;
    shuffle.reshape = nvinfer1::Dims{2, {6, -1}};
    shuffle.secondTranspose.order[0] = 1;
    shuffle.secondTranspose.order[1] = 0;
    shuffle.zeroIsPlaceholder = false;
    ShuffleParams shuffleRead;
    ASSERT_TRUE(roundTrip(shuffle, shuffleRead, error)) << error;
    ASSERT_TRUE(shuffleRead.reshape.has_value());
    EXPECT_EQ(shuffleRead.reshape->d[1], -1);
    EXPECT_EQ(shuffleRead.secondTranspose.order[0], 1);
    EXPECT_FALSE(shuffleRead.zeroIsPlaceholder);

    ShuffleParams noReshape;
    ASSERT_TRUE(roundTrip(ShuffleParams{}, noReshape, error)) << error;
    EXPECT_FALSE(noReshape.reshape.has_value());
}

//! The bytes `params` writes, with `patch` applied to them, read back; the reader's error.
template <typename Params>
std::string readPatched(Params const& params, std::function<void(std::vector<uint8_t>&)> const& patch)
{
    ByteWriter writer;
    params.write(writer);
    std::vector<uint8_t> bytes = writer.bytes();
    patch(bytes);
    Params read;
    ByteReader reader(bytes.data(), bytes.size());
    EXPECT_FALSE(read.read(reader));
    return reader.error();
}

TEST(FieldIo, CorruptedFieldsAreNamed)
{
    // ReduceParams: operation (int32), reduceAxes (uint32), keepDimensions (one byte).
    network::ReduceParams reduce;
    EXPECT_EQ(readPatched(reduce, [](std::vector<uint8_t>& b) { b[0] = 0x7F; }),
        "reduce operation: value 127 is out of range");
    EXPECT_EQ(readPatched(reduce, [](std::vector<uint8_t>& b) { b.back() = 2; }),
        "keep dimensions: value 2 is neither 0 nor 1");
    std::string const truncated = readPatched(reduce, [](std::vector<uint8_t>& b) { b.pop_back(); });
    EXPECT_NE(truncated.find("truncated while reading keep dimensions"), std::string::npos) << truncated;

    // ResizeParams: a scale count far beyond the bytes left is refused before anything is allocated.
    ResizeParams resize;
    size_t const scalesAt = 1 + 4; // after the flag (one byte) and the empty output dimensions (their rank)
    std::string const error = readPatched(resize, [&](std::vector<uint8_t>& b) {
        uint64_t const huge = uint64_t{1} << 60;
        std::memcpy(b.data() + scalesAt, &huge, sizeof(huge));
    });
    EXPECT_NE(error.find("resize scales: count"), std::string::npos) << error;
    EXPECT_NE(error.find("exceeds the bytes left"), std::string::npos) << error;
}

TEST(FieldIo, ListCountsAreBoundedByTheFewestBytesAnElementTakes)
{
    // 1,000 elements announced, 1,000 bytes following: room for 1,000 bytes, but for only 250 floats or ranks.
    ByteWriter writer;
    writer.write(uint64_t{1000});
    for (int32_t i = 0; i < 1000; ++i)
    {
        writer.write(uint8_t{0});
    }
    auto const readList = [&](auto& list) {
        ByteReader reader(writer.bytes().data(), writer.bytes().size());
        FieldReader{reader}(list, "list");
        return reader.ok() ? std::string() : reader.error();
    };
    std::vector<float> floats;
    EXPECT_EQ(readList(floats), "list: count 1000 exceeds the bytes left");
    EXPECT_TRUE(floats.empty());
    std::vector<nvinfer1::Dims> dims;
    EXPECT_EQ(readList(dims), "list: count 1000 exceeds the bytes left");
    std::vector<uint8_t> bytes;
    EXPECT_EQ(readList(bytes), "");
    EXPECT_EQ(bytes.size(), 1000U);
}

TEST(FieldIo, WeightsWhoseByteSizeOverflowsAreRefused)
{
    // 2^62 FLOAT elements take 2^64 bytes, which wrap to 0 in 64 bits: the empty data must not pass for them.
    for (int64_t const count : {int64_t{1} << 62, (int64_t{1} << 62) + 1, int64_t{-1}})
    {
        ByteWriter writer;
        writeEnum(writer, nvinfer1::DataType::kFLOAT);
        writer.write(count);
        uint32_t const data = 0;
        writer.writeBytes(&data, count == (int64_t{1} << 62) + 1 ? sizeof(data) : 0);
        network::WeightsBuffer weights;
        ByteReader reader(writer.bytes().data(), writer.bytes().size());
        EXPECT_FALSE(weights.read(reader, "kernel weights")) << count;
        EXPECT_NE(reader.error().find("kernel weights"), std::string::npos) << reader.error();
        EXPECT_NE(reader.error().find(std::to_string(count) + " elements"), std::string::npos) << reader.error();
    }

    // From the API, 2^62 + 1 FLOAT elements would copy the 4 bytes their size wraps to: they hold no weights instead,
    // which the layer's count check then refuses.
    float const one = 1.0F;
    network::WeightsBuffer const huge(nvinfer1::Weights{nvinfer1::DataType::kFLOAT, &one, (int64_t{1} << 62) + 1});
    EXPECT_TRUE(huge.empty());
    EXPECT_EQ(huge.view().values, nullptr);
}

} // namespace
} // namespace kiln::serial
