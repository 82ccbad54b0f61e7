// LSTM, GRU and RNN (opsets 7 to 22) through ILoop, as onnx-tensorrt builds them: for each direction, the input's
// products with each gate's weights (and the biases) computed for every step at once before the loop, then a loop
// over the sequence whose recurrences carry the hidden (and LSTM's cell) state, each gate's product with the
// recurrence weights inside. Y stacks each step's hidden state (a reverse direction's in the sequence's order), Y_h
// and Y_c are the last step's. Directions forward, reverse and bidirectional; layout 0 and 1; initial states; LSTM's
// peepholes; clip; every activation ONNX lists (alpha and beta taken in order by the activations that use them);
// GRU's linear_before_reset; sequence_lens, given or computed at run time (past its length a sequence's states stay
// and its Y rows are zeros; a reverse direction reverses each sequence's first length steps before and after, as
// ReverseSequence does). Refused, naming the attribute: LSTM's input_forget.
#include "onnx/import_error.h"
#include "onnx/importer_table.h"
#include "onnx/network_helpers.h"

#include <algorithm>
#include <cctype>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ITensor;

enum class Kind
{
    kLSTM,
    kGRU,
    kRNN
};

//! Gates in ONNX's order of the weights: LSTM i, o, f, c; GRU z, r, h; RNN i.
int32_t gateCount(Kind kind)
{
    return kind == Kind::kLSTM ? 4 : kind == Kind::kGRU ? 3 : 1;
}

struct Activation
{
    std::string name;
    float alpha{0.0F};
    float beta{0.0F};
};

std::string lowered(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

//! The activations, per direction: given, or the op's defaults; alpha and beta consumed in order by those using them.
std::vector<Activation> activationsOf(Node const& node, Kind kind, int32_t directions)
{
    std::vector<std::string> names;
    if (::onnx::AttributeProto const* given = node.find("activations"))
    {
        names.assign(given->strings().begin(), given->strings().end());
    }
    else
    {
        std::vector<std::string> const defaults = kind == Kind::kLSTM
            ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
            : kind == Kind::kGRU ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                 : std::vector<std::string>{"Tanh"};
        for (int32_t d = 0; d < directions; ++d)
        {
            names.insert(names.end(), defaults.begin(), defaults.end());
        }
    }
    size_t const perDirection = kind == Kind::kLSTM ? 3 : kind == Kind::kGRU ? 2 : 1;
    if (names.size() != perDirection * static_cast<size_t>(directions))
    {
        fail(ErrorCode::kINVALID_NODE,
            "attribute activations holds " + std::to_string(names.size()) + " functions; " + node.opType() + " with "
                + std::to_string(directions) + " direction(s) takes "
                + std::to_string(perDirection * static_cast<size_t>(directions)));
    }
    std::vector<float> const alphas = node.attrFloats("activation_alpha");
    std::vector<float> const betas = node.attrFloats("activation_beta");
    size_t nextAlpha = 0;
    size_t nextBeta = 0;
    std::vector<Activation> activations;
    for (std::string const& name : names)
    {
        std::string const key = lowered(name);
        // ONNX's defaults for the functions with parameters.
        float alpha = key == "leakyrelu" ? 0.01F : key == "hardsigmoid" ? 0.2F : 1.0F;
        float beta = key == "hardsigmoid" ? 0.5F : key == "affine" ? 0.0F : 1.0F;
        bool const takesAlpha = key == "leakyrelu" || key == "thresholdedrelu" || key == "scaledtanh"
            || key == "hardsigmoid" || key == "elu" || key == "affine";
        bool const takesBeta = key == "scaledtanh" || key == "hardsigmoid" || key == "affine";
        if (takesAlpha && nextAlpha < alphas.size())
        {
            alpha = alphas[nextAlpha++];
        }
        if (takesBeta && nextBeta < betas.size())
        {
            beta = betas[nextBeta++];
        }
        activations.push_back(Activation{key, alpha, beta});
    }
    return activations;
}

ITensor& activate(ImportContext& ctx, ITensor& x, Activation const& f)
{
    using nvinfer1::ActivationType;
    if (f.name == "affine")
    {
        ITensor& scaled = elementWise(
            ctx, x, scalarConstant(ctx, f.alpha, x.getType(), rankOf(x)), nvinfer1::ElementWiseOperation::kPROD);
        return elementWise(
            ctx, scaled, scalarConstant(ctx, f.beta, x.getType(), rankOf(x)), nvinfer1::ElementWiseOperation::kSUM);
    }
    static std::pair<char const*, ActivationType> const kTypes[] = {{"sigmoid", ActivationType::kSIGMOID},
        {"tanh", ActivationType::kTANH}, {"relu", ActivationType::kRELU}, {"leakyrelu", ActivationType::kLEAKY_RELU},
        {"thresholdedrelu", ActivationType::kTHRESHOLDED_RELU}, {"scaledtanh", ActivationType::kSCALED_TANH},
        {"hardsigmoid", ActivationType::kHARD_SIGMOID}, {"elu", ActivationType::kELU},
        {"softsign", ActivationType::kSOFTSIGN}, {"softplus", ActivationType::kSOFTPLUS}};
    for (auto const& [name, type] : kTypes)
    {
        if (f.name == name)
        {
            // Softplus is log(1 + e^x): TensorRT's alpha * log(1 + e^(beta x)) with both 1.
            bool const softplus = type == ActivationType::kSOFTPLUS;
            return activation(ctx, x, type, softplus ? 1.0F : f.alpha, softplus ? 1.0F : f.beta);
        }
    }
    fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute activations: \"" + f.name + "\" is no activation ONNX lists");
}

