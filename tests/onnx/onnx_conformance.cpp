// Runs ONNX's backend node tests (Debian's libonnx-testdata) through Kiln: parse model.onnx, build on
// the CPU backend, run every test_data_set_* and compare with the expected outputs. Prints pass / fail /
// unsupported counts per op; with --expect, fails unless every listed test passes; with --report,
// writes the full report as Markdown.
//
// With --cuda-plans, each test that builds on the CPU backend is built for the CUDA backend as well (no GPU needed to
// build): the CUDA backend's passes see every op's networks, optional inputs left out included, and an exception
// inside one (reported as an internal error) fails the test, where the CUDA backend refusing a layer with its own
// error does not.
//
// Kiln's convolution layers take kernels as weights and its shuffle needs reshape dimensions while
// shapes are inferred, so a test whose such input is a graph input is retried with the test's input
// values baked into the model as initializers; it then counts as "pass (constant inputs)".
#include "onnx/import_error.h"
#include "onnx/onnx_proto.h"
#include "onnx/tensor_reader.h"
#include "recording_output_allocator.h"

#include <NvInfer.h>
#include <NvInferPlugin.h>
#include <NvOnnxParser.h>
#include <kiln/Backend.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using kiln::onnxparser::ConstantData;
using kiln::onnxparser::ConstantStore;

namespace
{

class QuietLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            if (firstError.empty())
            {
                firstError = msg;
            }
            lastError = msg;
        }
    }
    std::string firstError;
    std::string lastError;
};

enum class Outcome
{
    kPASS,
    kPASS_CONSTANT_INPUTS,
    kFAIL,
    kUNSUPPORTED
};

struct Result
{
    std::string test;
    std::string op;
    Outcome outcome{Outcome::kFAIL};
    std::string reason;
};

