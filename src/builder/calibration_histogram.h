// What INT8 calibration learns of one tensor, and how each of TensorRT's calibration algorithms turns it into the
// tensor's range (the largest magnitude that quantizes to 127; the scale is range / 127).
//
// The statistics are a histogram of |x| with TensorRT's 2048 bins over [0, R], R the largest magnitude seen so far,
// and that largest magnitude itself. Batches come one at a time and the data cannot be read twice, so a batch with a
// larger magnitude widens R to a whole multiple k of the old one and merges every k old bins into one new bin: the
// counts stay exact, only the resolution drops.
//
// The algorithms (IInt8Calibrator::getAlgorithm):
//   kMINMAX_CALIBRATION      the largest magnitude seen.
//   kENTROPY_CALIBRATION_2   the KL-divergence search NVIDIA presented for TensorRT's INT8 ("8-bit Inference with
//   kENTROPY_CALIBRATION     TensorRT", GTC 2017): for each candidate i of [128, 2048), the reference distribution P
//                            is bins [0, i) with every count beyond added to bin i-1; Q merges bins [0, i) into 128
//                            quantized bins and spreads each one's count evenly over its non-empty bins; the range is
//                            (i + 0.5) bin widths for the i of least KL(P || Q). TensorRT documents the two entropy
//                            calibrators as differing in when they calibrate (before or after layer fusion); Kiln
//                            calibrates the unfused network for both, so both compute this.
//   kLEGACY_CALIBRATION      the upper edge of the first bin by which the quantile (getQuantile) of the values is
//                            reached, but no less than the regression cutoff (getRegressionCutoff) times the largest
//                            magnitude. TensorRT does not document its legacy regression; this is Kiln's reading of
//                            the two parameters.
#pragma once

#include <NvInferBuilder.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::builder
{

class AbsHistogram
{
public:
    static constexpr int32_t kBINS = 2048;
    static constexpr int32_t kQUANTIZED_BINS = 128;

    AbsHistogram();

    //! Adds the magnitudes of `count` values; NaNs and infinities are left out.
    void add(float const* values, int64_t count);
    //! A histogram with these bins over [0, range] and this largest magnitude (a histogram cache's).
    static AbsHistogram fromBins(float range, float maxAbs, std::vector<uint64_t> bins);

    float range() const
    {
        return mRange;
    }
    float maxAbs() const
    {
        return mMaxAbs;
    }
    std::vector<uint64_t> const& bins() const
    {
        return mBins;
    }
    uint64_t total() const;

private:
    //! Widens the bins' range to cover `magnitude`, merging bins by a whole factor.
    void widen(float magnitude);

    std::vector<uint64_t> mBins;
    float mRange{0.0F};
    float mMaxAbs{0.0F};
};

//! The range kENTROPY_CALIBRATION and kENTROPY_CALIBRATION_2 choose; the histogram's range where no candidate has a
//! finite divergence (or the histogram is empty).
float entropyRange(AbsHistogram const& histogram);

//! The range kLEGACY_CALIBRATION chooses with these parameters (both in [0, 1]).
float legacyRange(AbsHistogram const& histogram, double quantile, double regressionCutoff);

//! The range `algorithm` chooses; the legacy parameters are read only by kLEGACY_CALIBRATION.
float calibratedRange(nvinfer1::CalibrationAlgoType algorithm, AbsHistogram const& histogram, double quantile = 1.0,
    double regressionCutoff = 1.0);

//! Histograms by tensor name, as a legacy calibrator's histogram cache (a text format of Kiln's own: a first line
//! "KILN-HISTOGRAMS-1", then per tensor "<name>: <range> <largest magnitude> <2048 counts>", the two floats as the
//! hexadecimal of their bits, all separated by single spaces).
std::string writeHistogramCache(std::vector<std::pair<std::string, AbsHistogram>> const& histograms);

//! Parses a histogram cache; false with `error` naming the line and what is wrong with it.
bool readHistogramCache(
    std::string const& text, std::vector<std::pair<std::string, AbsHistogram>>& histograms, std::string& error);

} // namespace kiln::builder
