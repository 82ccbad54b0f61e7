#include "backend/cpu/kernels/tensor/nms.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"
#include "backend/shared/nms_box.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

constexpr char const* kKernel = "nms";

struct Candidate
{
    float score;
    int64_t classIndex;
    int64_t box;
};

//! The extents the layer reads: batch items, boxes and classes, and whether the boxes are per class.
struct Extents
{
    int64_t batch;
    int64_t boxes;
    int64_t classes;
    bool perClass;
};

Extents checkInputs(ConstTensorView const& boxes, ConstTensorView const& scores)
{
    if (!isFloatType(boxes.type) || scores.type != boxes.type)
    {
        fail(kKernel,
            std::string("boxes and scores must both be FLOAT, HALF or BF16, not ") + dataTypeName(boxes.type) + " and "
                + dataTypeName(scores.type));
    }
    if ((boxes.rank() != 3 && boxes.rank() != 4) || boxes.shape.back() != 4 || scores.rank() != 3)
    {
        fail(kKernel,
            "boxes " + shapeText(boxes.shape)
                + " must be [batch, boxes, 4] or [batch, boxes, classes, 4] "
                  "and scores "
                + shapeText(scores.shape) + " [batch, boxes, classes]");
    }
    Extents const extents{scores.shape[0], scores.shape[1], scores.shape[2], boxes.rank() == 4};
    if (boxes.shape[0] != extents.batch || boxes.shape[1] != extents.boxes
        || (extents.perClass && boxes.shape[2] != extents.classes))
    {
        fail(kKernel,
            "boxes " + shapeText(boxes.shape) + " do not match scores " + shapeText(scores.shape)
                + " [batch, boxes, classes]");
    }
    return extents;
}

void checkOutputs(Extents const& extents, TensorView const& selected, TensorView const& count)
{
    if (!isIndexType(selected.type) || selected.rank() != 2 || selected.shape[1] != 3)
    {
        fail(kKernel,
            "the selected indices must be an INT32 or INT64 [count, 3] tensor, not " + shapeText(selected.shape)
                + " of " + dataTypeName(selected.type));
    }
    if (!isIndexType(count.type) || count.rank() != 0)
    {
        fail(kKernel, "the count must be a 0-D INT32 or INT64 tensor");
    }
    int64_t const largest = std::max({extents.batch, extents.boxes, extents.classes}) - 1;
    if (selected.type == DataType::kINT32 && largest > std::numeric_limits<int32_t>::max())
    {
        fail(kKernel, "an index of " + std::to_string(largest) + " does not fit the INT32 indices");
    }
}

//! Batch item b's candidates: the scores above the threshold, the top-k box limit's count of the highest kept.
std::vector<Candidate> candidatesOf(
    ConstTensorView const& scores, Extents const& extents, int64_t b, float threshold, int32_t limit)
{
    std::vector<Candidate> candidates;
    for (int64_t box = 0; box < extents.boxes; ++box)
    {
        for (int64_t c = 0; c < extents.classes; ++c)
        {
            float const score = readFloat(scores.data, scores.type, (b * extents.boxes + box) * extents.classes + c);
            if (score > threshold)
            {
                candidates.push_back(Candidate{score, c, box});
            }
        }
    }
    if (static_cast<int64_t>(candidates.size()) > limit)
    {
        auto const higher = [](Candidate const& a, Candidate const& x) {
            return a.score != x.score ? a.score > x.score
                                      : (a.classIndex != x.classIndex ? a.classIndex < x.classIndex : a.box < x.box);
        };
        std::nth_element(candidates.begin(), candidates.begin() + limit, candidates.end(), higher);
        candidates.resize(static_cast<size_t>(limit));
    }
    // Each class's candidates together, in the order they are considered in.
    std::sort(candidates.begin(), candidates.end(), [](Candidate const& a, Candidate const& x) {
        if (a.classIndex != x.classIndex)
        {
            return a.classIndex < x.classIndex;
        }
        return a.score != x.score ? a.score > x.score : a.box < x.box;
    });
    return candidates;
}

nms_detail::Box boxOf(ConstTensorView const& boxes, Extents const& extents, int64_t b, Candidate const& candidate,
    network::NMSParams const& params)
{
    int64_t const item = b * extents.boxes + candidate.box;
    int64_t const first = 4 * (extents.perClass ? item * extents.classes + candidate.classIndex : item);
    auto const at = [&](int64_t i) { return readFloat(boxes.data, boxes.type, first + i); };
    return nms_detail::makeBox(
        at(0), at(1), at(2), at(3), params.boxFormat == nvinfer1::BoundingBoxFormat::kCENTER_SIZES);
}

//! Writes row `row` of the selected indices, after checking the capacity.
void writeRow(TensorView const& selected, int64_t row, int64_t b, Candidate const& candidate)
{
    if (row >= selected.shape[0])
    {
        fail(kKernel, "more boxes are selected than the " + std::to_string(selected.shape[0]) + " planned for");
    }
    writeInteger(selected.data, selected.type, row * 3, b);
    writeInteger(selected.data, selected.type, row * 3 + 1, candidate.classIndex);
    writeInteger(selected.data, selected.type, row * 3 + 2, candidate.box);
}

} // namespace

void nms(ConstTensorView const& boxes, ConstTensorView const& scores, NmsLimits const& limits,
    network::NMSParams const& params, TensorView const& selected, TensorView const& count)
{
    Extents const extents = checkInputs(boxes, scores);
    checkOutputs(extents, selected, count);
    int64_t rows = 0;
    for (int64_t b = 0; b < extents.batch && limits.maxOutputBoxesPerClass > 0; ++b)
    {
        std::vector<Candidate> const candidates
            = candidatesOf(scores, extents, b, limits.scoreThreshold, params.topKBoxLimit);
        std::vector<nms_detail::Box> kept; // the boxes selected in the current class
        for (size_t i = 0; i < candidates.size(); ++i)
        {
            if (i == 0 || candidates[i].classIndex != candidates[i - 1].classIndex)
            {
                kept.clear();
            }
            if (static_cast<int64_t>(kept.size()) >= limits.maxOutputBoxesPerClass)
            {
                continue;
            }
            nms_detail::Box const box = boxOf(boxes, extents, b, candidates[i], params);
            bool const suppressed = std::any_of(kept.begin(), kept.end(),
                [&](nms_detail::Box const& other) { return nms_detail::suppresses(other, box, limits.iouThreshold); });
            if (!suppressed)
            {
                kept.push_back(box);
                writeRow(selected, rows++, b, candidates[i]);
            }
        }
    }
    if (count.type == DataType::kINT32 && rows > std::numeric_limits<int32_t>::max())
    {
        fail(kKernel, std::to_string(rows) + " selected boxes do not fit the INT32 count");
    }
    writeInteger(count.data, count.type, 0, rows);
}

void run(network::NMSParams const& params, LayerInputs const& in, LayerOutputs const& out)
{
    NmsLimits limits;
    limits.maxOutputBoxesPerClass = readInteger(in.at(2).data, in.at(2).type, 0);
    limits.iouThreshold = static_cast<float>(numberOr(in, 3, 0.0, kKernel));
    limits.scoreThreshold = static_cast<float>(numberOr(in, 4, 0.0, kKernel));
    nms(in.at(0), in.at(1), limits, params, out.at(0), out.at(1));
}

} // namespace kiln::cpu
