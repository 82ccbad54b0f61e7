// Einsum, lowered to Kiln's shuffle, reduce and matrix-multiply layers rather than to an IEinsumLayer: every common
// equation (matmul, batch matmul, transposes, reductions, inner and outer products, chains of operands) is a
// sequence of those, so no new kernel is needed and each step runs on layers that are already tested. Operands are
// contracted left to right: labels that only one operand has and nothing later needs are summed away first, then
// both operands are transposed to [batch, free, contracted] / [batch, contracted, free], flattened to 3 groups and
// multiplied. Ellipses and repeated labels within one operand (diagonals) are reported as unsupported.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"
#include "onnx/shape_tensors.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ITensor;

//! A tensor with one label per dim.
struct Labelled
{
    ITensor* tensor;
    std::string labels;
};

struct Equation
{
    std::vector<std::string> inputs;
    std::string output;
};

Equation parseEquation(std::string const& text, int32_t nbInputs)
{
    std::string equation;
    for (char c : text)
    {
        if (c != ' ')
        {
            equation.push_back(c);
        }
    }
    if (equation.find("...") != std::string::npos)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "Einsum equations with an ellipsis (...) are not supported");
    }
    Equation parsed;
    size_t const arrow = equation.find("->");
    std::string const lhs = equation.substr(0, arrow);
    size_t start = 0;
    while (true)
    {
        size_t const comma = lhs.find(',', start);
        parsed.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
        {
            break;
        }
        start = comma + 1;
    }
    if (static_cast<int32_t>(parsed.inputs.size()) != nbInputs)
    {
        fail(ErrorCode::kINVALID_NODE,
            "the equation \"" + text + "\" has " + std::to_string(parsed.inputs.size()) + " operands but the node has "
                + std::to_string(nbInputs) + " inputs");
    }
    std::string all;
    for (std::string const& term : parsed.inputs)
    {
        for (char c : term)
        {
            if (std::isalpha(static_cast<unsigned char>(c)) == 0)
            {
                fail(ErrorCode::kINVALID_NODE, "the equation \"" + text + "\" has a label that is not a letter");
            }
            if (std::count(term.begin(), term.end(), c) > 1)
            {
                fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
                    "repeated label '" + std::string(1, c) + "' in \"" + term + "\": diagonals are not supported");
            }
        }
        all += term;
    }
    if (arrow != std::string::npos)
    {
        parsed.output = equation.substr(arrow + 2);
        for (char c : parsed.output)
        {
            if (all.find(c) == std::string::npos || std::count(parsed.output.begin(), parsed.output.end(), c) > 1)
            {
                fail(ErrorCode::kINVALID_NODE,
                    "output label '" + std::string(1, c) + "' of \"" + text + "\" is repeated or in no operand");
            }
        }
    }
    else
    {
        // Implicit output: the labels that appear once, in alphabetical order.
        std::set<char> const labels(all.begin(), all.end());
        for (char c : labels)
        {
            if (std::count(all.begin(), all.end(), c) == 1)
            {
                parsed.output.push_back(c);
            }
        }
    }
    return parsed;
}

bool has(std::string const& labels, char c)
{
    return labels.find(c) != std::string::npos;
}

//! The operand with the labels not in `keep` summed away.
Labelled sumAway(ImportContext& ctx, Labelled const& operand, std::string const& keep)
{
    uint32_t mask = 0;
    std::string remaining;
    for (size_t i = 0; i < operand.labels.size(); ++i)
    {
        if (has(keep, operand.labels[i]))
        {
            remaining.push_back(operand.labels[i]);
        }
        else
        {
            mask |= 1U << i;
        }
    }
    if (mask == 0)
    {
        return operand;
    }
    auto& layer = ctx.check(
        ctx.network().addReduce(*operand.tensor, nvinfer1::ReduceOperation::kSUM, mask, false), "einsum sum");
    return {layer.getOutput(0), remaining};
}

//! The operand with its dims in the order of `labels` (a permutation of its own).
Labelled permute(ImportContext& ctx, Labelled const& operand, std::string const& labels)
{
    if (labels == operand.labels)
    {
        return operand;
    }
    std::vector<int32_t> permutation;
    for (char c : labels)
    {
        permutation.push_back(static_cast<int32_t>(operand.labels.find(c)));
    }
    return {&transpose(ctx, *operand.tensor, permutation), labels};
}

//! The product of entries [begin, end) of a shape, as a one-element shape tensor (1 when the range is empty).
ITensor& groupExtent(ImportContext& ctx, ITensor& shape, int64_t begin, int64_t end)
{
    if (begin == end)
    {
        return int64Constant(ctx, {1});
    }
    return shapeProduct(ctx, dimsRange(ctx, shape, begin, end));
}

