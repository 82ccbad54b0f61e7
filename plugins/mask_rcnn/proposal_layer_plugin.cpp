#include "proposal_layer_plugin.h"

#include "field_checks.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/host_values.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "mask_rcnn_kernels.h"
#endif

namespace kiln::plugins
{

using namespace nvinfer1;

void ProposalLayerPlugin::check(ProposalLayerParams const& params)
{
    mrcnn::requireAtLeast(kName, "prenms_topk", params.preNmsTopK, 1);
    mrcnn::requireAtLeast(kName, "keep_topk", params.keepTopK, 1);
    mrcnn::requireThreshold(kName, "iou_threshold", params.iouThreshold, true);
    if (params.imageSize.size() != 3 || params.imageSize[0] != 3)
    {
        throw PluginError(std::string(kName) + ": field 'image_size' is " + mrcnn::listText(params.imageSize)
            + "; expected [3, H, W]");
    }
    // The anchors are normalized by H - 1 and W - 1.
    mrcnn::requireAtLeast(kName, "image_size", params.imageSize[1], 2);
    mrcnn::requireAtLeast(kName, "image_size", params.imageSize[2], 2);
}

mrcnn::PyramidAnchors ProposalLayerPlugin::anchors() const
{
    return mrcnn::PyramidAnchors{mParams.imageSize[1], mParams.imageSize[2]};
}

mrcnn::ProposalRule ProposalLayerPlugin::rule() const
{
    // Every foreground score >= 0 is a candidate, as NVIDIA's (score threshold 0).
    return mrcnn::ProposalRule{mParams.preNmsTopK, mParams.keepTopK, 0.F, mParams.iouThreshold};
}

int32_t ProposalLayerPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims ProposalLayerPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        if (nbInputs != 2)
        {
            throw PluginError(
                std::string(kName) + ": expected 2 inputs (scores, deltas); got " + std::to_string(nbInputs));
        }
        mrcnn::requireShape(kName, "scores", inputs[0], 3, 2, "[anchors, 2, 1]");
        mrcnn::requireShape(kName, "deltas", inputs[1], 3, 4, "[anchors, 4, 1]");
        int64_t const expected = anchors().count();
        if (inputs[0].d[0] != inputs[1].d[0] || inputs[0].d[0] != expected)
        {
            throw PluginError(std::string(kName) + ": the inputs hold " + std::to_string(inputs[0].d[0]) + " and "
                + std::to_string(inputs[1].d[0]) + " anchors; image_size " + std::to_string(mParams.imageSize[1])
                + " x " + std::to_string(mParams.imageSize[2]) + " makes " + std::to_string(expected));
        }
        Dims out{};
        out.nbDims = 2;
        out.d[0] = mParams.keepTopK;
        out.d[1] = 4;
        return out;
    });
}

DataType ProposalLayerPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

size_t ProposalLayerPlugin::getWorkspaceSize(int32_t maxBatchSize) const noexcept
{
#ifdef KILN_WITH_CUDA
    return guarded(kName, "getWorkspaceSize", size_t{0}, [&] {
        if (mConfiguration.inputDims.empty())
        {
            return size_t{0};
        }
        auto const count = static_cast<int32_t>(mConfiguration.inputDims[0].d[0]);
        return mrcnn::proposalLayerWorkspaceSize(maxBatchSize, count, rule());
    });
#else
    (void) maxBatchSize;
    return 0;
#endif
}

void ProposalLayerPlugin::runHost(PluginTensors const& io) const
{
    auto const batch = static_cast<int32_t>(io.inputDesc[0].dims.d[0]);
    auto const count = static_cast<int32_t>(io.inputDesc[0].dims.d[1]);
    std::vector<float> const scores = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const deltas = readFloats(io.inputDesc[1], io.inputs[1]);
    mrcnn::PyramidAnchors const pyramid = anchors();
    mrcnn::ProposalRule const selection = rule();
    std::vector<float> out(static_cast<size_t>(int64_t{batch} * mParams.keepTopK * 4), 0.F);
    std::vector<float> foreground(static_cast<size_t>(count));
    for (int32_t b = 0; b < batch; ++b)
    {
        for (int32_t i = 0; i < count; ++i)
        {
            foreground[i] = scores[(int64_t{b} * count + i) * 2 + 1];
        }
        auto const boxOf = [&](int32_t i) {
            return mrcnn::applyNormalizedDelta(pyramid.anchor(i), deltas.data() + (int64_t{b} * count + i) * 4);
        };
        std::vector<int32_t> const kept = mrcnn::keepProposals(foreground.data(), count, selection, boxOf);
        for (size_t k = 0; k < kept.size(); ++k)
        {
            if (foreground[kept[k]] > mrcnn::kMinOutputScore)
            {
                mrcnn::YxBox const box = boxOf(kept[k]);
                float* dst = out.data() + (int64_t{b} * mParams.keepTopK + static_cast<int64_t>(k)) * 4;
                dst[0] = box.y1;
                dst[1] = box.x1;
                dst[2] = box.y2;
                dst[3] = box.x2;
            }
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], out);
}

void ProposalLayerPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    mrcnn::ProposalLayerRun run;
    run.batch = static_cast<int32_t>(io.inputDesc[0].dims.d[0]);
    run.anchors = static_cast<int32_t>(io.inputDesc[0].dims.d[1]);
    run.pyramid = anchors();
    run.rule = rule();
    run.scores = io.input<float>(0);
    run.deltas = io.input<float>(1);
    run.proposals = io.output<float>(0);
    checkCuda(kName, mrcnn::launchProposalLayer(run, io.workspace, stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::ProposalLayerPlugin>)
