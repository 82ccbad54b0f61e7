// HannWindow, HammingWindow and BlackmanWindow (opset 17): cosine-sum windows of `size` points,
//   w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N),   N = size (periodic) or size - 1 (symmetric),
// computed here in double, since size is a build-time constant, and held as a constant of output_datatype.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/tensor_reader.h"

#include "core/checked_size.h"

#include <cmath>
#include <optional>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::DataType;

//! A window's cosine coefficients.
struct CosineSum
{
    double a0;
    double a1;
    double a2;
};

std::vector<Value> importWindow(ImportContext& ctx, Node const& node, CosineSum const& window)
{
    std::vector<int64_t> const sizeValues = constantInts(node, 0, "size");
    if (sizeValues.size() != 1 || sizeValues[0] < 0)
    {
        fail(ErrorCode::kINVALID_NODE, node.opType() + "'s size must be one non-negative integer");
    }
    int64_t const size = sizeValues[0];
    // Computed while parsing, so within the budget of parse-time constants; real windows (an STFT's frame) are a
    // few thousand points.
    std::optional<size_t> const byteSize = checkedByteSize(size, sizeof(float));
    if (!byteSize || !ctx.store().admitComputed(*byteSize))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE,
            node.opType() + "'s size " + std::to_string(size) + " is larger than Kiln computes while parsing (at most "
                + std::to_string(ConstantStore::kMaxComputedBytes / sizeof(float)) + " points, and "
                + std::to_string(ConstantStore::kComputedBudgetBytes >> 20)
                + " MiB for all the constants the parser computes)");
    }
    bool const periodic = node.attrInt("periodic", 1) != 0;
    auto const onnxType = static_cast<int32_t>(node.attrInt("output_datatype", ::onnx::TensorProto::FLOAT));
    std::optional<DataType> const type = kilnType(onnxType);
    if (!type || onnxType == ::onnx::TensorProto::DOUBLE)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            node.opType() + " to " + onnxTypeName(onnxType) + " is not supported");
    }
    double const span = static_cast<double>(periodic ? size : size - 1);
    double const pi = std::acos(-1.0);
    std::vector<float> values(static_cast<size_t>(size));
    for (int64_t n = 0; n < size; ++n)
    {
        // A symmetric window of one point has N = 0: its value is taken at phase 0.
        double const phase = span > 0 ? 2.0 * pi * static_cast<double>(n) / span : 0.0;
        values[static_cast<size_t>(n)]
            = static_cast<float>(window.a0 - window.a1 * std::cos(phase) + window.a2 * std::cos(2.0 * phase));
    }
    Value const asFloat(ctx.store().keepValues(DataType::kFLOAT, {size}, values, node.proto().output(0)));
    if (*type == DataType::kFLOAT)
    {
        return {asFloat};
    }
    return single(castTo(ctx, ctx.tensor(asFloat), *type));
}

} // namespace

ImporterRegistration const kWindowImporters([](ImporterTable& table) {
    table.add("HannWindow", [](ImportContext& ctx, Node const& node) {
        return importWindow(ctx, node, {0.5, 0.5, 0.0});
    });
    table.add("HammingWindow", [](ImportContext& ctx, Node const& node) {
        return importWindow(ctx, node, {25.0 / 46.0, 21.0 / 46.0, 0.0});
    });
    table.add("BlackmanWindow", [](ImportContext& ctx, Node const& node) {
        return importWindow(ctx, node, {0.42, 0.5, 0.08});
    });
});

} // namespace kiln::onnxparser
