#include "detection_output_host.h"

#include "batched_nms/batched_nms_host.h"
#include "common/host_values.h"

#include <cmath>
#include <cstring>

namespace kiln::plugins
{
namespace
{

//! Decoded boxes [B, P, locClasses, 4].
std::vector<float> decodeAll(DetectionOutputParams const& params, SsdShape const& shape, std::vector<float> const& loc,
    std::vector<float> const& prior)
{
    std::vector<float> boxes(loc.size());
    auto const code = static_cast<SsdCode>(params.codeType);
    for (int64_t image = 0; image < shape.batch; ++image)
    {
        float const* priors = prior.data() + ssdPriorOffset(shape, image);
        float const* variances = priors + int64_t{shape.priors} * 4;
        for (int64_t p = 0; p < shape.priors; ++p)
        {
            for (int64_t c = 0; c < shape.locClasses; ++c)
            {
                int64_t const at = ((image * shape.priors + p) * shape.locClasses + c) * 4;
                decodeSsdBox(code, params.varianceEncodedInTarget, priors + p * 4, variances + p * 4, loc.data() + at,
                    boxes.data() + at);
            }
        }
    }
    return boxes;
}

} // namespace

BatchedNmsConfig ssdNmsConfigOf(DetectionOutputParams const& params)
{
    return BatchedNmsConfig{params.shareLocation, params.backgroundLabelId, params.topK, params.keepTopK,
        params.confidenceThreshold, params.nmsThreshold, params.isNormalized, true, true};
}

void runDetectionOutputOnHost(DetectionOutputParams const& params, SsdShape const& shape, PluginTensors const& io)
{
    auto input = [&](int32_t role) {
        auto const index = params.inputOrder[static_cast<size_t>(role)];
        return readFloats(io.inputDesc[index], io.inputs[index]);
    };
    std::vector<float> const boxes = decodeAll(params, shape, input(0), input(2));
    std::vector<float> scores = input(1);
    if (params.confSigmoid)
    {
        for (float& score : scores)
        {
            score = 1.F / (1.F + std::exp(-score));
        }
    }
    BatchedNmsConfig const config = ssdNmsConfigOf(params);
    auto const detections
        = batchedNmsOnHost(config, BatchedNmsShape{shape.batch, shape.priors, shape.classes}, boxes, scores);

    auto const slots = static_cast<size_t>(params.keepTopK);
    std::vector<float> out(detections.size() * slots * 7, 0.F);
    auto* keepCount = static_cast<int32_t*>(io.outputs[1]);
    for (size_t image = 0; image < detections.size(); ++image)
    {
        int32_t const count = static_cast<int32_t>(detections[image].size());
        std::memcpy(keepCount + image, &count, sizeof(count));
        for (size_t k = 0; k < slots; ++k)
        {
            float* row = out.data() + (image * slots + k) * 7;
            row[0] = static_cast<float>(image);
            row[1] = -1.F; // an empty slot: label -1, score and box 0, as NVIDIA's gather writes it
            if (k >= detections[image].size())
            {
                continue;
            }
            BatchedDetection const& d = detections[image][k];
            float const* box = boxes.data()
                + batchedBoxOffset(
                    config, {shape.batch, shape.priors, shape.classes}, static_cast<int64_t>(image), d.box, d.cls);
            row[1] = static_cast<float>(d.cls);
            row[2] = d.score;
            for (size_t v = 0; v < 4; ++v)
            {
                row[3 + v] = clipUnit(box[v]);
            }
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], out);
}

} // namespace kiln::plugins
