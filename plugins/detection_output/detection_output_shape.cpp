#include "detection_output_shape.h"

#include "common/plugin_error.h"

#include <string>

namespace kiln::plugins
{
namespace
{

//! The product of extents[from...], or -1 when one of them is not known.
int64_t productFrom(std::vector<int64_t> const& extents, size_t from)
{
    int64_t product = 1;
    for (size_t axis = from; axis < extents.size(); ++axis)
    {
        if (extents[axis] < 0)
        {
            return -1;
        }
        product *= extents[axis];
    }
    return product;
}

std::string extentsText(std::vector<int64_t> const& extents)
{
    std::string text = "[";
    for (size_t axis = 0; axis < extents.size(); ++axis)
    {
        text += (axis == 0 ? "" : ", ") + (extents[axis] < 0 ? std::string("?") : std::to_string(extents[axis]));
    }
    return text + "]";
}

} // namespace

SsdShape ssdShapeOf(char const* plugin, DetectionOutputParams const& params,
    std::vector<std::vector<int64_t>> const& extents, PriorSharing sharing)
{
    std::string const name(plugin);
    if (extents.size() != 3)
    {
        throw PluginError(
            name + ": expects three inputs (loc data, conf data, prior data); got " + std::to_string(extents.size()));
    }
    std::vector<int64_t> const& loc = extents[static_cast<size_t>(params.inputOrder[0])];
    std::vector<int64_t> const& conf = extents[static_cast<size_t>(params.inputOrder[1])];
    std::vector<int64_t> const& prior = extents[static_cast<size_t>(params.inputOrder[2])];
    if (loc.size() < 2 || conf.size() < 2 || prior.size() < 3)
    {
        throw PluginError(name + ": expects loc data [batch, priors * locClasses * 4, 1, 1], conf data [batch, "
            + "priors * numClasses, 1, 1] and prior data [batch or 1, 2, priors * 4, 1]; got loc " + extentsText(loc)
            + ", conf " + extentsText(conf) + ", prior " + extentsText(prior));
    }
    int64_t const priorValues = productFrom(prior, 2);
    if ((prior[1] >= 0 && prior[1] != 2) || (priorValues >= 0 && (priorValues == 0 || priorValues % 4 != 0)))
    {
        throw PluginError(name + ": prior data " + extentsText(prior)
            + " must be [batch or 1, 2 (boxes, variances), priors * 4, ...] with at least one prior");
    }
    SsdShape shape;
    shape.batch = static_cast<int32_t>(loc[0]);
    shape.classes = params.numClasses;
    shape.locClasses = params.shareLocation ? 1 : params.numClasses;
    shape.priors = priorValues < 0 ? -1 : static_cast<int32_t>(priorValues / 4);
    int64_t const locValues = productFrom(loc, 1);
    int64_t const confValues = productFrom(conf, 1);
    if (shape.priors >= 0 && locValues >= 0 && locValues != int64_t{shape.priors} * shape.locClasses * 4)
    {
        throw PluginError(name + ": loc data " + extentsText(loc) + " must hold priors (" + std::to_string(shape.priors)
            + ") * locClasses (" + std::to_string(shape.locClasses) + ") * 4 values per image");
    }
    if (shape.priors >= 0 && confValues >= 0 && confValues != int64_t{shape.priors} * shape.classes)
    {
        throw PluginError(name + ": conf data " + extentsText(conf) + " must hold priors ("
            + std::to_string(shape.priors) + ") * numClasses (" + std::to_string(shape.classes) + ") values per image");
    }
    if (loc[0] >= 0 && conf[0] >= 0 && loc[0] != conf[0])
    {
        throw PluginError(name + ": loc data " + extentsText(loc) + " and conf data " + extentsText(conf)
            + " must have the same batch");
    }
    if (loc[0] >= 0 && prior[0] >= 0 && prior[0] != 1 && prior[0] != loc[0])
    {
        throw PluginError(name + ": prior data " + extentsText(prior) + " must have batch 1 or the batch of loc data ("
            + std::to_string(loc[0]) + ")");
    }
    if (sharing == PriorSharing::kEVERY_IMAGE && loc[0] > 1 && prior[0] == 1)
    {
        // IPluginV2Ext's enqueue sees only the batch size, so the CUDA run could not tell: refused on both.
        throw PluginError(name + ": prior data " + extentsText(prior) + " holds one image's priors, and "
            + "isBatchAgnostic 0 asks for each image's (batch " + std::to_string(loc[0])
            + "); set isBatchAgnostic 1 to share them");
    }
    shape.priorsPerImage = sharing != PriorSharing::kFIRST_IMAGE && prior[0] != 1;
    return shape;
}

} // namespace kiln::plugins
