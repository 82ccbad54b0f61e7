// One plugin layer in one execution context: the context's own attached clone of
// the engine's plugin, and the conversions between the tensors' types and the types
// the plugin negotiated at build time. On the CPU backend the plugin runs through
// kiln::IHostPlugin on host memory; on the CUDA backend its own enqueue runs on device
// memory and the context's stream. Its workspace is in the context's memory, shared
// by the context's plugins, which run one after another.
#pragma once

#include "core/tensor_view.h"
#include "network/plugin_layer.h"
#include "backend/reformatter.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::backend
{

class PluginRunner
{
public:
    enum class Memory
    {
        kHOST,   //!< CPU backend
        kDEVICE, //!< CUDA backend
    };

    //! Attaches a clone of the engine's plugin to the context that lends `resources` (which must outlive the
    //! runner); `reformatter` converts in `memory`. nullptr with error on failure.
    static std::unique_ptr<PluginRunner> attach(network::PluginParams const& params, Memory memory,
        std::unique_ptr<Reformatter> reformatter, plugin::ContextResources const& resources, std::string& error);

    //! "Name (version V, namespace "N")", for messages.
    std::string description() const
    {
        return mPlugin->description();
    }

    //! Runs the plugin (queued on `stream` on the device) with `workspace`, at least the plan's workspace size for
    //! it; tells it first if the shapes changed since the last run. Throws std::runtime_error when the conversions'
    //! scratch cannot be allocated.
    bool run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, void* workspace,
        cudaStream_t stream, std::string& error);

private:
    PluginRunner(network::PluginParams const& params, std::unique_ptr<plugin::PluginAdapter> plugin, Memory memory,
        std::unique_ptr<Reformatter> reformatter);

    //! Whether the shapes differ from those of the last shapesChanged call.
    bool shapesDiffer(
        std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, size_t nbInputs) const;
    //! Copies each aliased input into its output and hands the plugin the output's memory for both (after the
    //! views are made). False with error where their shapes differ.
    bool aliasOutputs(size_t nbInputs, cudaStream_t stream, std::string& error);
    //! Fills mInDescs and mOutDescs.
    void describeTensors(
        std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, size_t nbInputs);

    network::PluginParams const& mParams;
    std::unique_ptr<plugin::PluginAdapter> mPlugin;
    Memory mMemory;
    std::vector<Shape> mLastShapes;            //!< inputs then outputs, as of the last shapesChanged call
    std::unique_ptr<Reformatter> mReformatter; //!< slots: the plugin's inputs, then its outputs
    // What a run hands the plugin, kept between runs and rewritten in place.
    std::vector<nvinfer1::PluginTensorDesc> mInDescs;
    std::vector<nvinfer1::PluginTensorDesc> mOutDescs;
    std::vector<ConstTensorView> mReadViews;
    std::vector<TensorView> mWrittenViews;
    std::vector<void const*> mInData;
    std::vector<void*> mOutData;
};

} // namespace kiln::backend
