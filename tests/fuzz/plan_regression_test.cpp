// What the plan fuzzer found (tests/fuzz/regressions/plan), replayed outside it: each input is a seed plan with one
// record damaged, and each must be refused with the error that names the damage, at the check added for it (or, where
// the fix made such a plan valid, load and run). The fuzzer's CTest replays the same files under the sanitizers, where
// a crash shows; this test shows that they still reach their checks. A plan of another format version reaches none (the
// reader refuses it at the version check), so the files are remade from the seeds after each change of the format: with
// KILN_FUZZ_REGRESSION_DIR set, each test first writes its input there from its seed (tests/fuzz/make_seeds.sh does so
// into regressions/plan).
#include "engine_run.h"
#include "fuzz_plugins.h"
#include "plan_checksum.h"
#include "plan/plan_format.h"
#include "network/layers/slice.h"
#include "plan_with_payload.h"
#include "shape/expr.h"

#include <NvInferRuntime.h>
#include <kiln/Logging.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::plan::PlanModel;

//! One finding: the seed plan it came from, the damage done to it, and what loading and running it must now log.
struct Finding
{
    char const* input;
    char const* seed;
    std::function<void(PlanModel&)> damage;
    //! A part of the error; null where the fix made the plan valid, so that it must load and run.
    char const* expectedError;
};

void noInputs(PlanModel& m, size_t layer)
{
    m.layers.at(layer).inputs.clear();
}

//! The plan's shape-expression node of the constant 1.
int32_t one(PlanModel const& m)
{
    auto const node = std::find_if(m.exprs.begin(), m.exprs.end(), [](kiln::plan::ExprNode const& e) {
        return e.kind == static_cast<uint8_t>(kiln::shape::ExprKind::kCONSTANT) && e.value == 1;
    });
    EXPECT_NE(node, m.exprs.end());
    return static_cast<int32_t>(node - m.exprs.begin());
}

//! Every input and output of the layer read and written as INT64, as plan_mutations.h's "layer<N>_int64_io" does.
void int64Io(PlanModel& m, size_t layer)
{
    auto& l = m.layers.at(layer);
    l.ioTypes.assign(l.inputs.size() + l.outputs.size(), DataType::kINT64);
}

//! The tensor given no place in the activation memory; with `plannedEmpty`, a planned size of 0 bytes too.
void withoutMemory(PlanModel& m, size_t tensor, bool plannedEmpty)
{
    m.tensors.at(tensor).arenaOffset = -1;
    if (plannedEmpty)
    {
        m.tensors.at(tensor).maxBytes = 0;
    }
}

//! The tensor record named `name`.
kiln::plan::TensorRecord& tensorNamed(PlanModel& m, std::string const& name)
{
    auto const found = std::find_if(
        m.tensors.begin(), m.tensors.end(), [&](kiln::plan::TensorRecord const& t) { return t.name == name; });
    if (found == m.tensors.end())
    {
        throw std::runtime_error("no tensor named " + name);
    }
    return *found;
}

//! The plugin layer's negotiated type at `slot` (inputs, then outputs) set to `type`.
void pluginType(PlanModel& m, size_t layer, size_t slot, DataType type)
{
    auto& l = m.layers.at(layer);
    auto params
        = std::make_unique<kiln::network::PluginParams>(dynamic_cast<kiln::network::PluginParams const&>(*l.params));
    params->ioTypes.at(slot) = type;
    l.params = std::move(params);
}

//! The stride of the slice layer named `name` on `axis` set to `stride`.
void sliceStride(PlanModel& m, std::string const& name, int32_t axis, int64_t stride)
{
    for (auto& l : m.layers)
    {
        if (l.name == name)
        {
            auto params = std::make_unique<kiln::network::SliceParams>(
                dynamic_cast<kiln::network::SliceParams const&>(*l.params));
            params->stride.d[axis] = stride;
            l.params = std::move(params);
            return;
        }
    }
    ADD_FAILURE() << "the seed has no layer \"" << name << "\"";
}

