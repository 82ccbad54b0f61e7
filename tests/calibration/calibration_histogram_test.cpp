// The calibration statistics and the ranges each algorithm chooses, against values worked out by hand or, for the
// entropy search, by a brute-force numpy transcription of the GTC 2017 description (2048 bins of |x| over [0, max],
// candidates i in [128, 2048), outliers added to bin i-1, 128 quantized bins spread over their non-empty bins,
// range (i + 0.5) * bin width); the numpy script's results are quoted where they are used.
#include "builder/calibration_histogram.h"

#include <gtest/gtest.h>

#include <vector>

namespace kiln::builder
{
namespace
{

using nvinfer1::CalibrationAlgoType;

AbsHistogram histogramOf(std::vector<float> const& values)
{
    AbsHistogram histogram;
    histogram.add(values.data(), static_cast<int64_t>(values.size()));
    return histogram;
}

TEST(CalibrationHistogram, BinsMagnitudesOverTheLargest)
{
    AbsHistogram const h = histogramOf({0.0F, -1.0F, 2.0F, 4.0F});
    EXPECT_EQ(h.range(), 4.0F);
    EXPECT_EQ(h.maxAbs(), 4.0F);
    EXPECT_EQ(h.total(), 4U);
    // Bin width 4 / 2048: 1 falls in bin 512, 2 in 1024, the largest in the last bin.
    EXPECT_EQ(h.bins()[0], 1U);
    EXPECT_EQ(h.bins()[512], 1U);
    EXPECT_EQ(h.bins()[1024], 1U);
    EXPECT_EQ(h.bins()[2047], 1U);
}

TEST(CalibrationHistogram, WiderBatchMergesBinsByAWholeFactor)
{
    AbsHistogram h = histogramOf({0.0F, -1.0F, 2.0F, 4.0F});
    std::vector<float> const second{10.0F};
    h.add(second.data(), 1);
    // ceil(10 / 4) = 3: the range becomes 12 and old bin b moves to b / 3.
    EXPECT_EQ(h.range(), 12.0F);
    EXPECT_EQ(h.maxAbs(), 10.0F);
    EXPECT_EQ(h.total(), 5U);
    EXPECT_EQ(h.bins()[0], 1U);
    EXPECT_EQ(h.bins()[170], 1U);  // 512 / 3
    EXPECT_EQ(h.bins()[341], 1U);  // 1024 / 3
    EXPECT_EQ(h.bins()[682], 1U);  // 2047 / 3
    EXPECT_EQ(h.bins()[1706], 1U); // 10 * 2048 / 12
}

TEST(CalibrationHistogram, LeavesOutNonFiniteValues)
{
    AbsHistogram const h
        = histogramOf({1.0F, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()});
    EXPECT_EQ(h.total(), 1U);
    EXPECT_EQ(h.maxAbs(), 1.0F);
}

TEST(CalibrationAlgorithms, MinMaxIsTheLargestMagnitude)
{
    EXPECT_EQ(calibratedRange(CalibrationAlgoType::kMINMAX_CALIBRATION, histogramOf({-3.0F, 1.0F, 2.0F})), 3.0F);
}

TEST(CalibrationAlgorithms, EntropyClipsALoneOutlier)
{
    // Four values in each of bins 0..255 and one at 2048 (bin width 1): numpy's search chooses i = 256, range 256.5.
    std::vector<float> values;
    for (int b = 0; b < 256; ++b)
    {
        values.insert(values.end(), 4, static_cast<float>(b) + 0.5F);
    }
    values.push_back(2048.0F);
    AbsHistogram const h = histogramOf(values);
    EXPECT_FLOAT_EQ(calibratedRange(CalibrationAlgoType::kENTROPY_CALIBRATION_2, h), 256.5F);
    EXPECT_FLOAT_EQ(calibratedRange(CalibrationAlgoType::kENTROPY_CALIBRATION, h), 256.5F);
    EXPECT_EQ(calibratedRange(CalibrationAlgoType::kMINMAX_CALIBRATION, h), 2048.0F);
}

TEST(CalibrationAlgorithms, EntropyKeepsAUniformDistribution)
{
    // One value per bin: the divergence falls as i grows, so the last candidate, 2047, wins (numpy: 2047.5).
    std::vector<float> values;
    for (int b = 0; b < 2047; ++b)
    {
        values.push_back(static_cast<float>(b) + 0.5F);
    }
    values.push_back(2048.0F);
    EXPECT_FLOAT_EQ(entropyRange(histogramOf(values)), 2047.5F);
}

TEST(CalibrationAlgorithms, EntropyOfOneValueIsThatValue)
{
    // Every count in the last bin: Q is empty where P is not for every candidate, so the range stays the largest.
    EXPECT_EQ(entropyRange(histogramOf({3.0F, -3.0F, 3.0F})), 3.0F);
    EXPECT_EQ(entropyRange(histogramOf({0.0F, 0.0F})), 0.0F);
}

TEST(CalibrationAlgorithms, LegacyTakesTheQuantileAboveTheRegressionCutoff)
{
    AbsHistogram const h = histogramOf({1.0F, 2.0F, 3.0F, 4.0F});
    // Half the values lie in bins up to 1024: the upper edge of bin 1024 is 1025 * 4 / 2048.
    EXPECT_FLOAT_EQ(legacyRange(h, 0.5, 0.0), 1025.0F * 4.0F / 2048.0F);
    // A cutoff of 0.9 of the largest magnitude (4) is larger.
    EXPECT_FLOAT_EQ(legacyRange(h, 0.5, 0.9), 3.6F);
    // The whole distribution: the largest magnitude.
    EXPECT_FLOAT_EQ(calibratedRange(CalibrationAlgoType::kLEGACY_CALIBRATION, h, 1.0, 0.0), 4.0F);
}

} // namespace
} // namespace kiln::builder

namespace kiln::builder
{
namespace
{

TEST(HistogramCache, RoundTripsAndRefusesMalformedLines)
{
    AbsHistogram h;
    std::vector<float> const values{0.0F, -1.0F, 2.0F, 4.0F, 3.5F};
    h.add(values.data(), static_cast<int64_t>(values.size()));
    std::vector<std::pair<std::string, AbsHistogram>> read;
    std::string error;
    ASSERT_TRUE(readHistogramCache(writeHistogramCache({{"conv: out", h}}), read, error)) << error;
    ASSERT_EQ(read.size(), 1U);
    EXPECT_EQ(read[0].first, "conv: out");
    EXPECT_EQ(read[0].second.range(), h.range());
    EXPECT_EQ(read[0].second.maxAbs(), h.maxAbs());
    EXPECT_EQ(read[0].second.bins(), h.bins());

    EXPECT_FALSE(readHistogramCache("TRT-7000-EntropyCalibration2\n", read, error));
    EXPECT_NE(error.find("histogram cache line 1"), std::string::npos) << error;
    EXPECT_FALSE(readHistogramCache("KILN-HISTOGRAMS-1\nx: 40800000 40800000 1 2 3\n", read, error));
    EXPECT_NE(error.find("histogram cache line 2"), std::string::npos) << error;
}

} // namespace
} // namespace kiln::builder