//! What every direction's loop reads.
struct Recurrent
{
    Kind kind{Kind::kLSTM};
    int64_t hidden{0};
    int32_t directions{1};
    bool reverseOnly{false};
    bool batchFirst{false}; //!< layout 1
    float clip{0.0F};       //!< 0: none
    bool linearBeforeReset{false};
    std::vector<Activation> activations;
    ITensor* x{nullptr};          //!< [S, B, I]
    ITensor* steps{nullptr};      //!< S, 0-D INT64
    ITensor* batchShape{nullptr}; //!< [B, H], 1-D INT64: the states' shape
    ITensor* lengths{nullptr};    //!< sequence_lens, [B] INT32, where given
};

//! `t[index]` along `axis` (the axis removed): 0-D index.
ITensor& pick(ImportContext& ctx, ITensor& t, int64_t index, int32_t axis)
{
    ITensor& at = scalarConstant(ctx, static_cast<double>(index), nvinfer1::DataType::kINT32, 0);
    return *ctx.check(ctx.network().addGather(t, at, axis), "gather").getOutput(0);
}

//! Rows [first, first + count) of axis `axis` of `t`, whose extents are known.
ITensor& rows(ImportContext& ctx, ITensor& t, int32_t axis, int64_t first, int64_t count)
{
    nvinfer1::Dims const dims = t.getDimensions();
    nvinfer1::Dims start{dims.nbDims, {}};
    nvinfer1::Dims size = dims;
    nvinfer1::Dims stride{dims.nbDims, {}};
    for (int32_t d = 0; d < dims.nbDims; ++d)
    {
        if (dims.d[d] < 0)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_INPUT, "the weights and biases must have shapes known when importing");
        }
        stride.d[d] = 1;
    }
    start.d[axis] = first;
    size.d[axis] = count;
    return *ctx.check(ctx.network().addSlice(t, start, size, stride), "slice").getOutput(0);
}

//! Input `index` of the node as a tensor of `rank`, or none where it is absent.
ITensor* optionalInput(ImportContext& ctx, Node const& node, int32_t index)
{
    return node.hasInput(index) ? &inputTensor(ctx, node, index) : nullptr;
}

ITensor& matmul(ImportContext& ctx, ITensor& a, ITensor& b, bool transposeB)
{
    using nvinfer1::MatrixOperation;
    return *ctx.check(ctx.network().addMatrixMultiply(a, MatrixOperation::kNONE, b,
                          transposeB ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE),
                   "matrix multiply")
                .getOutput(0);
}

ITensor& add(ImportContext& ctx, ITensor& a, ITensor& b)
{
    return elementWise(ctx, a, b, nvinfer1::ElementWiseOperation::kSUM);
}