std::string readFile(fs::path const& path)
{
    std::ifstream file(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

std::vector<::onnx::TensorProto> readTensors(fs::path const& dir, char const* prefix)
{
    std::vector<::onnx::TensorProto> tensors;
    for (int i = 0;; ++i)
    {
        fs::path const path = dir / (std::string(prefix) + std::to_string(i) + ".pb");
        if (!fs::exists(path))
        {
            break;
        }
        ::onnx::TensorProto tensor;
        tensor.ParseFromString(readFile(path));
        tensors.push_back(std::move(tensor));
    }
    return tensors;
}

bool isUnsupported(nvonnxparser::ErrorCode code)
{
    using nvonnxparser::ErrorCode;
    return code == ErrorCode::kUNSUPPORTED_NODE || code == ErrorCode::kUNSUPPORTED_NODE_ATTR
        || code == ErrorCode::kUNSUPPORTED_NODE_INPUT || code == ErrorCode::kUNSUPPORTED_NODE_DATATYPE
        || code == ErrorCode::kUNSUPPORTED_NODE_DYNAMIC || code == ErrorCode::kUNSUPPORTED_NODE_SHAPE
        || code == ErrorCode::kUNSUPPORTED_GRAPH;
}

bool valuesMatch(ConstantData const& actual, ConstantData const& expected, std::string& why)
{
    if (actual.shape != expected.shape)
    {
        std::ostringstream out;
        out << "output shape [";
        for (int64_t e : actual.shape)
        {
            out << e << ",";
        }
        out << "] differs from the expected [";
        for (int64_t e : expected.shape)
        {
            out << e << ",";
        }
        out << "]";
        why = out.str();
        return false;
    }
    std::vector<double> const a = actual.toDouble();
    std::vector<double> const e = expected.toDouble();
    for (size_t i = 0; i < a.size(); ++i)
    {
        bool const bothNan = std::isnan(a[i]) && std::isnan(e[i]);
        bool const sameInf = std::isinf(e[i]) && a[i] == e[i];
        // ONNX Runtime's fp32 tolerance widened to the backend tests' rtol of 1e-3.
        if (!bothNan && !sameInf && !(std::fabs(a[i] - e[i]) <= 1e-5 + 1e-3 * std::fabs(e[i])))
        {
            why = "element " + std::to_string(i) + " is " + std::to_string(a[i]) + ", expected " + std::to_string(e[i]);
            return false;
        }
    }
    return true;
}

//! The model with its graph inputs replaced by initializers holding the test's input values.
std::string bakeInputs(::onnx::ModelProto model, std::vector<::onnx::TensorProto> const& inputs)
{
    ::onnx::GraphProto* graph = model.mutable_graph();
    std::set<std::string> initialized;
    for (auto const& init : graph->initializer())
    {
        initialized.insert(init.name());
    }
    int next = 0;
    google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> kept;
    for (auto const& input : graph->input())
    {
        if (initialized.count(input.name()) > 0)
        {
            continue;
        }
        if (next < static_cast<int>(inputs.size()))
        {
            ::onnx::TensorProto* init = graph->add_initializer();
            *init = inputs[next++];
            init->set_name(input.name());
        }
    }
    graph->clear_input();
    return model.SerializeAsString();
}

//! Whether each test is also built for the CUDA backend (--cuda-plans).
bool gBuildCudaPlans = false;

//! The internal error (an exception inside the builder) that building `network` for the CUDA backend with `profile`
//! (where given), in FP32 or with kFP16, ends in; empty where both build, or fail with an error of their own.
//! `logger` is the builder's; its first error stays what it was.
std::string cudaInternalError(nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition& network,
    nvinfer1::IOptimizationProfile* profile, QuietLogger& logger)
{
    std::string const firstError = logger.firstError;
    for (bool fp16 : {false, true})
    {
        logger.lastError.clear();
        std::unique_ptr<nvinfer1::IBuilderConfig> config{builder.createBuilderConfig()};
        kiln::setBackend(*config, kiln::Backend::kCUDA);
        if (fp16)
        {
            config->setFlag(nvinfer1::BuilderFlag::kFP16);
        }
        if (profile != nullptr)
        {
            config->addOptimizationProfile(profile);
        }
        std::unique_ptr<nvinfer1::IHostMemory> const plan{builder.buildSerializedNetwork(network, *config)};
        if (plan == nullptr && logger.lastError.find("internal error") != std::string::npos)
        {
            return logger.lastError + (fp16 ? " (FP16)" : "");
        }
    }
    logger.firstError = firstError;
    return {};
}

//! Parses, builds and runs one test; the outcome and why.
Result runTest(fs::path const& dir, std::string const& bytes, bool baked)
{
    Result result;
    QuietLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    std::string const modelPath = (dir / "model.onnx").string();
    if (!parser->parse(bytes.data(), bytes.size(), modelPath.c_str()))
    {
        nvonnxparser::IParserError const* error = parser->getError(0);
        result.outcome = isUnsupported(error->code()) ? Outcome::kUNSUPPORTED : Outcome::kFAIL;
        result.reason = std::string(nvonnxparser::errorCodeStr(error->code())) + ": " + error->desc();
        return result;
    }
    std::vector<fs::path> sets;
    for (auto const& entry : fs::directory_iterator(dir))
    {
        if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
        {
            sets.push_back(entry.path());
        }
    }
    std::sort(sets.begin(), sets.end());
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    kiln::setBackend(*config, kiln::Backend::kCPU);
    ConstantStore store;
    // Network inputs with run-time extents get a profile fixed at the first data set's shapes.
    std::vector<::onnx::TensorProto> const firstInputs = sets.empty() ? std::vector<::onnx::TensorProto>{}
                                                                      : readTensors(sets[0], "input_");
    bool dynamic = false;
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    for (int32_t i = 0; i < network->getNbInputs() && !baked; ++i)
    {
        nvinfer1::ITensor* input = network->getInput(i);
        nvinfer1::Dims dims = input->getDimensions();
        bool const hasRunTimeExtent = std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t e) { return e < 0; });
        if (hasRunTimeExtent && i < static_cast<int32_t>(firstInputs.size()))
        {
            for (int32_t d = 0; d < dims.nbDims; ++d)
            {
                dims.d[d] = firstInputs[i].dims(d);
            }
            for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                     nvinfer1::OptProfileSelector::kMAX})
            {
                profile->setDimensions(input->getName(), selector, dims);
            }
            dynamic = true;
        }
        if (input->isShapeTensor() && i < static_cast<int32_t>(firstInputs.size()))
        {
            // A shape-tensor input (a reshape's shape, say): the profile takes the test's values as its bounds.
            ConstantData const data = kiln::onnxparser::readTensor(firstInputs[i], "", store);
            std::vector<int32_t> values(static_cast<size_t>(data.count()));
            for (size_t v = 0; v < values.size(); ++v)
            {
                values[v] = data.type == nvinfer1::DataType::kINT64
                    ? static_cast<int32_t>(static_cast<int64_t const*>(data.data)[v])
                    : static_cast<int32_t const*>(data.data)[v];
            }
            for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                     nvinfer1::OptProfileSelector::kMAX})
            {
                profile->setShapeValues(input->getName(), selector, values.data(), static_cast<int32_t>(values.size()));
            }
            dynamic = true;
        }
    }
    if (dynamic)
    {
        config->addOptimizationProfile(profile);
    }
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (!plan)
    {
        result.reason = "build failed: " + logger.firstError;
        return result;
    }
    if (gBuildCudaPlans)
    {
        std::string const internal = cudaInternalError(*builder, *network, dynamic ? profile : nullptr, logger);
        if (!internal.empty())
        {
            result.reason = "CUDA plan: " + internal;
            return result;
        }
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine ? engine->createExecutionContext() : nullptr};
    if (!context)
    {
        result.reason = "engine or context creation failed: " + logger.firstError;
        return result;
    }
    for (fs::path const& set : sets)
    {
        std::vector<::onnx::TensorProto> const inputs = readTensors(set, "input_");
        std::vector<::onnx::TensorProto> const expected = readTensors(set, "output_");
        std::vector<ConstantData> inputData;
        for (int32_t i = 0; i < network->getNbInputs(); ++i)
        {
            if (i >= static_cast<int32_t>(inputs.size()))
            {
                result.reason = "the test data set has fewer inputs than the network";
                return result;
            }
            inputData.push_back(kiln::onnxparser::readTensor(inputs[i], "", store));
            nvinfer1::ITensor* input = network->getInput(i);
            if (inputData.back().type != input->getType())
            {
                result.outcome = Outcome::kUNSUPPORTED;
                result.reason = "input data type differs from the network input's";
                return result;
            }
            context->setInputShape(input->getName(), inputData.back().dims());
            context->setTensorAddress(input->getName(), const_cast<void*>(inputData.back().data));
        }
        std::vector<std::vector<uint8_t>> outputBuffers;
        // An output whose shape is data-dependent (-1 before the run) is given memory by an output allocator.
        std::vector<std::unique_ptr<kiln::test::RecordingOutputAllocator>> allocators;
        for (int32_t i = 0; i < network->getNbOutputs(); ++i)
        {
            char const* name = network->getOutput(i)->getName();
            nvinfer1::Dims const dims = context->getTensorShape(name);
            int64_t count = 1;
            for (int32_t d = 0; d < dims.nbDims; ++d)
            {
                count *= std::max<int64_t>(dims.d[d], 0);
            }
            outputBuffers.emplace_back(
                static_cast<size_t>(std::max<int64_t>(count, 1)) * kiln::elementSize(network->getOutput(i)->getType()));
            context->setTensorAddress(name, outputBuffers.back().data());
            allocators.emplace_back(std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; })
                    ? std::make_unique<kiln::test::RecordingOutputAllocator>()
                    : nullptr);
            context->setOutputAllocator(name, allocators.back().get());
        }
        if (!context->enqueueV3(nullptr))
        {
            result.reason = "run failed: " + logger.firstError;
            return result;
        }
        for (int32_t i = 0; i < network->getNbOutputs() && i < static_cast<int32_t>(expected.size()); ++i)
        {
            nvinfer1::ITensor* output = network->getOutput(i);
            nvinfer1::Dims const dims = context->getTensorShape(output->getName());
            ConstantData actual;
            actual.type = output->getType();
            actual.shape.assign(dims.d, dims.d + dims.nbDims);
            actual.data = allocators[i] ? allocators[i]->memory() : outputBuffers[i].data();
            ConstantData const wanted = kiln::onnxparser::readTensor(expected[i], "", store);
            std::string why;
            if (!valuesMatch(actual, wanted, why))
            {
                result.reason = set.filename().string() + " output \"" + output->getName() + "\": " + why;
                return result;
            }
        }
    }
    result.outcome = baked ? Outcome::kPASS_CONSTANT_INPUTS : Outcome::kPASS;
    return result;
}