// Defined before the tests that take their parameters from it, so initialized before them.
std::vector<Finding> const kFindings{
    // Layers with no inputs reached kernels that read input 0 (SEGV): the reader now checks each record against
    // its kind.
    {"softmax_no_inputs_fast_path", "onnx_test_softmax_axis_1", [](PlanModel& m) { noInputs(m, 0); },
        "layer \"y\" (SoftMax) does not hold for its recorded inputs: a softmax layer takes one input"},
    {"elementwise_no_inputs_fast_prepare", "onnx_test_add", [](PlanModel& m) { noInputs(m, 0); },
        "layer \"sum\" (ElementWise) does not hold for its recorded inputs: an element-wise layer takes exactly "
        "two inputs"},
    {"elementwise_no_inputs_reference", "onnx_test_gather_0", [](PlanModel& m) { noInputs(m, 2); },
        "(ElementWise) does not hold for its recorded inputs: an element-wise layer takes exactly two inputs"},
    {"matmul_no_inputs_fast_prepare", "onnx_test_matmul_2d", [](PlanModel& m) { noInputs(m, 0); },
        "layer \"c\" (MatrixMultiply) does not hold for its recorded inputs: a matrix multiply takes two inputs"},
    {"nonzero_no_inputs", "onnx_test_nonzero_example", [](PlanModel& m) { noInputs(m, 0); },
        "layer \"result\" (NonZero) does not hold for its recorded inputs: a non-zero layer takes one input"},
    {"select_no_inputs", "onnx_test_where_example", [](PlanModel& m) { noInputs(m, 0); },
        "layer \"z\" (Select) does not hold for its recorded inputs: a select layer takes condition, then and "
        "else inputs"},
    // A constant given an INT64 output type: the runtime converted into the constant's tensor (cpu::cast crashed),
    // which the memory plan gave no memory. A context now checks that each tensor a kernel touches has memory.
    {"cast_int64_io", "onnx_test_if", [](PlanModel& m) { int64Io(m, 0); },
        "layer \"constant else_out\" writes tensor \"else_out\", to which the plan gives no memory"},
    {"constant_written_to_no_memory", "onnx_test_tril", [](PlanModel& m) { int64Io(m, 0); },
        "layer \"folded: y (unary 14)\" writes tensor \"(Unnamed Layer* 13) [Unary]_output\", to which the plan "
        "gives no memory"},
    // The same check for the tensor a conditional output writes besides its result.
    {"conditional_output_without_memory", "onnx_test_if", [](PlanModel& m) { withoutMemory(m, 4, false); },
        "layer \"res (conditional output 3)\" writes tensor \"(Unnamed Layer* 3) [ConditionalOutput]_output_1\", "
        "to which the plan gives no memory"},
    // The branches' extent made 128 where they hold 5 values: the conditional output copied a branch of another
    // extent. The reader now compares recorded extents with the kind's inference.
    {"conditional_output_shape_differs_from_branch", "onnx_test_if", [](PlanModel& m) { m.exprs.at(0).value = 128; },
        "layer \"constant else_out\" (Constant): output 0 is recorded with extent 128 on axis 0, but the layer "
        "makes 5 from its recorded inputs"},
    // A kernel then read the I/O tensor it was not bound to, which had no memory.
    {"io_tensor_listed_twice", "onnx_test_matmul_2d", [](PlanModel& m) { m.ioTensors.at(1) = m.ioTensors.at(0); },
        "tensor \"a\" is listed twice among the I/O tensors"},
    // The batch extent made 0, which profile 0 (batch 1) no longer bounds: the plugin sized an image's columns
    // for a batch of 0. The reader now checks that profiles fit their inputs.
    {"deform_conv_batch_0_profile_outside_shape", "ModulatedDeformConv2d_v1",
        [](PlanModel& m) { m.exprs.at(0).value = 0; },
        "optimization profile 0 bounds input \"input0\" outside its shape"},
    // FooPlugin's fixed extent made 130, outside the profile's 2.
    {"foo_plugin_mutated_payload", "seed_FooPlugin", [](PlanModel& m) { m.exprs.at(2).value = 130; },
        "optimization profile 0 bounds input \"x\" outside its shape"},
    // ScatterND's output recorded as BF16 (it wrote FP32 elements into it): the engine now asks the plugin whether
    // it accepts the types the plan records.
    {"scatter_nd_bf16_output", "ScatterND_v1", [](PlanModel& m) { pluginType(m, 0, 3, DataType::kBF16); },
        "plugin ScatterND (version 1, namespace \"\") does not accept BF16 for its output 0, the type the plan "
        "records"},
    // A plugin's first input recorded as absent (-1), as a built-in layer's optional input is.
    {"plugin_input_without_memory", "MultilevelProposeROI_TRT_v1",
        [](PlanModel& m) { m.layers.at(0).inputs.at(0) = -1; },
        "its input 0 is absent, which a plugin layer's inputs never are"},
    // Tensors that a kernel writes, or reads through a view, with no memory and a planned size of 0 bytes.
    {"planned_empty_tensor_written_by_a_kernel", "default_model", [](PlanModel& m) { withoutMemory(m, 2, true); },
        "\"relu1_out\" would have shape (1, 8, 16, 16), but the plan gives it no memory"},
    {"planned_empty_tensor_read_through_a_view", "default_model", [](PlanModel& m) { withoutMemory(m, 5, true); },
        "\"gap_out\" would have shape (1, 8, 1, 1), but the plan gives it no memory"},
    {"inputs_without_profile", "onnx_test_nonzero_example", [](PlanModel& m) { m.profiles.clear(); },
        "the plan has inputs but no optimization profile to bound them"},
    // A five-dimensional input stored kHWC8: the engine told the application another padded dimension than the
    // one Kiln pads, and the application's buffer was too small. It reports Kiln's now, so the plan runs.
    {"hwc8_input_of_five_dimensions", "CustomQKVToContextPluginDynamic_v1",
        [](PlanModel& m) { m.tensors.at(0).format = TensorFormat::kHWC8; }, nullptr},
    // The select's INT64 output placed at an odd offset of the activation memory: the gather after it read its
    // indices from a misaligned address (undefined behaviour, caught by UBSan in the fuzzing build; on a GPU, vector
    // loads fault). The reader now holds every offset to the builder's alignment.
    {"int64_tensor_at_odd_offset", "onnx_test_gather_0",
        [](PlanModel& m) { tensorNamed(m, "(Unnamed Layer* 5) [Select]_output").arenaOffset = 337; },
        "lies at offset 337 of the activation memory, not a multiple of 256 bytes"},
    // A broadcast's slice given a stride of 2^62 on an axis of 3: the reader's check of its bounds computed
    // start + (size - 1) * stride, which overflowed (undefined behaviour, caught by UBSan in the fuzzing build). It
    // now names the coordinate that does not fit.
    {"slice_stride_overflows", "onnx_valid_expand",
        [](PlanModel& m) { sliceStride(m, "Y (broadcast 4)", 1, int64_t{1} << 62); },
        "(Slice) does not hold for its recorded inputs: slice along axis 1: its last coordinate, start 0 + (size 3 - "
        "1) "
        "* stride 4611686018427387904, does not fit in 64 bits"},
    // Pad's slice (kFILL, its size a run-time input) given a stride of -6917529027641081855: the CPU kernel computed
    // start + i * stride for each coordinate, which overflowed (UBSan, the fuzzing build). A stride known to the
    // reader is checked in every mode now, and the kernel checks the last coordinate of run-time extents.
    {"slice_fill_stride_overflows", "onnx_valid_pad",
        [](PlanModel& m) { sliceStride(m, "Y (slice 7)", 1, -6917529027641081855LL); }, "does not fit in 64 bits"},
    // The shape-tensor input "S" [2] given a shape of one element: a context read its two values from the
    // application's buffer, sized by the shape, past its end (ASan, the fuzzing build, where the fuzzer's extent was an
    // operation that came to 1). The reader now checks that a shape-tensor input's fixed shape holds its values.
    {"shape_input_holds_fewer_values", "onnx_valid_shape_input", [](PlanModel& m) { m.tensors.at(1).dims = {one(m)}; },
        "shape-tensor input \"S\": the plan reads 2 values from it, which its shape does not hold exactly"},
};

