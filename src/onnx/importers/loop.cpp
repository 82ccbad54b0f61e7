// Loop (opsets 1 to 21) and Scan (opsets 9 to 21) through ILoop. The body is imported once, inside the loop: its
// inputs become the loop's recurrences (Loop's iteration number, its condition and its loop-carried values; Scan's
// states) and iterators (Scan's scan inputs); its outputs the recurrences' next values, the loop's last values and
// its stacked scan outputs. Loop's trip count M is a kCOUNT limit; its condition, where the body may make it false,
// a kWHILE limit on a recurrence (so it is checked before each iteration, as ONNX says). A condition that stays true
// (passed through, or a constant true, as TorchScript's for loops export it) makes no limit: a kWHILE limit is read
// back from the device before each iteration. Scan runs once per slice of
// its first scan input. Refused, naming the input or attribute: scan outputs of a Loop whose M is absent or computed
// at run time (their length is then known only once it has run), sequences and optionals, Scan's opset 8 form (batch
// axis, sequence_lens). A loop that runs no iteration gives its loop-carried values' initial values, as ONNX says
// (the loop's outputs are zeros then: each final value is selected by whether an iteration ran).
#include "onnx/graph_importer.h"
#include "onnx/import_error.h"
#include "onnx/importer_table.h"
#include "onnx/network_helpers.h"

#include <algorithm>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::ITensor;

//! A single-element tensor as a 0-D one of `type`.
ITensor& scalarOf(ImportContext& ctx, ITensor& tensor, nvinfer1::DataType type, char const* what)
{
    nvinfer1::Dims const dims = tensor.getDimensions();
    for (int32_t axis = 0; axis < dims.nbDims; ++axis)
    {
        if (dims.d[axis] != 1)
        {
            fail(ErrorCode::kINVALID_NODE, std::string(what) + " must hold a single element");
        }
    }
    ITensor* scalar = dims.nbDims > 0 ? &reshape(ctx, tensor, {}) : &tensor;
    return castTo(ctx, *scalar, type);
}

//! Binds the body's inputs to `values`, imports it, and returns its outputs; the enclosing names are restored.
std::vector<Value> importBody(ImportContext& ctx, ::onnx::GraphProto const& body, std::vector<ITensor*> const& values)
{
    if (body.input_size() != static_cast<int32_t>(values.size()))
    {
        fail(ErrorCode::kINVALID_NODE,
            "the body takes " + std::to_string(body.input_size()) + " inputs; the node gives it "
                + std::to_string(values.size()));
    }
    std::unordered_map<std::string, Value> const enclosing = ctx.names();
    for (size_t i = 0; i < values.size(); ++i)
    {
        ctx.define(body.input(static_cast<int32_t>(i)).name(), Value(values[i]));
    }
    std::vector<Value> outputs = importSubgraph(ctx, body);
    ctx.restoreNames(enclosing);
    return outputs;
}

//! The name the body's value `name` is an Identity of, through any chain of Identity nodes.
std::string identitySource(::onnx::GraphProto const& body, std::string name)
{
    for (bool found = true; found;)
    {
        found = false;
        for (::onnx::NodeProto const& node : body.node())
        {
            if (node.op_type() == "Identity" && node.input_size() == 1 && node.output_size() == 1
                && node.output(0) == name)
            {
                name = node.input(0);
                found = true;
                break;
            }
        }
    }
    return name;
}

//! Whether the body names one of its own values `name`: an input, an initializer or a node's output.
bool definesName(::onnx::GraphProto const& body, std::string const& name)
{
    auto const named = [&](auto const& items) {
        return std::any_of(items.begin(), items.end(), [&](auto const& item) { return item.name() == name; });
    };
    return named(body.input()) || named(body.initializer())
        || std::any_of(body.node().begin(), body.node().end(), [&](::onnx::NodeProto const& node) {
               return std::find(node.output().begin(), node.output().end(), name) != node.output().end();
           });
}

//! Whether the body gives back a true condition wherever it is given one: it passes its condition input through
//! unchanged, or gives a constant true of the enclosing graph (TorchScript's for loops export both ways), each through
//! any Identity nodes.
bool keepsConditionTrue(ImportContext const& ctx, ::onnx::GraphProto const& body)
{
    std::string const source = identitySource(body, body.output(0).name());
    if (source == body.input(1).name())
    {
        return true;
    }
    if (definesName(body, source))
    {
        return false; // the body's own value, which may shadow an enclosing name
    }
    Value const* enclosing = ctx.find(source);
    if (enclosing == nullptr || !enclosing->isConstant())
    {
        return false;
    }
    std::vector<int64_t> const values = enclosing->constant().toInt64();
    return values.size() == 1 && values[0] != 0;
}

