#include "efficient_nms_host.h"

#include <algorithm>

namespace kiln::plugins
{

std::vector<std::vector<NmsDetection>> efficientNmsOnHost(EfficientNmsConfig const& config,
    EfficientNmsShape const& shape, std::vector<float> const& boxes, std::vector<float> const& scores,
    std::vector<float> const* anchors)
{
    float const threshold = rawScoreThreshold(config);
    int64_t const perImage = static_cast<int64_t>(shape.anchors) * shape.classes;
    std::vector<std::vector<NmsDetection>> result(static_cast<size_t>(shape.batch));
    for (int64_t image = 0; image < shape.batch; ++image)
    {
        float const* imageScores = scores.data() + image * perImage;
        std::vector<int64_t> candidates;
        for (int64_t element = 0; element < perImage; ++element)
        {
            if (imageScores[element] >= threshold && element % shape.classes != config.backgroundClass)
            {
                candidates.push_back(element);
            }
        }
        std::stable_sort(candidates.begin(), candidates.end(),
            [&](int64_t a, int64_t b) { return imageScores[a] > imageScores[b]; });

        std::vector<NmsDetection>& kept = result[static_cast<size_t>(image)];
        for (int64_t const element : candidates)
        {
            if (static_cast<int32_t>(kept.size()) >= config.maxOutputBoxes)
            {
                break;
            }
            auto const anchor = static_cast<int32_t>(element / shape.classes);
            auto const cls = static_cast<int32_t>(element % shape.classes);
            NmsBox raw{};
            std::copy_n(boxes.data() + boxOffset(shape, image, anchor, cls), 4, raw.v);
            NmsBox anchorBox{};
            if (anchors != nullptr)
            {
                std::copy_n(anchors->data() + anchorOffset(shape, image, anchor), 4, anchorBox.v);
            }
            NmsBox const box = decodeBox(raw, anchors != nullptr ? &anchorBox : nullptr, config.boxCoding);
            bool const suppressed = std::any_of(kept.begin(), kept.end(),
                [&](NmsDetection const& k) { return efficientSuppresses(config, k.box, k.cls, box, cls); });
            if (!suppressed)
            {
                kept.push_back(NmsDetection{anchor, cls, imageScores[element], box});
            }
        }
    }
    return result;
}

} // namespace kiln::plugins