//! gtest names a failing case by this rather than by the bytes of its parameter.
void PrintTo(Finding const& finding, std::ostream* out)
{
    *out << finding.input;
}

std::string const kFuzzDir = KILN_FUZZ_DIR;

class ErrorLogger final : public ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (severity <= Severity::kERROR)
        {
            mErrors += std::string(message) + "\n";
        }
    }
    std::string errors() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mErrors;
    }

private:
    mutable std::mutex mMutex;
    std::string mErrors;
};

//! The seed plan with the finding's damage, as a writer would have written it.
std::vector<uint8_t> damagedSeed(Finding const& finding)
{
    std::vector<uint8_t> const seed = kiln::fuzz::readBytes(kFuzzDir + "/seeds/plans/" + finding.seed + ".plan");
    PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(seed.data(), seed.size(), model, error)) << finding.seed << ": " << error;
    finding.damage(model);
    return kiln::plan::writePlan(model);
}

//! Where KILN_FUZZ_REGRESSION_DIR names a folder, the finding's input written there from its seed; else the committed
//! one. Empty where it cannot be read.
std::vector<uint8_t> findingInput(Finding const& finding)
{
    char const* rewrite = std::getenv("KILN_FUZZ_REGRESSION_DIR");
    std::string const folder = rewrite != nullptr && *rewrite != '\0' ? rewrite : kFuzzDir + "/regressions/plan";
    std::string const path = folder + "/" + finding.input;
    if (rewrite != nullptr && *rewrite != '\0')
    {
        std::vector<uint8_t> const plan = damagedSeed(finding);
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<char const*>(plan.data()), static_cast<std::streamsize>(plan.size()));
    }
    return kiln::fuzz::readBytes(path);
}

