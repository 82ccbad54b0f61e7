#include "multilevel_propose_roi_plugin.h"

#include "field_checks.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/host_values.h"

#include <algorithm>
#include <limits>

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "multilevel_propose_kernels.h"
#endif

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

//! The inputs alternate per level: deltas [A, 4, 1], then scores [A, 1, 1], for P2 to P6.
int32_t deltasInput(int32_t level)
{
    return 2 * level;
}
int32_t scoresInput(int32_t level)
{
    return 2 * level + 1;
}

} // namespace

void MultilevelProposeRoiPlugin::check(MultilevelProposeRoiParams const& params)
{
    mrcnn::requireAtLeast(kName, "prenms_topk", params.preNmsTopK, 1);
    mrcnn::requireAtLeast(kName, "keep_topk", params.keepTopK, 1);
    // NVIDIA's accept 0 for both thresholds: an IoU threshold of 0 suppresses every overlapping box.
    mrcnn::requireThreshold(kName, "fg_threshold", params.fgThreshold, false);
    mrcnn::requireThreshold(kName, "iou_threshold", params.iouThreshold, false);
    std::vector<int32_t> const& size = params.imageSize;
    if (size.size() != 3 || size[0] < 1 || size[1] < 1 || size[2] < 1)
    {
        throw PluginError(std::string(kName) + ": field 'image_size' is " + mrcnn::listText(size)
            + "; expected [C, H, W], each 1 or more");
    }
}

mrcnn::TltPyramidAnchors MultilevelProposeRoiPlugin::anchors() const
{
    return mrcnn::TltPyramidAnchors{mParams.imageSize[1], mParams.imageSize[2]};
}

mrcnn::ProposalRule MultilevelProposeRoiPlugin::rule() const
{
    // A candidate needs score >= fg_threshold and score > 0: NVIDIA's drop scores of 0 even where fg_threshold is 0.
    float const threshold = std::max(mParams.fgThreshold, std::numeric_limits<float>::denorm_min());
    return mrcnn::ProposalRule{mParams.preNmsTopK, mParams.keepTopK, threshold, mParams.iouThreshold};
}

int32_t MultilevelProposeRoiPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims MultilevelProposeRoiPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        if (nbInputs != 2 * kLevels)
        {
            throw PluginError(std::string(kName) + ": expected 10 inputs (deltas and scores of P2 to P6); got "
                + std::to_string(nbInputs));
        }
        mrcnn::TltPyramidAnchors const pyramid = anchors();
        for (int32_t level = 0; level < kLevels; ++level)
        {
            std::string const name = "P" + std::to_string(level + 2);
            Dims const& deltas = inputs[deltasInput(level)];
            Dims const& scores = inputs[scoresInput(level)];
            mrcnn::requireShape(kName, (name + " deltas").c_str(), deltas, 3, 4, "[anchors, 4, 1]");
            mrcnn::requireShape(kName, (name + " scores").c_str(), scores, 3, 1, "[anchors, 1, 1]");
            int64_t const expected = pyramid.countOf(level);
            if (deltas.d[0] != expected || scores.d[0] != expected || expected > std::numeric_limits<int32_t>::max())
            {
                throw PluginError(std::string(kName) + ": the " + name + " inputs hold " + std::to_string(deltas.d[0])
                    + " and " + std::to_string(scores.d[0]) + " anchors; image_size "
                    + std::to_string(mParams.imageSize[1]) + " x " + std::to_string(mParams.imageSize[2]) + " makes "
                    + std::to_string(expected));
            }
        }
        Dims out{};
        out.nbDims = 2;
        out.d[0] = mParams.keepTopK;
        out.d[1] = 4;
        return out;
    });
}

bool MultilevelProposeRoiPlugin::supportsFormat(DataType type, PluginFormat format) const noexcept
{
    return (type == DataType::kFLOAT || type == DataType::kHALF) && format == PluginFormat::kLINEAR;
}

DataType MultilevelProposeRoiPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    return nbInputs > 0 && inputTypes[0] == DataType::kHALF ? DataType::kHALF : DataType::kFLOAT;
}

size_t MultilevelProposeRoiPlugin::getWorkspaceSize(int32_t maxBatchSize) const noexcept
{
#ifdef KILN_WITH_CUDA
    return guarded(kName, "getWorkspaceSize", size_t{0},
        [&] { return mrcnn::multilevelProposeWorkspaceSize(maxBatchSize, anchors(), rule()); });
#else
    (void) maxBatchSize;
    return 0;
#endif
}

void MultilevelProposeRoiPlugin::runHost(PluginTensors const& io) const
{
    auto const batch = static_cast<int32_t>(io.inputDesc[0].dims.d[0]);
    mrcnn::TltPyramidAnchors const pyramid = anchors();
    mrcnn::ProposalRule const selection = rule();
    std::vector<float> deltas[kLevels];
    std::vector<float> scores[kLevels];
    for (int32_t level = 0; level < kLevels; ++level)
    {
        deltas[level] = readFloats(io.inputDesc[deltasInput(level)], io.inputs[deltasInput(level)]);
        scores[level] = readFloats(io.inputDesc[scoresInput(level)], io.inputs[scoresInput(level)]);
    }
    std::vector<float> out(static_cast<size_t>(int64_t{batch} * mParams.keepTopK * 4), 0.F);
    for (int32_t b = 0; b < batch; ++b)
    {
        // Each level's survivors, level by level, each best first; the label holds the level.
        std::vector<mrcnn::Detection> survivors;
        for (int32_t level = 0; level < kLevels; ++level)
        {
            auto const count = static_cast<int32_t>(pyramid.countOf(level));
            float const* levelScores = scores[level].data() + int64_t{b} * count;
            auto const boxOf = [&](int32_t i) {
                return pyramid.proposal(level, i, deltas[level].data() + (int64_t{b} * count + i) * 4);
            };
            for (int32_t const i : mrcnn::keepProposals(levelScores, count, selection, boxOf))
            {
                survivors.push_back(mrcnn::Detection{boxOf(i), level, levelScores[i]});
            }
        }
        std::vector<mrcnn::Detection> const best = mrcnn::bestDetections(std::move(survivors), mParams.keepTopK);
        for (size_t k = 0; k < best.size(); ++k)
        {
            float* dst = out.data() + (int64_t{b} * mParams.keepTopK + static_cast<int64_t>(k)) * 4;
            dst[0] = best[k].box.y1;
            dst[1] = best[k].box.x1;
            dst[2] = best[k].box.y2;
            dst[3] = best[k].box.x2;
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], out);
}

void MultilevelProposeRoiPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    mrcnn::MultilevelProposeRun run;
    run.batch = static_cast<int32_t>(io.inputDesc[0].dims.d[0]);
    run.anchors = anchors();
    run.rule = rule();
    for (int32_t level = 0; level < kLevels; ++level)
    {
        int32_t const d = deltasInput(level);
        int32_t const s = scoresInput(level);
        run.deltas[level] = mrcnn::FloatTensor{io.inputs[d], io.inputDesc[d].type == DataType::kHALF};
        run.scores[level] = mrcnn::FloatTensor{io.inputs[s], io.inputDesc[s].type == DataType::kHALF};
    }
    run.proposals = io.outputs[0];
    run.proposalsHalf = io.outputDesc[0].type == DataType::kHALF;
    checkCuda(kName, mrcnn::launchMultilevelPropose(run, io.workspace, stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::MultilevelProposeRoiPlugin>)