ITensor& mul(ImportContext& ctx, ITensor& a, ITensor& b)
{
    return elementWise(ctx, a, b, nvinfer1::ElementWiseOperation::kPROD);
}

//! One direction's inputs: per gate, X's products with its weights plus its biases ([S, B, H]); the recurrence
//! weights ([H, H]), the recurrence biases kept for the loop (GRU's h gate with linear_before_reset), the
//! peepholes ([1, H]) and the initial states ([B, H]).
struct Direction
{
    bool reverse{false};
    std::vector<ITensor*> inputProducts;
    std::vector<ITensor*> recurrenceWeights;
    ITensor* hiddenBias{nullptr}; //!< GRU with linear_before_reset: Rbh, added to the h gate's recurrence product
    std::vector<ITensor*> peepholes;
    ITensor* initialHidden{nullptr};
    ITensor* initialCell{nullptr};
};

//! Each sequence of `t` ([S, B, ...]) reversed in its first `lengths` steps.
ITensor& reverseSequences(ImportContext& ctx, ITensor& t, ITensor& lengths)
{
    nvinfer1::IReverseSequenceLayer& reversed
        = ctx.check(ctx.network().addReverseSequence(t, lengths), "reverse sequence");
    reversed.setBatchAxis(1);
    reversed.setSequenceAxis(0);
    return *reversed.getOutput(0);
}

//! The state `index` (initial_h or initial_c) of direction `d`, or zeros.
ITensor& initialState(ImportContext& ctx, Recurrent const& r, ITensor* given, int32_t d)
{
    if (given == nullptr)
    {
        return broadcastTo(ctx, scalarConstant(ctx, 0.0, r.x->getType(), 2), *r.batchShape);
    }
    return pick(ctx, *given, d, r.batchFirst ? 1 : 0);
}

Direction directionInputs(ImportContext& ctx, Node const& node, Recurrent const& r, int32_t d)
{
    Direction dir;
    dir.reverse = r.reverseOnly || d == 1;
    int64_t const h = r.hidden;
    ITensor* x = r.x;
    if (dir.reverse && r.lengths != nullptr)
    {
        x = &reverseSequences(ctx, *x, *r.lengths); // then iterated forwards
    }
    ITensor& w = pick(ctx, inputTensor(ctx, node, 1), d, 0);        // [G H, I]
    ITensor& rWeights = pick(ctx, inputTensor(ctx, node, 2), d, 0); // [G H, H]
    ITensor* bias = optionalInput(ctx, node, 3);
    ITensor* b = bias != nullptr ? &pick(ctx, *bias, d, 0) : nullptr; // [2 G H]
    for (int32_t g = 0; g < gateCount(r.kind); ++g)
    {
        ITensor& wg = insertOnes(ctx, rows(ctx, w, 0, g * h, h), {0}); // [1, H, I]
        ITensor* product = &matmul(ctx, *x, wg, true);                 // [S, B, H]
        bool const hGate = r.kind == Kind::kGRU && g == 2;
        if (b != nullptr)
        {
            ITensor* inputBias = &rows(ctx, *b, 0, g * h, h);
            ITensor& recurrenceBias = rows(ctx, *b, 0, (gateCount(r.kind) + g) * h, h);
            if (hGate && r.linearBeforeReset)
            {
                dir.hiddenBias = &reshape(ctx, recurrenceBias, {1, h});
            }
            else
            {
                // Both biases summed first: constants, folded when building, so the product takes one sum.
                inputBias = &add(ctx, *inputBias, recurrenceBias);
            }
            product = &add(ctx, *product, reshape(ctx, *inputBias, {1, 1, h}));
        }
        dir.inputProducts.push_back(product);
        dir.recurrenceWeights.push_back(&rows(ctx, rWeights, 0, g * h, h));
    }
    if (ITensor* peepholes = optionalInput(ctx, node, 7); peepholes != nullptr && r.kind == Kind::kLSTM)
    {
        ITensor& p = pick(ctx, *peepholes, d, 0); // [3 H]: i, o, f
        for (int32_t g = 0; g < 3; ++g)
        {
            dir.peepholes.push_back(&reshape(ctx, rows(ctx, p, 0, g * h, h), {1, h}));
        }
    }
    dir.initialHidden = &initialState(ctx, r, optionalInput(ctx, node, 5), d);
    if (r.kind == Kind::kLSTM)
    {
        dir.initialCell = &initialState(ctx, r, optionalInput(ctx, node, 6), d);
    }
    return dir;
}

