#include "layer_profiler.h"

#include "cli_logger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>

namespace kiln::cli
{

void LayerProfiler::reportLayerTime(char const* layerName, float ms) noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    auto [it, added] = mIndex.emplace(layerName, mLayers.size());
    if (added)
    {
        mLayers.push_back({layerName, {}});
    }
    mLayers[it->second].times.push_back(ms);
}

double LayerProfiler::Layer::totalMs() const
{
    return std::accumulate(times.begin(), times.end(), 0.0);
}

double LayerProfiler::Layer::medianMs() const
{
    if (times.empty())
    {
        return 0;
    }
    std::vector<float> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    size_t const n = sorted.size();
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

size_t LayerProfiler::runs() const
{
    size_t runs = 0;
    for (Layer const& layer : mLayers)
    {
        runs = std::max(runs, layer.times.size());
    }
    return runs;
}

double LayerProfiler::totalMs() const
{
    double total = 0;
    for (Layer const& layer : mLayers)
    {
        total += layer.totalMs();
    }
    return total;
}

void LayerProfiler::setLabel(std::string const& layer, std::string const& label)
{
    mLabels[layer] = label;
}

std::string LayerProfiler::displayName(Layer const& layer) const
{
    auto const label = mLabels.find(layer.name);
    return label == mLabels.end() ? layer.name : layer.name + " [" + label->second + "]";
}

void LayerProfiler::print() const
{
    size_t const count = std::max<size_t>(runs(), 1);
    double const total = totalMs();
    size_t width = 5;
    for (Layer const& layer : mLayers)
    {
        width = std::max(width, displayName(layer).size());
    }
    // Names are as long as the layers fusion joined (an attention of a quantized export names 30 of them): each line
    // is built to its length, the name right-aligned in the widest name's column.
    auto const padded = [&](std::string const& name) { return std::string(width - name.size(), ' ') + name; };
    logInfo("");
    logInfo("=== Profile (" + std::to_string(runs()) + " iterations ) ===");
    logInfo(padded("Layer") + "   Time(ms)   Avg. Time(ms)   Median Time(ms)   Time %");
    auto row = [&](std::string const& name, double ms, double median) {
        char numbers[128];
        std::snprintf(numbers, sizeof(numbers), " %10.2f %15.4f %17.4f %8.1f", ms, ms / static_cast<double>(count),
            median, total > 0 ? ms / total * 100 : 0.0);
        logInfo(padded(name) + numbers);
    };
    double medianSum = 0;
    for (Layer const& layer : mLayers)
    {
        row(displayName(layer), layer.totalMs(), layer.medianMs());
        medianSum += layer.medianMs();
    }
    row("Total", total, medianSum);
    logInfo("");
}

bool LayerProfiler::exportJson(std::string const& path, std::string& error) const
{
    size_t const count = std::max<size_t>(runs(), 1);
    double const total = totalMs();
    nlohmann::ordered_json profile = nlohmann::ordered_json::array();
    profile.push_back({{"count", runs()}});
    for (Layer const& layer : mLayers)
    {
        profile.push_back({{"name", layer.name}, {"timeMs", layer.totalMs()},
            {"averageMs", layer.totalMs() / static_cast<double>(count)}, {"medianMs", layer.medianMs()},
            {"percentage", total > 0 ? layer.totalMs() / total * 100 : 0.0}});
    }
    std::ofstream file(path);
    if (!(file << profile.dump(2) << '\n'))
    {
        error = "--exportProfile: cannot write \"" + path + "\"";
        return false;
    }
    return true;
}

} // namespace kiln::cli