//! 0-D BOOL after `loop`: whether it ran an iteration (the last value of the iteration count after the step, which a
//! loop that ran none leaves zero).
ITensor& ranAnIteration(ImportContext& ctx, nvinfer1::ILoop& loop, ITensor& countAfterStep)
{
    ITensor& count
        = *ctx.check(loop.addLoopOutput(countAfterStep, nvinfer1::LoopOutput::kLAST_VALUE), "loop output").getOutput(0);
    return elementWise(
        ctx, count, scalarConstant(ctx, 0.0, nvinfer1::DataType::kINT64, 0), nvinfer1::ElementWiseOperation::kGREATER);
}

bool isConstantTrue(Node const& node, int32_t index)
{
    if (!isConstantInput(node, index))
    {
        return false;
    }
    std::vector<int64_t> const values = node.input(index).constant().toInt64();
    return values.size() == 1 && values[0] != 0;
}

std::vector<Value> importLoop(ImportContext& ctx, Node const& node)
{
    ::onnx::GraphProto const& body = node.attrGraph("body");
    int32_t const carried = node.nbInputs() - 2;
    if (carried < 0 || body.input_size() != carried + 2 || body.output_size() < carried + 1)
    {
        fail(ErrorCode::kINVALID_NODE,
            "the body must take the iteration number, the condition and the " + std::to_string(std::max(carried, 0))
                + " loop-carried values, and give the condition and them");
    }
    nvinfer1::ILoop* loop = &newLoop(ctx);
    ITensor* trips = node.hasInput(0) ? &scalarOf(ctx, inputTensor(ctx, node, 0), nvinfer1::DataType::kINT64, "M")
                                      : nullptr;
    if (trips != nullptr)
    {
        ctx.check(loop->addTripLimit(*trips, nvinfer1::TripLimit::kCOUNT), "trip limit");
    }
    nvinfer1::IRecurrenceLayer& counter
        = ctx.check(loop->addRecurrence(scalarConstant(ctx, 0.0, nvinfer1::DataType::kINT64, 0)), "iteration number");
    bool const alwaysTrue = (!node.hasInput(1) || isConstantTrue(node, 1)) && keepsConditionTrue(ctx, body);
    ITensor& firstCondition = node.hasInput(1)
        ? scalarOf(ctx, inputTensor(ctx, node, 1), nvinfer1::DataType::kBOOL, "cond")
        : castTo(ctx, scalarConstant(ctx, 1.0, nvinfer1::DataType::kINT32, 0), nvinfer1::DataType::kBOOL);
    nvinfer1::IRecurrenceLayer* condition = alwaysTrue ? nullptr
                                                       : &ctx.check(loop->addRecurrence(firstCondition), "condition");
    if (trips == nullptr && condition == nullptr)
    {
        fail(ErrorCode::kINVALID_NODE, "the loop has neither M nor a condition that can end it");
    }
    std::vector<ITensor*> bodyInputs{counter.getOutput(0), condition ? condition->getOutput(0) : &firstCondition};
    std::vector<nvinfer1::IRecurrenceLayer*> states;
    for (int32_t i = 0; i < carried; ++i)
    {
        states.push_back(&ctx.check(loop->addRecurrence(inputTensor(ctx, node, 2 + i)), "loop-carried value"));
        bodyInputs.push_back(states.back()->getOutput(0));
    }
    std::vector<Value> const outputs = importBody(ctx, body, bodyInputs);
    ctx.beginNode(node.displayName()); // the boundary layers below are the Loop node's own
    counter.setInput(1,
        elementWise(ctx, *counter.getOutput(0), scalarConstant(ctx, 1.0, nvinfer1::DataType::kINT64, 0),
            nvinfer1::ElementWiseOperation::kSUM));
    if (condition != nullptr)
    {
        condition->setInput(1, scalarOf(ctx, ctx.tensor(outputs[0]), nvinfer1::DataType::kBOOL, "the body's cond"));
        ctx.check(loop->addTripLimit(*condition->getOutput(0), nvinfer1::TripLimit::kWHILE), "trip limit");
    }
    std::vector<Value> results;
    ITensor& ran = ranAnIteration(ctx, *loop, *counter.getInput(1));
    for (int32_t i = 0; i < carried; ++i)
    {
        ITensor& next = ctx.tensor(outputs[1 + i]);
        states[i]->setInput(1, next);
        ITensor& last
            = *ctx.check(loop->addLoopOutput(next, nvinfer1::LoopOutput::kLAST_VALUE), "loop output").getOutput(0);
        ITensor& initial = inputTensor(ctx, node, 2 + i);
        ITensor& ranHere = prependOnes(ctx, ran, rankOf(last)); // the select's operands share a rank
        results.emplace_back(ctx.check(ctx.network().addSelect(ranHere, last, initial), "select").getOutput(0));
    }
    for (size_t o = 1 + static_cast<size_t>(carried); o < outputs.size(); ++o)
    {
        if (trips == nullptr)
        {
            fail(ErrorCode::kUNSUPPORTED_NODE_INPUT,
                "input M: a Loop's scan outputs need its trip count (without M their length is known only once the "
                "loop has run)");
        }
        auto& output
            = ctx.check(loop->addLoopOutput(ctx.tensor(outputs[o]), nvinfer1::LoopOutput::kCONCATENATE, 0), "output");
        output.setInput(1, requireShapeValues(*trips, "M (the length of the scan outputs)"));
        results.emplace_back(output.getOutput(0));
    }
    return results;
}

