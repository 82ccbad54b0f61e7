// Per-layer times from IExecutionContext::setProfiler: the --dumpProfile table and the
// --exportProfile JSON (trtexec's shape: [{"count": N}, {"name", "timeMs", "averageMs",
// "medianMs", "percentage"}, ...]).
#pragma once

#include <NvInferRuntime.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::cli
{

class LayerProfiler final : public nvinfer1::IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override;

    struct Layer
    {
        std::string name;
        std::vector<float> times; //!< one per run
        double totalMs() const;
        double medianMs() const;
    };
    //! Layers in the order they first ran.
    std::vector<Layer> const& layers() const
    {
        return mLayers;
    }
    //! Profiled runs: the most times any layer was reported.
    size_t runs() const;
    double totalMs() const;

    //! Adds a label after a layer's name in reports (e.g. the plugin it runs).
    void setLabel(std::string const& layer, std::string const& label);
    std::string displayName(Layer const& layer) const;

    void print() const;
    bool exportJson(std::string const& path, std::string& error) const;

private:
    mutable std::mutex mMutex;
    std::vector<Layer> mLayers;
    std::map<std::string, size_t> mIndex;
    std::map<std::string, std::string> mLabels;
};

} // namespace kiln::cli