//! The op a test is about: the node whose op_type, lower-cased, starts the test's name.
std::string opOf(std::string const& test, ::onnx::ModelProto const& model)
{
    std::string best;
    std::string const stem = test.substr(5); // after "test_"
    for (auto const& node : model.graph().node())
    {
        std::string lower = node.op_type();
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (stem.rfind(lower, 0) == 0 && lower.size() > best.size())
        {
            best = node.op_type();
        }
    }
    if (best.empty())
    {
        best = model.graph().node_size() > 0 ? model.graph().node(0).op_type() : "(none)";
    }
    return best;
}

Result runDirectory(fs::path const& dir)
{
    std::string const bytes = readFile(dir / "model.onnx");
    ::onnx::ModelProto model;
    Result result;
    result.test = dir.filename().string();
    if (!model.ParseFromString(bytes))
    {
        result.reason = "the test's model.onnx does not decode";
        return result;
    }
    result.op = opOf(result.test, model);
    try
    {
        Result run = runTest(dir, bytes, false);
        if (run.outcome == Outcome::kUNSUPPORTED && run.reason.find("UNSUPPORTED_NODE_INPUT") == 0)
        {
            fs::path firstSet = dir / "test_data_set_0";
            Result retry = runTest(dir, bakeInputs(model, readTensors(firstSet, "input_")), true);
            if (retry.outcome == Outcome::kPASS_CONSTANT_INPUTS)
            {
                run = retry;
            }
            else
            {
                run.reason += " [with the inputs as constants: " + retry.reason + "]";
            }
        }
        run.test = result.test;
        run.op = result.op;
        return run;
    }
    catch (kiln::onnxparser::ImportError const& e)
    {
        // The test's own data has a type Kiln does not support (e.g. bfloat16 stored as UINT16).
        result.outcome = Outcome::kUNSUPPORTED;
        result.reason = std::string("test data: ") + e.what();
        return result;
    }
    catch (std::exception const& e)
    {
        result.reason = std::string("exception: ") + e.what();
        return result;
    }
}

