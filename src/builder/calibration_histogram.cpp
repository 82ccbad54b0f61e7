#include "builder/calibration_histogram.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>

namespace kiln::builder
{

AbsHistogram::AbsHistogram()
    : mBins(kBINS, 0)
{
}

AbsHistogram AbsHistogram::fromBins(float range, float maxAbs, std::vector<uint64_t> bins)
{
    AbsHistogram histogram;
    histogram.mRange = range;
    histogram.mMaxAbs = maxAbs;
    histogram.mBins = std::move(bins);
    histogram.mBins.resize(kBINS, 0);
    return histogram;
}

uint64_t AbsHistogram::total() const
{
    return std::accumulate(mBins.begin(), mBins.end(), uint64_t{0});
}

void AbsHistogram::widen(float magnitude)
{
    if (mRange == 0.0F)
    {
        mRange = magnitude; // every earlier value was 0, in bin 0 whatever the range
        return;
    }
    auto const factor = static_cast<int64_t>(std::ceil(static_cast<double>(magnitude) / mRange));
    std::vector<uint64_t> merged(kBINS, 0);
    for (int64_t b = 0; b < kBINS; ++b)
    {
        merged[static_cast<size_t>(b / factor)] += mBins[static_cast<size_t>(b)];
    }
    mBins = std::move(merged);
    mRange = static_cast<float>(static_cast<double>(mRange) * static_cast<double>(factor));
}

void AbsHistogram::add(float const* values, int64_t count)
{
    float batchMax = 0.0F;
    for (int64_t i = 0; i < count; ++i)
    {
        if (std::isfinite(values[i]))
        {
            batchMax = std::max(batchMax, std::fabs(values[i]));
        }
    }
    if (batchMax > mRange)
    {
        widen(batchMax);
    }
    mMaxAbs = std::max(mMaxAbs, batchMax);
    double const binsPerUnit = mRange > 0.0F ? kBINS / static_cast<double>(mRange) : 0.0;
    for (int64_t i = 0; i < count; ++i)
    {
        if (!std::isfinite(values[i]))
        {
            continue;
        }
        auto const bin = static_cast<int64_t>(std::fabs(static_cast<double>(values[i])) * binsPerUnit);
        ++mBins[static_cast<size_t>(std::min<int64_t>(bin, kBINS - 1))];
    }
}

namespace
{

//! KL(P || Q) of the candidate that keeps bins [0, kept) of `bins`; infinity where Q misses some of P.
double divergenceOfCandidate(std::vector<uint64_t> const& bins, int32_t kept, uint64_t total)
{
    std::vector<double> reference(bins.begin(), bins.begin() + kept);
    reference.back() += static_cast<double>(total) - std::accumulate(reference.begin(), reference.end(), 0.0);
    std::vector<double> expanded(static_cast<size_t>(kept), 0.0);
    int32_t const groups = AbsHistogram::kQUANTIZED_BINS;
    for (int32_t g = 0; g < groups; ++g)
    {
        int32_t const begin = g * kept / groups;
        int32_t const end = (g + 1) * kept / groups;
        double sum = 0.0;
        int32_t nonEmpty = 0;
        for (int32_t b = begin; b < end; ++b)
        {
            sum += static_cast<double>(bins[static_cast<size_t>(b)]);
            nonEmpty += bins[static_cast<size_t>(b)] != 0 ? 1 : 0;
        }
        for (int32_t b = begin; b < end && nonEmpty > 0; ++b)
        {
            expanded[static_cast<size_t>(b)] = bins[static_cast<size_t>(b)] != 0 ? sum / nonEmpty : 0.0;
        }
    }
    double const referenceSum = static_cast<double>(total);
    double const expandedSum = std::accumulate(expanded.begin(), expanded.end(), 0.0);
    double divergence = 0.0;
    for (size_t b = 0; b < reference.size(); ++b)
    {
        if (reference[b] == 0.0)
        {
            continue;
        }
        if (expanded[b] == 0.0)
        {
            return std::numeric_limits<double>::infinity();
        }
        double const p = reference[b] / referenceSum;
        double const q = expanded[b] / expandedSum;
        divergence += p * std::log(p / q);
    }
    return divergence;
}

} // namespace

float entropyRange(AbsHistogram const& histogram)
{
    uint64_t const total = histogram.total();
    if (total == 0 || histogram.range() == 0.0F)
    {
        return histogram.range();
    }
    double best = std::numeric_limits<double>::infinity();
    int32_t bestKept = -1;
    for (int32_t kept = AbsHistogram::kQUANTIZED_BINS; kept < AbsHistogram::kBINS; ++kept)
    {
        double const divergence = divergenceOfCandidate(histogram.bins(), kept, total);
        if (divergence < best)
        {
            best = divergence;
            bestKept = kept;
        }
    }
    if (bestKept < 0)
    {
        return histogram.range();
    }
    double const binWidth = static_cast<double>(histogram.range()) / AbsHistogram::kBINS;
    return static_cast<float>((bestKept + 0.5) * binWidth);
}

float legacyRange(AbsHistogram const& histogram, double quantile, double regressionCutoff)
{
    uint64_t const total = histogram.total();
    double const floor = regressionCutoff * histogram.maxAbs();
    if (total == 0)
    {
        return static_cast<float>(floor);
    }
    double const wanted = quantile * static_cast<double>(total);
    double const binWidth = static_cast<double>(histogram.range()) / AbsHistogram::kBINS;
    double seen = 0.0;
    int32_t bin = 0;
    for (; bin < AbsHistogram::kBINS - 1; ++bin)
    {
        seen += static_cast<double>(histogram.bins()[static_cast<size_t>(bin)]);
        if (seen >= wanted)
        {
            break;
        }
    }
    double const quantileEdge = std::min((bin + 1) * binWidth, static_cast<double>(histogram.maxAbs()));
    return static_cast<float>(std::max(quantileEdge, floor));
}

float calibratedRange(
    nvinfer1::CalibrationAlgoType algorithm, AbsHistogram const& histogram, double quantile, double regressionCutoff)
{
    switch (algorithm)
    {
    case nvinfer1::CalibrationAlgoType::kMINMAX_CALIBRATION: return histogram.maxAbs();
    case nvinfer1::CalibrationAlgoType::kLEGACY_CALIBRATION: return legacyRange(histogram, quantile, regressionCutoff);
    case nvinfer1::CalibrationAlgoType::kENTROPY_CALIBRATION:
    case nvinfer1::CalibrationAlgoType::kENTROPY_CALIBRATION_2: break;
    }
    return entropyRange(histogram);
}

} // namespace kiln::builder