//! Scan's per-input or per-output axes or directions: the attribute, or zeros.
std::vector<int64_t> perScan(Node const& node, char const* attribute, int64_t count)
{
    std::vector<int64_t> values = node.attrInts(attribute, std::vector<int64_t>(static_cast<size_t>(count), 0));
    if (static_cast<int64_t>(values.size()) != count)
    {
        fail(ErrorCode::kINVALID_NODE,
            std::string("attribute ") + attribute + " holds " + std::to_string(values.size()) + " values, not "
                + std::to_string(count));
    }
    return values;
}

std::vector<Value> importScan(ImportContext& ctx, Node const& node)
{
    if (ctx.opset() < 9)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "Scan before opset 9 (batch axis, sequence_lens) is not supported");
    }
    ::onnx::GraphProto const& body = node.attrGraph("body");
    int64_t const scans = node.attrInt("num_scan_inputs");
    int64_t const states = node.nbInputs() - scans;
    int64_t const scanOutputs = body.output_size() - states;
    if (scans < 1 || states < 0 || scanOutputs < 0)
    {
        fail(ErrorCode::kINVALID_NODE, "num_scan_inputs must lie in [1, the node's inputs]");
    }
    std::vector<int64_t> const inputAxes = perScan(node, "scan_input_axes", scans);
    std::vector<int64_t> const inputDirections = perScan(node, "scan_input_directions", scans);
    std::vector<int64_t> const outputAxes = perScan(node, "scan_output_axes", scanOutputs);
    std::vector<int64_t> const outputDirections = perScan(node, "scan_output_directions", scanOutputs);
    nvinfer1::ILoop* loop = &newLoop(ctx);
    ITensor& first = inputTensor(ctx, node, static_cast<int32_t>(states));
    int32_t const firstAxis = normalizeAxis(inputAxes[0], rankOf(first), "scan_input_axes");
    ITensor& shape = *ctx.check(ctx.network().addShape(first), "shape").getOutput(0);
    ITensor& axisIndex = scalarConstant(ctx, firstAxis, nvinfer1::DataType::kINT32, 0);
    ITensor& trips = *ctx.check(ctx.network().addGather(shape, axisIndex, 0), "gather").getOutput(0);
    ctx.check(loop->addTripLimit(trips, nvinfer1::TripLimit::kCOUNT), "trip limit");
    std::vector<nvinfer1::IRecurrenceLayer*> recurrences;
    std::vector<ITensor*> bodyInputs;
    for (int64_t s = 0; s < states; ++s)
    {
        recurrences.push_back(
            &ctx.check(loop->addRecurrence(inputTensor(ctx, node, static_cast<int32_t>(s))), "state"));
        bodyInputs.push_back(recurrences.back()->getOutput(0));
    }
    for (int64_t i = 0; i < scans; ++i)
    {
        ITensor& scanned = inputTensor(ctx, node, static_cast<int32_t>(states + i));
        int32_t const axis = normalizeAxis(inputAxes[i], rankOf(scanned), "scan_input_axes");
        bodyInputs.push_back(
            ctx.check(loop->addIterator(scanned, axis, inputDirections[i] != 0), "iterator").getOutput(0));
    }
    std::vector<Value> const outputs = importBody(ctx, body, bodyInputs);
    ctx.beginNode(node.displayName());
    std::vector<Value> results;
    for (int64_t s = 0; s < states; ++s)
    {
        ITensor& next = ctx.tensor(outputs[s]);
        recurrences[s]->setInput(1, next);
        results.emplace_back(
            ctx.check(loop->addLoopOutput(next, nvinfer1::LoopOutput::kLAST_VALUE), "loop output").getOutput(0));
    }
    for (int64_t o = 0; o < scanOutputs; ++o)
    {
        ITensor& value = ctx.tensor(outputs[states + o]);
        int32_t const axis = normalizeAxis(outputAxes[o], rankOf(value) + 1, "scan_output_axes");
        auto const kind = outputDirections[o] != 0 ? nvinfer1::LoopOutput::kREVERSE
                                                   : nvinfer1::LoopOutput::kCONCATENATE;
        auto& output = ctx.check(loop->addLoopOutput(value, kind, axis), "loop output");
        output.setInput(1, trips);
        results.emplace_back(output.getOutput(0));
    }
    return results;
}

} // namespace

ImporterRegistration const kLoopImporters([](ImporterTable& table) {
    table.add("Loop", importLoop);
    table.add("Scan", importScan);
});

} // namespace kiln::onnxparser
