// What the plugin payload fuzzer (tests/fuzz) found, replayed: each input of tests/fuzz/regressions/payload puts a
// corrupted payload into a plan of the collection. Loading that plan must fail with an error that names what is
// wrong (the fuzzer's CTest replays the same inputs under AddressSanitizer, which also checks they leak nothing).
#include "plan_with_payload.h"
#include "plugin_harness.h"
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Logging.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

//! Loads the plan that fuzzer input `name` stands for; returns every error logged (by Kiln and by the plugin).
std::string loadErrors(std::string const& name, bool& loaded)
{
    kiln::test::registerCollection();
    std::string const folder = KILN_FUZZ_DIR;
    std::vector<uint8_t> const input = kiln::fuzz::readBytes(folder + "/regressions/payload/" + name);
    kiln::fuzz::PayloadInput split;
    EXPECT_TRUE(kiln::fuzz::splitInput(input.data(), input.size(), split)) << name << " is not a fuzzer input";
    std::vector<uint8_t> const plan = kiln::fuzz::planWithPayload(
        kiln::fuzz::readBytes(folder + "/seeds/plans/" + split.seed + ".plan"), split.payload, split.size);
    EXPECT_FALSE(plan.empty()) << "no seed plan " << split.seed;
    kiln::test::RecordingLogger logger;
    kiln::setLogger(&logger);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan.data(), plan.size()));
    kiln::setLogger(nullptr);
    loaded = engine != nullptr;
    return logger.errors();
}

//! One finding: the fuzzer input that showed it, and the error that loading its plan must now log.
struct Finding
{
    char const* input;
    char const* expectedError;
};

class PayloadRegression : public ::testing::TestWithParam<Finding>
{
};

TEST_P(PayloadRegression, PlanIsRefusedWithTheReason)
{
    bool loaded = true;
    std::string const errors = loadErrors(GetParam().input, loaded);
    EXPECT_FALSE(loaded);
    EXPECT_NE(errors.find(GetParam().expectedError), std::string::npos) << errors;
}

INSTANTIATE_TEST_SUITE_P(Findings, PayloadRegression,
    ::testing::Values(
        // NMS_TRT's payload followed by bytes it does not read: the plugin made before that check was leaked (which
        // only the fuzzer's CTest, under LeakSanitizer, can see).
        Finding{"nms_trailing_bytes_leak", "NMS_TRT: the serialized plugin has 196 bytes more than it should"},
        // CropAndResizeDynamic with a crop width of 58115 where the plan sized the output for 3: it wrote past it.
        Finding{"crop_and_resize_other_crop_size",
            "plugin CropAndResizeDynamic (version 1, namespace \"\") gives output 0 extent 58115 on axis 3, but the "
            "plan sized it 3"},
        // A feature map of 536870913 x 536870913 cells: its box count wrapped around in 32 bits to the very extent
        // the plan had sized, and the plugin wrote 2^58 boxes.
        Finding{"grid_anchor_wrapped_extent",
            "GridAnchor_TRT: layer 1's feature map (536870913 x 536870913) has more boxes than an output can hold"},
        // A sampling ratio of 67108866: 4.5e15 samples per bin, a run that never ends.
        Finding{
            "roi_align_huge_sampling_ratio", "ROIAlign_TRT: field 'sampling_ratio' is 67108866; expected in [0, 64]"},
        // The same in PyramidROIAlign_TRT: 822083584.
        Finding{"pyramid_roi_align_huge_sampling_ratio",
            "PyramidROIAlign_TRT: field 'sampling_ratio' is 822083584; expected 64 or less"},
        // Bytes other than 0 and 1 where a bool belongs, which the plugins then read as bools (undefined behaviour;
        // the plan fuzzer's build with Kiln under UndefinedBehaviorSanitizer found these).
        Finding{"efficient_nms_score_activation_not_a_bool",
            "EfficientNMS_TRT: field 'score_activation' of the serialized plugin holds 38, not a bool (0 or 1)"},
        Finding{"efficient_nms_has_anchors_not_a_bool",
            "EfficientNMS_TRT: a flag of the serialized plugin holds 6, not a bool (0 or 1)"},
        Finding{"emb_layer_norm_output_fp16_not_a_bool",
            "CustomEmbLayerNormPluginDynamic: field 'output_fp16' of the serialized plugin holds 177, not a bool (0 or "
            "1)"},
        // ResizeNearest_TRT with a scale of 2.4e21, whose output extent the plugin converted from a float beyond
        // 64 bits (undefined behaviour, UBSan in the fuzzing build).
        Finding{"resize_nearest_huge_scale",
            "ResizeNearest_TRT: scale 2351959869397967831040.000000 turns extent 2 into "
            "4703919738795935662080.000000, not an extent"}),
    [](::testing::TestParamInfo<Finding> const& testInfo) { return std::string(testInfo.param.input); });

} // namespace
