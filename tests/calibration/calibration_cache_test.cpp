// TensorRT's calibration cache format: a cache TensorRT wrote, read back; Kiln's caches round trip; malformed caches
// are refused naming the line.
#include "builder/calibration_cache.h"

#include <NvInferVersion.h>

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::builder
{
namespace
{

// The calibration table TensorRT 7.0 wrote for its sampleINT8 (LeNet on MNIST), as NVIDIA's TensorRT repository
// quotes it in samples/sampleINT8/README.md (github.com/NVIDIA/TensorRT); the README gives the scale as
// abs(max dynamic range) / 127.
char const* const kSAMPLE_INT8_TABLE = "TRT-7000-EntropyCalibration2\n"
                                       "data: 3c008912\n"
                                       "conv1: 3c88edfc\n"
                                       "pool1: 3c88edfc\n"
                                       "conv2: 3ddc858b\n"
                                       "pool2: 3ddc858b\n"
                                       "ip1: 3db6bd6e\n"
                                       "ip2: 3e691968\n"
                                       "prob: 3c010a14\n";

float floatOfBits(uint32_t bits)
{
    float value = 0.0F;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
}

TEST(CalibrationCache, ReadsTensorRtSampleInt8Table)
{
    CalibrationTable table;
    std::string error;
    ASSERT_TRUE(readCalibrationCache(kSAMPLE_INT8_TABLE, table, error)) << error;
    EXPECT_EQ(table.version, "7000");
    EXPECT_EQ(table.algorithm, "EntropyCalibration2");
    EXPECT_EQ(calibrationAlgorithmOfName(table.algorithm), nvinfer1::CalibrationAlgoType::kENTROPY_CALIBRATION_2);
    ASSERT_EQ(table.scales.size(), 8U);
    EXPECT_EQ(table.scales[0].first, "data");
    // 0x3c008912 is 0.0078451801 (Python: struct.unpack('>f', bytes.fromhex('3c008912'))): inputs in [0, 0.9963].
    EXPECT_FLOAT_EQ(table.scales[0].second, 0.0078451801F);
    EXPECT_EQ(table.scales[6].first, "ip2");
    EXPECT_FLOAT_EQ(table.scales[6].second, 0.22763598F);
    EXPECT_EQ(table.scales[7].second, floatOfBits(0x3c010a14U));
}

TEST(CalibrationCache, NamesWithColonsAndZeroScales)
{
    // TensorFlow names ("input_1:0") and the unpadded "0" of a tensor that was all zeros, as TensorRT writes them.
    CalibrationTable table;
    std::string error;
    ASSERT_TRUE(readCalibrationCache(
        "TRT-100300-MinMaxCalibration\r\ninput_1:0: 3c010204\r\n(Unnamed Layer* 64) [Shuffle]_output: 0\r\n", table,
        error))
        << error;
    EXPECT_EQ(table.version, "100300");
    ASSERT_EQ(table.scales.size(), 2U);
    EXPECT_EQ(table.scales[0].first, "input_1:0");
    EXPECT_EQ(table.scales[0].second, 1.0F / 127.0F);
    EXPECT_EQ(table.scales[1].first, "(Unnamed Layer* 64) [Shuffle]_output");
    EXPECT_EQ(table.scales[1].second, 0.0F);
}

TEST(CalibrationCache, WritesTensorRtsText)
{
    std::string const text = writeCalibrationCache(nvinfer1::CalibrationAlgoType::kMINMAX_CALIBRATION,
        {{"images", 1.0F / 127.0F}, {"zeros", 0.0F}, {"a:0", 5.745F}});
    std::string const header = "TRT-" + std::to_string(NV_TENSORRT_VERSION) + "-MinMaxCalibration\n";
    // 5.745 is 0x40b7d70a (Python: struct.pack('>f', 5.745).hex()).
    EXPECT_EQ(text, header + "images: 3c010204\nzeros: 0\na:0: 40b7d70a\n");
}

TEST(CalibrationCache, RoundTrips)
{
    std::vector<std::pair<std::string, float>> const scales{
        {"x", 0.0123F}, {"conv/out", 3.5e-5F}, {"y: z", 1e-30F}, {"w", 0.0F}};
    for (auto algorithm :
        {nvinfer1::CalibrationAlgoType::kLEGACY_CALIBRATION, nvinfer1::CalibrationAlgoType::kENTROPY_CALIBRATION,
            nvinfer1::CalibrationAlgoType::kENTROPY_CALIBRATION_2, nvinfer1::CalibrationAlgoType::kMINMAX_CALIBRATION})
    {
        CalibrationTable table;
        std::string error;
        ASSERT_TRUE(readCalibrationCache(writeCalibrationCache(algorithm, scales), table, error)) << error;
        EXPECT_EQ(calibrationAlgorithmOfName(table.algorithm), algorithm);
        EXPECT_EQ(table.scales, scales);
    }
}

TEST(CalibrationCache, RefusesMalformedCachesNamingTheLine)
{
    struct Case
    {
        char const* text;
        char const* message;
    };
    for (Case const& c : {
             Case{"", "the calibration cache is empty"},
             Case{"data: 3c008912\n", "line 1: \"data: 3c008912\" is not a header TRT-<version>-<algorithm>"},
             Case{"TRT-x-EntropyCalibration2\n", "line 1:"},
             Case{"TRT-7000-\n", "line 1:"},
             Case{"TRT-7000-EntropyCalibration2\ndata 3c008912\n", "line 2: \"data 3c008912\" is not"},
             Case{"TRT-7000-EntropyCalibration2\ndata: 3c00891\nconv1: 3cg8edfc\n",
                 "line 3: the scale \"3cg8edfc\" is not the hexadecimal of 32 bits"},
             Case{"TRT-7000-EntropyCalibration2\ndata: 13c008912\n", "line 2: the scale \"13c008912\""},
             Case{"TRT-7000-EntropyCalibration2\n\ndata: 7f800000\n", "line 3: the scale 7f800000 is inf"},
             Case{"TRT-7000-EntropyCalibration2\ndata: bf800000\n", "line 2: the scale bf800000 is -1"},
             Case{"TRT-7000-EntropyCalibration2\n: 3c008912\n", "line 2:"},
         })
    {
        CalibrationTable table;
        std::string error;
        EXPECT_FALSE(readCalibrationCache(c.text, table, error)) << c.text;
        EXPECT_NE(error.find(c.message), std::string::npos) << error;
    }
}

} // namespace
} // namespace kiln::builder
