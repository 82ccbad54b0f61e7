// The facts each layer kind declares with its description (network/layers/, network/fused/) and that the builder and
// the backends read from it: whether the builder folds it, how it takes channels-last tensors, its interface class
// or PlanOnly. These were lists of LayerTypes in the passes that read them; the sets below are those lists, so a kind
// that changes what it declares changes them on purpose.
#include "network/layers/layer_kinds.h"
#include "network/layers/listed_interface.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace
{

using namespace kiln::network;
using nvinfer1::LayerType;

//! Descriptions of kinds Kiln does not have, to show what the check against include/kiln/LayerInterfaces.h refuses.
template <LayerType kType, typename Api>
struct FakeKind final : LayerParamsOf<FakeKind<kType, Api>, kType, Api>
{
    bool infer(InferenceContext& /*ctx*/) const override
    {
        return false;
    }
};

TEST(LayerKinds, TheCheckAgainstThePublicListRefusesWhatItDoesNotList)
{
    // What Kiln's own kinds look like: listed with their interface, or plan-only and unlisted.
    using Listed = FakeKind<LayerType::kACTIVATION, nvinfer1::IActivationLayer>;
    using UnlistedPlanOnly = FakeKind<static_cast<LayerType>(0x4BFF), PlanOnly>;
    EXPECT_TRUE(kAgreesWithPublicList<Listed>);
    EXPECT_TRUE(kAgreesWithPublicList<UnlistedPlanOnly>);
    // A kind added to the network API but not to the list, one listed with another class, a plan-only kind listed.
    using Unlisted = FakeKind<LayerType::kRAGGED_SOFTMAX, nvinfer1::IRaggedSoftMaxLayer>;
    using OtherClass = FakeKind<LayerType::kACTIVATION, nvinfer1::IUnaryLayer>;
    using ListedPlanOnly = FakeKind<LayerType::kACTIVATION, PlanOnly>;
    EXPECT_FALSE(kAgreesWithPublicList<Unlisted>);
    EXPECT_FALSE(kAgreesWithPublicList<OtherClass>);
    EXPECT_FALSE(kAgreesWithPublicList<ListedPlanOnly>);
}

TEST(LayerKinds, TheKindsOnlyPlansHoldAreTheFusedOnes)
{
    std::set<std::string> planOnly;
#define KILN_COLLECT_PLAN_ONLY(Params)                                                                                 \
    if (Params::kPlanOnly)                                                                                             \
    {                                                                                                                  \
        planOnly.insert(#Params);                                                                                      \
    }
    KILN_FOR_EACH_LAYER_KIND(KILN_COLLECT_PLAN_ONLY)
#undef KILN_COLLECT_PLAN_ONLY
    EXPECT_EQ(planOnly,
        (std::set<std::string>{"AttentionParams", "FusedNormalizationParams", "PointwiseParams",
            "QuantizedConvolutionParams", "QuantizedMatrixMultiplyParams", "RecurrentSequenceParams",
            "RecurrentSequencePairParams"}));
}

TEST(LayerKinds, TheBuilderFoldsTheKindsThatSaySo)
{
    std::set<std::string> folded;
#define KILN_COLLECT_FOLDED(Params)                                                                                    \
    if (Params{}.foldsWhenConstant())                                                                                  \
    {                                                                                                                  \
        folded.insert(#Params);                                                                                        \
    }
    KILN_FOR_EACH_LAYER_KIND(KILN_COLLECT_FOLDED)
#undef KILN_COLLECT_FOLDED
    EXPECT_EQ(folded,
        (std::set<std::string>{"ActivationParams", "CastParams", "ConcatenationParams", "CumulativeParams",
            "ElementWiseParams", "FillParams", "GatherParams", "IdentityParams", "OneHotParams", "PaddingParams",
            "ReduceParams", "ScatterParams", "SelectParams", "ShapeParams", "ShuffleParams", "SliceParams",
            "UnaryParams"}));

    // A fill folds only where it computes the same values every time.
    FillParams fill;
    fill.operation = nvinfer1::FillOperation::kRANDOM_UNIFORM;
    EXPECT_FALSE(fill.foldsWhenConstant());
    fill.operation = nvinfer1::FillOperation::kRANDOM_NORMAL;
    EXPECT_FALSE(fill.foldsWhenConstant());
}

TEST(LayerKinds, EachKindSaysHowItTakesChannelsLastData)
{
    std::set<std::string> continuing;
    std::set<std::string> other;
#define KILN_COLLECT_CHANNELS_LAST(Params)                                                                             \
    if (Params{}.channelsLast() == ChannelsLast::kCONTINUES)                                                           \
    {                                                                                                                  \
        continuing.insert(#Params);                                                                                    \
    }                                                                                                                  \
    else if (Params{}.channelsLast() != ChannelsLast::kNO)                                                             \
    {                                                                                                                  \
        other.insert(#Params);                                                                                         \
    }
    KILN_FOR_EACH_LAYER_KIND(KILN_COLLECT_CHANNELS_LAST)
#undef KILN_COLLECT_CHANNELS_LAST
    EXPECT_EQ(continuing,
        (std::set<std::string>{
            "ActivationParams", "ConcatenationParams", "GatherParams", "SliceParams", "UnaryParams"}));
    EXPECT_EQ(other,
        (std::set<std::string>{"ConvolutionParams", "ElementWiseParams", "PointwiseParams",
            "QuantizedConvolutionParams", "ReduceParams", "ShuffleParams"}));
    EXPECT_EQ(ConvolutionParams{}.channelsLast(), ChannelsLast::kSTARTS);
    EXPECT_EQ(ElementWiseParams{}.channelsLast(), ChannelsLast::kCONTINUES_UNBROADCAST);
    EXPECT_EQ(PointwiseParams{}.channelsLast(), ChannelsLast::kCONTINUES_WITH_SINGLES);
    EXPECT_EQ(ReduceParams{}.channelsLast(), ChannelsLast::kREADS_ANY);
    EXPECT_EQ(ShuffleParams{}.channelsLast(), ChannelsLast::kREORDERS);

    // The pooling kernels' channels-last variant pools over two axes only.
    PoolingParams pooling;
    pooling.windowSize = nvinfer1::Dims{2, {3, 3}};
    EXPECT_EQ(pooling.channelsLast(), ChannelsLast::kCONTINUES);
    pooling.windowSize = nvinfer1::Dims{3, {3, 3, 3}};
    EXPECT_EQ(pooling.channelsLast(), ChannelsLast::kNO);

    // A gather continues a region only in kDEFAULT mode, without element-wise dims (a channel shuffle's gather).
    GatherParams gather;
    gather.numElementWiseDims = 1;
    EXPECT_EQ(gather.channelsLast(), ChannelsLast::kNO);
    gather.numElementWiseDims = 0;
    gather.mode = nvinfer1::GatherMode::kELEMENT;
    EXPECT_EQ(gather.channelsLast(), ChannelsLast::kNO);
}

} // namespace
