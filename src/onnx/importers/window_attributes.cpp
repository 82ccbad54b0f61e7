#include "onnx/importers/window_attributes.h"

#include "onnx/import_error.h"

namespace kiln::onnxparser
{

nvinfer1::Dims toDims(std::vector<int64_t> const& values)
{
    if (values.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_SHAPE,
            "more than " + std::to_string(nvinfer1::Dims::MAX_DIMS) + " dimensions");
    }
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(values.size());
    for (size_t i = 0; i < values.size(); ++i)
    {
        dims.d[i] = values[i];
    }
    return dims;
}

WindowAttributes readWindowAttributes(Node const& node, std::vector<int64_t> const& kernel)
{
    size_t const spatial = kernel.size();
    auto sized = [&](char const* name, size_t length, int64_t fallback) {
        std::vector<int64_t> values = node.attrInts(name, std::vector<int64_t>(length, fallback));
        if (values.size() != length)
        {
            fail(ErrorCode::kINVALID_NODE,
                std::string("attribute \"") + name + "\" has " + std::to_string(values.size()) + " values; expected "
                    + std::to_string(length));
        }
        return values;
    };
    WindowAttributes window;
    window.kernel = toDims(kernel);
    window.strides = toDims(sized("strides", spatial, 1));
    window.dilations = toDims(sized("dilations", spatial, 1));
    std::vector<int64_t> const pads = sized("pads", 2 * spatial, 0);
    window.prePadding = toDims(std::vector<int64_t>(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(spatial)));
    window.postPadding = toDims(std::vector<int64_t>(pads.begin() + static_cast<std::ptrdiff_t>(spatial), pads.end()));
    std::string const autoPad = node.attrString("auto_pad", "NOTSET");
    if (autoPad == "SAME_UPPER")
    {
        window.mode = nvinfer1::PaddingMode::kSAME_UPPER;
    }
    else if (autoPad == "SAME_LOWER")
    {
        window.mode = nvinfer1::PaddingMode::kSAME_LOWER;
    }
    else if (autoPad == "VALID")
    {
        window.prePadding = toDims(std::vector<int64_t>(spatial, 0));
        window.postPadding = window.prePadding;
    }
    else if (autoPad != "NOTSET")
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "auto_pad \"" + autoPad + "\" is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
    return window;
}

} // namespace kiln::onnxparser