char const* outcomeName(Outcome outcome)
{
    switch (outcome)
    {
    case Outcome::kPASS: return "pass";
    case Outcome::kPASS_CONSTANT_INPUTS: return "pass (constant inputs)";
    case Outcome::kFAIL: return "FAIL";
    case Outcome::kUNSUPPORTED: return "unsupported";
    }
    return "?";
}

struct Counts
{
    int pass{0};
    int constantInputs{0};
    int fail{0};
    int unsupported{0};
};

void writeReport(std::ostream& out, std::vector<Result> const& results, std::map<std::string, Counts> const& perOp,
    Counts const& total)
{
    out << "# ONNX conformance of Kiln's parser and CPU backend\n\n"
        << "Generated by `onnx_conformance --report` over the node tests of Debian's `libonnx-testdata` (ONNX 1.12): "
        << "each `model.onnx` is parsed, built on the CPU backend and run on every `test_data_set_*`, and the "
        << "outputs are compared with `|actual - expected| <= 1e-5 + 1e-3 * |expected|`. Kiln's plugin collection is "
        << "registered (`initLibNvInferPlugins`, as trtexec does), so ops that import as plugins (RoiAlign) run.\n\n"
        << "- **pass**: parsed, built, ran and matched as the test is written.\n"
        << "- **pass (constant inputs)**: Kiln needs an input at build time (a convolution kernel, a reshape shape, "
           "pads...) that the test feeds as a graph input; with the test's values baked in as initializers it passes.\n"
        << "- **unsupported**: the parser reports an `UNSUPPORTED_*` error (op, attribute, data type or dynamic "
           "input Kiln does not handle).\n"
        << "- **FAIL**: anything else (wrong values, a build or run error).\n\n"
        << "CTest runs this program with `tests/onnx/conformance_expected_pass.txt`: every test listed there must "
           "pass.\n\n"
        << "## Known gaps\n\n"
        << "- **DOUBLE, UINT16/32/64, INT16, STRING and bfloat16-as-UINT16 data**: Kiln (like TensorRT) has no such "
           "tensor types. All node tests of CumSum and Einsum use DOUBLE, so their importers are checked instead by "
           "`tests/onnx/architectures` against ONNX Runtime in FLOAT (every CumSum mode; matmul, batch matmul, "
           "transpose, sums, inner/outer products, attention scores, implicit output, three operands). The same "
           "types affect ReduceLogSumExp and several Cast/CastLike/Mod/Max/Min/Pow variants.\n"
        << "- **Inputs Kiln needs at build time, fed as graph inputs** (\"pass (constant inputs)\"): Conv and "
           "ConvTranspose kernels (Kiln's convolution layers take kernels as build-time weights only), and the "
           "parameters some importers "
           "still read from initializers only: Slice/Split/Squeeze/Unsqueeze/Reduce* axes and bounds, Pad pads, "
           "TopK's K, Resize's scales. Values that decide shapes (Reshape's shape, Expand, Tile, ConstantOfShape, "
           "Range) may come from graph inputs: they are shape-tensor inputs whose values the runner gives as the "
           "profile's bounds (`IOptimizationProfile::setShapeValues`) and reads from host memory at run time.\n"
        << "- **Resize**: `tf_crop_and_resize` (region of interest and extrapolation value), antialias and "
           "`keep_aspect_ratio_policy` have no counterpart in TensorRT's resize layer. "
           "`test_resize_downsample_scales_{linear,cubic}_align_corners` differ because ONNX 1.12's reference maps "
           "align_corners coordinates with the unrounded output length (input * scale), while the resize layer, like "
           "TensorRT's, uses the integer output extent; with sizes, or scales that give whole extents, they agree.\n"
        << "- **Einsum**: lowered to shuffle, reduce and matrix-multiply layers; ellipses (`...`) and repeated labels "
           "within one operand (diagonals, `test_einsum_batch_diagonal`) are reported as unsupported.\n"
        << "- **Range** `_expanded` variants use Loop, which Kiln has no layer for.\n"
        << "- **Training-mode outputs** (BatchNormalization, Dropout with a ratio input), MaxPool's Indices output and "
           "dilated pooling are reported as unsupported: TensorRT's pooling layer has neither.\n"
        << "- **UINT8 arithmetic and pooling**: Kiln's element-wise and pooling kernels reject UINT8 (as TensorRT's "
           "do), so the parser reports it as unsupported.\n"
        << "- **Optional and sequence inputs** (`test_identity_opt`, `test_identity_sequence`): Kiln's tensors are "
           "plain tensors only.\n\n"
        << "## Totals\n\n| tests | pass | pass (constant inputs) | unsupported | FAIL |\n|---|---|---|---|---|\n| "
        << results.size() << " | " << total.pass << " | " << total.constantInputs << " | " << total.unsupported << " | "
        << total.fail
        << " |\n\n## Per op\n\n| op | pass | pass (constant inputs) | unsupported | FAIL |\n|---|---|---|---|---|\n";
    for (auto const& [op, c] : perOp)
    {
        out << "| " << op << " | " << c.pass << " | " << c.constantInputs << " | " << c.unsupported << " | " << c.fail
            << " |\n";
    }
    out << "\n## Every test\n\n| test | op | result | reason |\n|---|---|---|---|\n";
    for (Result const& r : results)
    {
        std::string reason = r.reason.substr(0, 240);
        std::replace(reason.begin(), reason.end(), '|', '/');
        std::replace(reason.begin(), reason.end(), '\n', ' ');
        out << "| " << r.test << " | " << r.op << " | " << outcomeName(r.outcome) << " | " << reason << " |\n";
    }
}

} // namespace