//! The collection's and the seed plugins, registered once, as the plan fuzzer registers them.
void registerPlugins()
{
    static ErrorLogger logger;
    static std::once_flag once;
    std::call_once(once, [] { kiln::fuzz::registerSeedPlugins("plan_regression_test", logger); });
}

//! Loads the plan and runs it as the plan fuzzer does; returns every error logged. `ran`: whether a run completed.
std::string loadAndRun(std::vector<uint8_t> const& plan, bool& ran)
{
    registerPlugins();
    ErrorLogger logger;
    kiln::setLogger(&logger);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan.data(), plan.size()));
    ran = false;
    if (engine != nullptr)
    {
        std::unique_ptr<IExecutionContext> context = kiln::fuzz::contextWithinLimit(*engine);
        ran = context != nullptr && kiln::fuzz::EngineRun(*engine, *context).run();
    }
    kiln::setLogger(nullptr);
    return logger.errors();
}

class PlanRegression : public ::testing::TestWithParam<Finding>
{
};

TEST_P(PlanRegression, ReachesTheCheckAddedForIt)
{
    Finding const& finding = GetParam();
    std::vector<uint8_t> const plan = findingInput(finding);
    ASSERT_GE(plan.size(), kiln::plan::kPlanHeaderSize) << finding.input << " cannot be read";
    uint32_t version = 0;
    std::memcpy(&version, plan.data() + sizeof(kiln::plan::kPlanMagic), sizeof(version));
    ASSERT_EQ(version, kiln::plan::kPlanFormatVersion)
        << finding.input << " is of another plan format, so the reader refuses it before any check it stands for: "
        << "remake it with tests/fuzz/make_seeds.sh";
    bool ran = false;
    std::string const errors = loadAndRun(kiln::fuzz::withValidChecksum(plan.data(), plan.size()), ran);
    if (finding.expectedError == nullptr)
    {
        EXPECT_TRUE(ran) << errors;
        EXPECT_EQ(errors, "");
        return;
    }
    EXPECT_FALSE(ran);
    EXPECT_NE(errors.find(finding.expectedError), std::string::npos) << errors;
}

INSTANTIATE_TEST_SUITE_P(Findings, PlanRegression, ::testing::ValuesIn(kFindings),
    [](::testing::TestParamInfo<Finding> const& test) { return std::string(test.param.input); });

//! A found input committed without a recipe here would go unchecked, and stale after the next change of the format.
TEST(PlanRegressions, EveryCommittedInputIsListed)
{
    std::set<std::string> listed;
    for (Finding const& finding : kFindings)
    {
        listed.insert(finding.input);
    }
    for (auto const& entry : std::filesystem::directory_iterator(kFuzzDir + "/regressions/plan"))
    {
        EXPECT_EQ(listed.count(entry.path().filename().string()), 1U) << entry.path() << " has no Finding";
    }
}

} // namespace