ITensor& clipped(ImportContext& ctx, Recurrent const& r, ITensor& x)
{
    return r.clip > 0.0F ? activation(ctx, x, nvinfer1::ActivationType::kCLIP, -r.clip, r.clip) : x;
}

//! The states after one step: hidden (and, for LSTM, cell), from the step's gate inputs.
std::pair<ITensor*, ITensor*> step(ImportContext& ctx, Recurrent const& r, Direction const& dir,
    std::vector<ITensor*> const& xs, ITensor& hidden, ITensor* cell, int32_t d)
{
    size_t const a = static_cast<size_t>(d) * (r.kind == Kind::kLSTM ? 3 : r.kind == Kind::kGRU ? 2 : 1);
    auto const gate
        = [&](int32_t g) -> ITensor& { return add(ctx, *xs[g], matmul(ctx, hidden, *dir.recurrenceWeights[g], true)); };
    auto const peep = [&](ITensor& pre, int32_t p, ITensor& state) -> ITensor& {
        return dir.peepholes.empty() ? pre : add(ctx, pre, mul(ctx, *dir.peepholes[p], state));
    };
    if (r.kind == Kind::kRNN)
    {
        return {&activate(ctx, clipped(ctx, r, gate(0)), r.activations[a]), nullptr};
    }
    if (r.kind == Kind::kLSTM)
    {
        ITensor& in = activate(ctx, clipped(ctx, r, peep(gate(0), 0, *cell)), r.activations[a]);
        ITensor& forget = activate(ctx, clipped(ctx, r, peep(gate(2), 2, *cell)), r.activations[a]);
        ITensor& candidate = activate(ctx, clipped(ctx, r, gate(3)), r.activations[a + 1]);
        ITensor& nextCell = add(ctx, mul(ctx, forget, *cell), mul(ctx, in, candidate));
        ITensor& out = activate(ctx, clipped(ctx, r, peep(gate(1), 1, nextCell)), r.activations[a]);
        return {&mul(ctx, out, activate(ctx, nextCell, r.activations[a + 2])), &nextCell};
    }
    ITensor& update = activate(ctx, clipped(ctx, r, gate(0)), r.activations[a]);
    ITensor& reset = activate(ctx, clipped(ctx, r, gate(1)), r.activations[a]);
    ITensor* recurrent = nullptr;
    if (r.linearBeforeReset)
    {
        ITensor* product = &matmul(ctx, hidden, *dir.recurrenceWeights[2], true);
        product = dir.hiddenBias != nullptr ? &add(ctx, *product, *dir.hiddenBias) : product;
        recurrent = &mul(ctx, reset, *product);
    }
    else
    {
        recurrent = &matmul(ctx, mul(ctx, reset, hidden), *dir.recurrenceWeights[2], true);
    }
    ITensor& candidate = activate(ctx, clipped(ctx, r, add(ctx, *xs[2], *recurrent)), r.activations[a + 1]);
    // (1 - z) h~ + z H = h~ + z (H - h~)
    ITensor& difference = elementWise(ctx, hidden, candidate, nvinfer1::ElementWiseOperation::kSUB);
    return {&add(ctx, candidate, mul(ctx, update, difference)), nullptr};
}

ITensor& select(ImportContext& ctx, ITensor& condition, ITensor& whenTrue, ITensor& whenFalse)
{
    return *ctx.check(ctx.network().addSelect(condition, whenTrue, whenFalse), "select").getOutput(0);
}

//! [B, 1] BOOL inside `loop`: whether the current step lies within each sequence's length.
ITensor& withinLength(ImportContext& ctx, nvinfer1::ILoop& loop, ITensor& lengths)
{
    nvinfer1::IRecurrenceLayer& counter
        = ctx.check(loop.addRecurrence(scalarConstant(ctx, 0.0, nvinfer1::DataType::kINT32, 0)), "step counter");
    counter.setInput(1,
        elementWise(ctx, *counter.getOutput(0), scalarConstant(ctx, 1.0, nvinfer1::DataType::kINT32, 0),
            nvinfer1::ElementWiseOperation::kSUM));
    ITensor& within = elementWise(ctx, *counter.getOutput(0), lengths, nvinfer1::ElementWiseOperation::kLESS); // [B]
    return insertOnes(ctx, within, {1});
}