int main(int argc, char** argv)
{
    // As trtexec does: ops that import as plugins (RoiAlign as ROIAlign_TRT) find Kiln's collection registered.
    initLibNvInferPlugins(nullptr, "");
    fs::path data = "/usr/share/libonnx-testdata/data/node";
    std::string expectFile;
    std::string reportFile;
    std::string filter;
    bool verbose = false;
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (arg == "--data")
            data = next();
        else if (arg == "--expect")
            expectFile = next();
        else if (arg == "--report")
            reportFile = next();
        else if (arg == "--filter")
            filter = next();
        else if (arg == "-v" || arg == "--verbose")
            verbose = true;
        else if (arg == "--cuda-plans")
            gBuildCudaPlans = true;
        else
        {
            std::cerr << "usage: onnx_conformance [--data DIR] [--expect FILE] [--report FILE] [--filter TEXT] "
                         "[--cuda-plans] [-v]\n";
            return 2;
        }
    }
    if (!fs::is_directory(data))
    {
        std::cerr << "onnx_conformance: " << data << " is not a folder (install libonnx-testdata)\n";
        return 2;
    }
    std::vector<fs::path> dirs;
    for (auto const& entry : fs::directory_iterator(data))
    {
        if (entry.is_directory() && fs::exists(entry.path() / "model.onnx")
            && entry.path().filename().string().find(filter) != std::string::npos)
        {
            dirs.push_back(entry.path());
        }
    }
    std::sort(dirs.begin(), dirs.end());
    std::vector<Result> results;
    std::map<std::string, Counts> perOp;
    Counts total;
    for (fs::path const& dir : dirs)
    {
        Result const r = runDirectory(dir);
        Counts& c = perOp[r.op];
        for (Counts* counts : {&c, &total})
        {
            switch (r.outcome)
            {
            case Outcome::kPASS: ++counts->pass; break;
            case Outcome::kPASS_CONSTANT_INPUTS: ++counts->constantInputs; break;
            case Outcome::kFAIL: ++counts->fail; break;
            case Outcome::kUNSUPPORTED: ++counts->unsupported; break;
            }
        }
        if (verbose)
        {
            std::cout << r.test << ": " << outcomeName(r.outcome) << (r.reason.empty() ? "" : " - " + r.reason) << "\n";
        }
        results.push_back(r);
    }
    std::cout << "op                        pass  const  unsup  FAIL\n";
    for (auto const& [op, c] : perOp)
    {
        std::printf("%-25s %5d  %5d  %5d  %4d\n", op.c_str(), c.pass, c.constantInputs, c.unsupported, c.fail);
    }
    std::printf("TOTAL %zu tests: %d pass, %d pass (constant inputs), %d unsupported, %d FAIL\n", results.size(),
        total.pass, total.constantInputs, total.unsupported, total.fail);
    if (!reportFile.empty())
    {
        std::ofstream report(reportFile);
        writeReport(report, results, perOp, total);
    }
    int missing = 0;
    if (!expectFile.empty())
    {
        std::map<std::string, Result const*> byName;
        for (Result const& r : results)
        {
            byName[r.test] = &r;
        }
        std::ifstream expect(expectFile);
        std::string line;
        while (std::getline(expect, line))
        {
            if (line.empty() || line[0] == '#')
            {
                continue;
            }
            auto it = byName.find(line);
            if (it == byName.end())
            {
                std::cout << "EXPECTED TO PASS but not found: " << line << "\n";
                ++missing;
            }
            else if (it->second->outcome != Outcome::kPASS && it->second->outcome != Outcome::kPASS_CONSTANT_INPUTS)
            {
                std::cout << "EXPECTED TO PASS: " << line << ": " << outcomeName(it->second->outcome) << " - "
                          << it->second->reason << "\n";
                ++missing;
            }
        }
        std::cout << (missing == 0 ? "every expected test passed\n" : "some expected tests did not pass\n");
    }
    return missing == 0 ? 0 : 1;
}
