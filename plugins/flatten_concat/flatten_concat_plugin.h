// FlattenConcat_TRT 1: SSD's flatten-and-concatenate of the per-feature-map predictions, an IPluginV2Ext plugin.
#pragma once

#include "common/legacy_plugin.h"

namespace kiln::plugins
{

struct FlattenConcatParams
{
    int32_t axis{1};         //!< the output axis (1, 2 or 3, counted with the batch) that holds the values
    bool ignoreBatch{false}; //!< accepted; every image is concatenated either way (README.md)

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("axis", axis, Need::kREQUIRED);
        field("ignoreBatch", ignoreBatch, Need::kOPTIONAL);
    }
};

class FlattenConcatPlugin : public LegacyPlugin<FlattenConcatPlugin, FlattenConcatParams>
{
public:
    static constexpr char const* kName = "FlattenConcat_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(FlattenConcatParams const& params);

    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    //! The nbInputs descriptors of a run (batch axis first); throws PluginError on shapes getOutputDimensions
    //! would refuse.
    void checkRunInputs(PluginTensors const& io) const;
};

} // namespace kiln::plugins