namespace kiln::builder
{
namespace
{

char const* const kHISTOGRAM_HEADER = "KILN-HISTOGRAMS-1";

std::string hexOfFloat(float value)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    std::array<char, 16> hex{};
    std::snprintf(hex.data(), hex.size(), "%x", static_cast<unsigned>(bits));
    return hex.data();
}

//! The float whose bits `word` gives in hexadecimal; none where it is not 1 to 8 hex digits or not finite and >= 0.
std::optional<float> floatOfHex(std::string const& word)
{
    if (word.empty() || word.size() > 8 || word.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    {
        return std::nullopt;
    }
    auto const bits = static_cast<uint32_t>(std::stoul(word, nullptr, 16));
    float value = 0.0F;
    std::memcpy(&value, &bits, sizeof(value));
    return std::isfinite(value) && value >= 0.0F ? std::optional<float>(value) : std::nullopt;
}

bool parseHistogramLine(std::string const& line, size_t number,
    std::vector<std::pair<std::string, AbsHistogram>>& histograms, std::string& error)
{
    size_t const separator = line.rfind(": ");
    std::istringstream words(separator == std::string::npos ? std::string() : line.substr(separator + 2));
    std::string rangeWord;
    std::string maxWord;
    words >> rangeWord >> maxWord;
    std::optional<float> const range = floatOfHex(rangeWord);
    std::optional<float> const maxAbs = floatOfHex(maxWord);
    std::vector<uint64_t> bins;
    for (std::string count; words >> count;)
    {
        if (count.find_first_not_of("0123456789") != std::string::npos || count.size() > 19)
        {
            break;
        }
        bins.push_back(std::stoull(count));
    }
    if (separator == std::string::npos || separator == 0 || !range || !maxAbs
        || bins.size() != static_cast<size_t>(AbsHistogram::kBINS) || !words.eof())
    {
        error = "histogram cache line " + std::to_string(number) + ": not \"<tensor name>: <range> <largest> <"
            + std::to_string(AbsHistogram::kBINS) + " counts>\"";
        return false;
    }
    histograms.emplace_back(line.substr(0, separator), AbsHistogram::fromBins(*range, *maxAbs, std::move(bins)));
    return true;
}

} // namespace

std::string writeHistogramCache(std::vector<std::pair<std::string, AbsHistogram>> const& histograms)
{
    std::string text = std::string(kHISTOGRAM_HEADER) + "\n";
    for (auto const& [name, histogram] : histograms)
    {
        text += name + ": " + hexOfFloat(histogram.range()) + " " + hexOfFloat(histogram.maxAbs());
        for (uint64_t count : histogram.bins())
        {
            text += " " + std::to_string(count);
        }
        text += "\n";
    }
    return text;
}

bool readHistogramCache(
    std::string const& text, std::vector<std::pair<std::string, AbsHistogram>>& histograms, std::string& error)
{
    histograms.clear();
    std::istringstream lines(text);
    std::string line;
    size_t number = 0;
    while (std::getline(lines, line))
    {
        ++number;
        if (number == 1 && line != kHISTOGRAM_HEADER)
        {
            error = "histogram cache line 1: \"" + line + "\" is not \"" + kHISTOGRAM_HEADER + "\"";
            return false;
        }
        if (number > 1 && !line.empty() && !parseHistogramLine(line, number, histograms, error))
        {
            return false;
        }
    }
    if (number == 0)
    {
        error = "the histogram cache is empty";
        return false;
    }
    return true;
}

} // namespace kiln::builder
