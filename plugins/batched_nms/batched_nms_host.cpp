#include "batched_nms_host.h"

#include <algorithm>

namespace kiln::plugins
{

std::vector<std::vector<BatchedDetection>> batchedNmsOnHost(BatchedNmsConfig const& config,
    BatchedNmsShape const& shape, std::vector<float> const& boxes, std::vector<float> const& scores)
{
    auto const topK = static_cast<size_t>(std::min(config.topK, shape.boxes));
    std::vector<std::vector<BatchedDetection>> result(static_cast<size_t>(shape.batch));
    for (int64_t image = 0; image < shape.batch; ++image)
    {
        auto scoreOf
            = [&](int64_t box, int64_t cls) { return scores[(image * shape.boxes + box) * shape.classes + cls]; };
        auto boxOf = [&](int64_t box, int64_t cls) {
            NmsBox b{};
            std::copy_n(boxes.data() + batchedBoxOffset(config, shape, image, box, cls), 4, b.v);
            return b;
        };
        std::vector<BatchedDetection> survivors;
        for (int32_t cls = 0; cls < shape.classes; ++cls)
        {
            if (cls == config.backgroundLabelId)
            {
                continue;
            }
            std::vector<int32_t> candidates;
            for (int32_t box = 0; box < shape.boxes; ++box)
            {
                if (scoreOf(box, cls) > config.scoreThreshold)
                {
                    candidates.push_back(box);
                }
            }
            std::stable_sort(candidates.begin(), candidates.end(),
                [&](int32_t a, int32_t b) { return scoreOf(a, cls) > scoreOf(b, cls); });
            candidates.resize(std::min(candidates.size(), topK));
            std::vector<NmsBox> kept;
            for (int32_t const box : candidates)
            {
                NmsBox const b = boxOf(box, cls);
                bool const suppressed = std::any_of(kept.begin(), kept.end(), [&](NmsBox const& k) {
                    return batchedIou(k, b, config.isNormalized, config.caffeSemantics) > config.iouThreshold;
                });
                if (!suppressed)
                {
                    kept.push_back(b);
                    survivors.push_back(BatchedDetection{box, cls, scoreOf(box, cls)});
                }
            }
        }
        std::stable_sort(survivors.begin(), survivors.end(),
            [](BatchedDetection const& a, BatchedDetection const& b) { return a.score > b.score; });
        survivors.resize(std::min(survivors.size(), static_cast<size_t>(config.keepTopK)));
        result[static_cast<size_t>(image)] = std::move(survivors);
    }
    return result;
}

} // namespace kiln::plugins