//! a and b contracted over their common labels that `keep` does not hold; the result's labels are the batch labels
//! (common and kept), then a's own, then b's own.
Labelled contract(ImportContext& ctx, Labelled const& a, Labelled const& b, std::string const& keep)
{
    Labelled const left = sumAway(ctx, a, keep + b.labels);
    Labelled const right = sumAway(ctx, b, keep + left.labels);
    std::string batch;
    std::string leftFree;
    std::string contracted;
    std::string rightFree;
    for (char c : left.labels)
    {
        if (has(right.labels, c))
        {
            (has(keep, c) ? batch : contracted).push_back(c);
        }
        else
        {
            leftFree.push_back(c);
        }
    }
    for (char c : right.labels)
    {
        if (!has(left.labels, c))
        {
            rightFree.push_back(c);
        }
    }
    auto const nb = static_cast<int64_t>(batch.size());
    auto const nl = static_cast<int64_t>(leftFree.size());
    auto const nk = static_cast<int64_t>(contracted.size());
    auto const nr = static_cast<int64_t>(rightFree.size());
    Labelled const l = permute(ctx, left, batch + leftFree + contracted);
    Labelled const r = permute(ctx, right, batch + contracted + rightFree);
    ITensor& leftShape = shapeOf(ctx, *l.tensor);
    ITensor& rightShape = shapeOf(ctx, *r.tensor);
    std::vector<ITensor*> batchPiece;
    if (nb > 0)
    {
        batchPiece.push_back(&dimsRange(ctx, leftShape, 0, nb));
    }
    // [batch, M, K] x [batch, K, N] = [batch, M, N]
    std::vector<ITensor*> leftPieces = batchPiece;
    leftPieces.push_back(&groupExtent(ctx, leftShape, nb, nb + nl));
    leftPieces.push_back(&groupExtent(ctx, leftShape, nb + nl, nb + nl + nk));
    std::vector<ITensor*> rightPieces = batchPiece;
    rightPieces.push_back(&groupExtent(ctx, rightShape, nb, nb + nk));
    rightPieces.push_back(&groupExtent(ctx, rightShape, nb + nk, nb + nk + nr));
    ITensor& lhs = reshape(ctx, *l.tensor, concatShapes(ctx, leftPieces));
    ITensor& rhs = reshape(ctx, *r.tensor, concatShapes(ctx, rightPieces));
    using nvinfer1::MatrixOperation;
    ITensor* product
        = ctx.check(ctx.network().addMatrixMultiply(lhs, MatrixOperation::kNONE, rhs, MatrixOperation::kNONE),
                 "einsum matrix multiply")
              .getOutput(0);
    std::vector<ITensor*> resultPieces = batchPiece;
    if (nl > 0)
    {
        resultPieces.push_back(&dimsRange(ctx, leftShape, nb, nb + nl));
    }
    if (nr > 0)
    {
        resultPieces.push_back(&dimsRange(ctx, rightShape, nb + nk, nb + nk + nr));
    }
    ITensor& result = resultPieces.empty() ? reshape(ctx, *product, std::vector<int64_t>{})
                                           : reshape(ctx, *product, concatShapes(ctx, resultPieces));
    return {&result, batch + leftFree + rightFree};
}

std::vector<Value> importEinsum(ImportContext& ctx, Node const& node)
{
    Equation const equation = parseEquation(node.attrString("equation", ""), node.nbInputs());
    std::vector<Labelled> operands;
    for (int32_t i = 0; i < node.nbInputs(); ++i)
    {
        ITensor& tensor = inputTensor(ctx, node, i);
        std::string const& labels = equation.inputs[static_cast<size_t>(i)];
        if (static_cast<int32_t>(labels.size()) != rankOf(tensor))
        {
            fail(ErrorCode::kINVALID_NODE,
                "operand " + std::to_string(i) + " has rank " + std::to_string(rankOf(tensor))
                    + " but its labels are \"" + labels + "\"");
        }
        operands.push_back({&tensor, labels});
    }
    Labelled result = operands.front();
    for (size_t i = 1; i < operands.size(); ++i)
    {
        // Keep what the output or a later operand needs.
        std::string keep = equation.output;
        for (size_t j = i + 1; j < operands.size(); ++j)
        {
            keep += operands[j].labels;
        }
        result = contract(ctx, result, operands[i], keep);
    }
    result = permute(ctx, sumAway(ctx, result, equation.output), equation.output);
    return single(*result.tensor);
}

} // namespace

ImporterRegistration const kEinsumImporters([](ImporterTable& table) { table.add("Einsum", importEinsum); });

} // namespace kiln::onnxparser