//! Direction `d`'s loop: Y ([S, B, H]), Y_h and Y_c ([B, H]).
std::vector<ITensor*> runDirection(ImportContext& ctx, Node const& node, Recurrent const& r, int32_t d)
{
    Direction const dir = directionInputs(ctx, node, r, d);
    nvinfer1::ILoop* loop = &newLoop(ctx);
    ctx.check(loop->addTripLimit(*r.steps, nvinfer1::TripLimit::kCOUNT), "trip limit");
    std::vector<ITensor*> xs;
    for (ITensor* product : dir.inputProducts)
    {
        bool const backwards = dir.reverse && r.lengths == nullptr; // else the sequences were reversed already
        xs.push_back(ctx.check(loop->addIterator(*product, 0, backwards), "iterator").getOutput(0));
    }
    nvinfer1::IRecurrenceLayer& hidden = ctx.check(loop->addRecurrence(*dir.initialHidden), "recurrence");
    nvinfer1::IRecurrenceLayer* cell
        = dir.initialCell != nullptr ? &ctx.check(loop->addRecurrence(*dir.initialCell), "recurrence") : nullptr;
    auto [nextHidden, nextCell]
        = step(ctx, r, dir, xs, *hidden.getOutput(0), cell != nullptr ? cell->getOutput(0) : nullptr, d);
    ITensor* stepOutput = nextHidden;
    if (r.lengths != nullptr)
    {
        // Past its length a sequence keeps its states, and its output rows are zeros.
        ITensor& valid = withinLength(ctx, *loop, *r.lengths);
        stepOutput = &select(ctx, valid, *nextHidden, scalarConstant(ctx, 0.0, nextHidden->getType(), 2));
        nextHidden = &select(ctx, valid, *nextHidden, *hidden.getOutput(0));
        nextCell = cell != nullptr ? &select(ctx, valid, *nextCell, *cell->getOutput(0)) : nullptr;
    }
    hidden.setInput(1, *nextHidden);
    if (cell != nullptr)
    {
        cell->setInput(1, *nextCell);
    }
    bool const stepsBackwards = dir.reverse && r.lengths == nullptr;
    auto const kind = stepsBackwards ? nvinfer1::LoopOutput::kREVERSE : nvinfer1::LoopOutput::kCONCATENATE;
    nvinfer1::ILoopOutputLayer& y = ctx.check(loop->addLoopOutput(*stepOutput, kind, 0), "loop output");
    y.setInput(1, *r.steps);
    ITensor* stacked = y.getOutput(0);
    if (dir.reverse && r.lengths != nullptr)
    {
        stacked = &reverseSequences(ctx, *stacked, *r.lengths); // back into the sequences' order
    }
    std::vector<ITensor*> outputs{stacked,
        ctx.check(loop->addLoopOutput(*nextHidden, nvinfer1::LoopOutput::kLAST_VALUE), "loop output").getOutput(0)};
    if (nextCell != nullptr)
    {
        outputs.push_back(
            ctx.check(loop->addLoopOutput(*nextCell, nvinfer1::LoopOutput::kLAST_VALUE), "loop output").getOutput(0));
    }
    return outputs;
}

ITensor& stack(ImportContext& ctx, std::vector<ITensor*> const& parts, int32_t axis)
{
    std::vector<ITensor*> unsqueezed;
    for (ITensor* part : parts)
    {
        unsqueezed.push_back(&insertOnes(ctx, *part, {axis}));
    }
    if (unsqueezed.size() == 1)
    {
        return *unsqueezed[0];
    }
    auto& concat = ctx.check(
        ctx.network().addConcatenation(unsqueezed.data(), static_cast<int32_t>(unsqueezed.size())), "concatenation");
    concat.setAxis(axis);
    return *concat.getOutput(0);
}

//! The attributes and the shared tensors; refuses what is not supported.
Recurrent readRecurrent(ImportContext& ctx, Node const& node, Kind kind)
{
    Recurrent r;
    r.kind = kind;
    std::string const direction = node.attrString("direction", "forward");
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    {
        fail(ErrorCode::kINVALID_NODE, "attribute direction is \"" + direction + "\"");
    }
    r.directions = direction == "bidirectional" ? 2 : 1;
    r.reverseOnly = direction == "reverse";
    r.batchFirst = node.attrInt("layout", 0) != 0;
    r.clip = node.hasAttribute("clip") ? node.attrFloat("clip", 0.0F) : 0.0F;
    r.linearBeforeReset = node.attrInt("linear_before_reset", 0) != 0;
    if (node.attrInt("input_forget", 0) != 0)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute input_forget = 1 (coupled input and forget gates)");
    }
    r.activations = activationsOf(node, kind, r.directions);
    ITensor& w = inputTensor(ctx, node, 1);
    int64_t const weightRows = staticExtent(w, 1);
    r.hidden = node.attrInt("hidden_size", weightRows < 0 ? -1 : weightRows / gateCount(kind));
    if (r.hidden <= 0 || weightRows != r.hidden * gateCount(kind))
    {
        fail(ErrorCode::kINVALID_NODE,
            "W must be [num_directions, " + std::to_string(gateCount(kind))
                + " * hidden_size, input_size] with its extents known when importing");
    }
    ITensor* x = &inputTensor(ctx, node, 0);
    r.x = r.batchFirst ? &transpose(ctx, *x, {1, 0, 2}) : x;
    ITensor& shape = *ctx.check(ctx.network().addShape(*r.x), "shape").getOutput(0);
    r.steps = &pick(ctx, shape, 0, 0);
    ITensor* dims[] = {&rows(ctx, shape, 0, 1, 1), &int64Constant(ctx, {r.hidden})};
    r.batchShape = ctx.check(ctx.network().addConcatenation(dims, 2), "concatenation").getOutput(0);
    return r;
}

//! sequence_lens as [B] INT32, where given.
ITensor* sequenceLengths(ImportContext& ctx, Node const& node)
{
    if (!node.hasInput(4))
    {
        return nullptr;
    }
    ITensor& lengths = inputTensor(ctx, node, 4);
    if (rankOf(lengths) != 1)
    {
        fail(ErrorCode::kINVALID_NODE, "input sequence_lens must be 1-D ([batch_size])");
    }
    return &castTo(ctx, lengths, nvinfer1::DataType::kINT32);
}

std::vector<Value> importRecurrent(ImportContext& ctx, Node const& node, Kind kind)
{
    Recurrent r = readRecurrent(ctx, node, kind);
    r.lengths = sequenceLengths(ctx, node);
    std::vector<std::vector<ITensor*>> byOutput(kind == Kind::kLSTM ? 3 : 2);
    for (int32_t d = 0; d < r.directions; ++d)
    {
        std::vector<ITensor*> const outputs = runDirection(ctx, node, r, d);
        for (size_t o = 0; o < byOutput.size(); ++o)
        {
            byOutput[o].push_back(outputs[o]);
        }
    }
    ITensor* y = &stack(ctx, byOutput[0], 1); // [S, D, B, H]
    std::vector<Value> values{Value(r.batchFirst ? &transpose(ctx, *y, {2, 0, 1, 3}) : y)};
    for (size_t o = 1; o < byOutput.size(); ++o)
    {
        ITensor* state = &stack(ctx, byOutput[o], 0); // [D, B, H]
        values.emplace_back(r.batchFirst ? &transpose(ctx, *state, {1, 0, 2}) : state);
    }
    values.resize(static_cast<size_t>(std::min<int32_t>(node.nbOutputs(), static_cast<int32_t>(values.size()))));
    return values;
}

} // namespace

ImporterRegistration const kRecurrentImporters([](ImporterTable& table) {
    table.add("LSTM", [](ImportContext& ctx, Node const& node) { return importRecurrent(ctx, node, Kind::kLSTM); });
    table.add("GRU", [](ImportContext& ctx, Node const& node) { return importRecurrent(ctx, node, Kind::kGRU); });
    table.add("RNN", [](ImportContext& ctx, Node const& node) { return importRecurrent(ctx, node, Kind::kRNN); });
});

} // namespace kiln::onnxparser
