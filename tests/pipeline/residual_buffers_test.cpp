// Activation memory of layers that add their residual in place (builder/residual_buffers.h): which outputs take
// their residual's bytes, on plans made by hand, and what stays apart.
#include "builder/residual_buffers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace
{

using kiln::builder::BufferRequest;
using kiln::builder::SharedBuffer;
using kiln::plan::LayerRecord;
using kiln::plan::PlanModel;

//! A backend whose layers write over their residual where `writesOver` says.
class ResidualBackend final : public kiln::backend::Implementation
{
public:
    explicit ResidualBackend(bool writesOver)
        : mWritesOver(writesOver)
    {
    }
    bool usable(std::string& /*why*/) const override
    {
        return true;
    }
    std::string unsupportedReason(kiln::network::LayerParams const& /*params*/) const override
    {
        return {};
    }
    bool optimize(
        PlanModel& /*model*/, kiln::backend::PassOptions const& /*options*/, std::string& /*error*/) const override
    {
        return true;
    }
    std::vector<char const*> passNames() const override
    {
        return {};
    }
    std::unique_ptr<kiln::backend::Executor> makeExecutor(
        kiln::backend::LoadedPlan const& /*plan*/, kiln::plugin::ContextResources& /*resources*/) const override
    {
        return nullptr;
    }
    bool writesOverResidual(PlanModel const& /*model*/, size_t /*l*/) const override
    {
        return mWritesOver;
    }

private:
    bool mWritesOver;
};

//! Two bottleneck blocks as a ResNet makes them, each layer one step: t0 (the network's input) -> L0 -> t1 -> L1 ->
//! t2 -> L2 (+ t1) -> t3 -> L3 -> t4 -> L4 (+ t3) -> t5 -> L5 -> t6 (the network's output). `lateReader`: one more
//! layer, L6, reads t1 after them all.
PlanModel twoBlocks(bool lateReader = false)
{
    PlanModel model;
    model.tensors.resize(7);
    for (size_t t = 0; t < model.tensors.size(); ++t)
    {
        model.tensors[t].name = "t" + std::to_string(t);
        model.tensors[t].maxBytes = 4096;
    }
    model.tensors[0].ioMode = nvinfer1::TensorIOMode::kINPUT;
    model.tensors[6].ioMode = nvinfer1::TensorIOMode::kOUTPUT;
    auto layer = [&](std::vector<int32_t> inputs, int32_t output, bool residual) {
        LayerRecord record;
        record.name = "L" + std::to_string(model.layers.size());
        record.inputs = std::move(inputs);
        record.outputs = {output};
        record.epilogue.addsResidual = residual;
        model.layers.push_back(std::move(record));
    };
    layer({0}, 1, false);
    layer({1}, 2, false);
    layer({2, 1}, 3, true);
    layer({3}, 4, false);
    layer({4, 3}, 5, true);
    layer({5}, 6, false);
    if (lateReader)
    {
        model.tensors.emplace_back();
        model.tensors.back().maxBytes = 4096;
        layer({1}, 7, false);
    }
    return model;
}

//! The requests of the arena tensors of `model` (every tensor but its I/O ones), from the steps that write and read
//! them, and the tensor of each.
std::vector<BufferRequest> requestsOf(PlanModel const& model, std::vector<size_t>& requestTensor)
{
    std::vector<BufferRequest> requests;
    requestTensor.clear();
    for (size_t t = 0; t < model.tensors.size(); ++t)
    {
        if (model.tensors[t].ioMode != nvinfer1::TensorIOMode::kNONE)
        {
            continue;
        }
        BufferRequest request{model.tensors[t].maxBytes, -1, -1};
        for (size_t l = 0; l < model.layers.size(); ++l)
        {
            LayerRecord const& layer = model.layers[l];
            bool const writes = layer.outputs[0] == static_cast<int32_t>(t);
            bool const reads = std::count(layer.inputs.begin(), layer.inputs.end(), static_cast<int32_t>(t)) > 0;
            request.firstStep = writes && request.firstStep < 0 ? static_cast<int32_t>(l) : request.firstStep;
            request.lastStep = writes || reads ? static_cast<int32_t>(l) : request.lastStep;
        }
        requests.push_back(request);
        requestTensor.push_back(t);
    }
    return requests;
}

//! Each shared tensor and its owner, as pairs of names.
std::vector<std::pair<std::string, std::string>> namesOf(
    PlanModel const& model, std::vector<SharedBuffer> const& shared)
{
    std::vector<std::pair<std::string, std::string>> names;
    for (SharedBuffer const& buffer : shared)
    {
        names.emplace_back(model.tensors[buffer.tensor].name, model.tensors[buffer.owner].name);
    }
    return names;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(ResidualBuffers, BlocksInAChainShareTheFirstResidualsBytes)
{
    PlanModel const model = twoBlocks();
    std::vector<size_t> requestTensor;
    std::vector<BufferRequest> requests = requestsOf(model, requestTensor);
    std::vector<SharedBuffer> const shared
        = kiln::builder::shareResidualBuffers(model, ResidualBackend(true), requests, requestTensor);
    EXPECT_EQ(namesOf(model, shared), (Pairs{{"t3", "t1"}, {"t5", "t1"}}));
    // t3's and t5's requests are gone; t1's covers L0 (its writer) to L5 (t5's last reader).
    EXPECT_EQ(requestTensor, (std::vector<size_t>{1, 2, 4}));
    ASSERT_EQ(requests.size(), 3U);
    EXPECT_EQ(requests[0].firstStep, 0);
    EXPECT_EQ(requests[0].lastStep, 5);
    EXPECT_EQ(requests[1].firstStep, 1);
    EXPECT_EQ(requests[1].lastStep, 2);
}

TEST(ResidualBuffers, NothingIsSharedWhereTheBackendDoesNotWriteOver)
{
    PlanModel const model = twoBlocks();
    std::vector<size_t> requestTensor;
    std::vector<BufferRequest> requests = requestsOf(model, requestTensor);
    EXPECT_TRUE(kiln::builder::shareResidualBuffers(model, ResidualBackend(false), requests, requestTensor).empty());
    EXPECT_EQ(requests.size(), 5U);
}

TEST(ResidualBuffers, AResidualReadLaterKeepsItsBytes)
{
    // L6 reads t1 after L2 added it: L2 writes t3 apart, and L4 may still write t5 over t3.
    PlanModel const model = twoBlocks(true);
    std::vector<size_t> requestTensor;
    std::vector<BufferRequest> requests = requestsOf(model, requestTensor);
    std::vector<SharedBuffer> const shared
        = kiln::builder::shareResidualBuffers(model, ResidualBackend(true), requests, requestTensor);
    EXPECT_EQ(namesOf(model, shared), (Pairs{{"t5", "t3"}}));
}

TEST(ResidualBuffers, TensorsOfOtherFormatsTypesOrSizesOrTheApplicationsStayApart)
{
    ResidualBackend const backend(true);
    auto sharedWith = [&](auto&& change) {
        PlanModel model = twoBlocks();
        change(model);
        std::vector<size_t> requestTensor;
        std::vector<BufferRequest> requests = requestsOf(model, requestTensor);
        return namesOf(model, kiln::builder::shareResidualBuffers(model, backend, requests, requestTensor));
    };
    Pairs const secondBlockOnly{{"t5", "t3"}};
    EXPECT_EQ(sharedWith([](PlanModel& m) { m.tensors[1].format = nvinfer1::TensorFormat::kHWC; }), secondBlockOnly);
    EXPECT_EQ(sharedWith([](PlanModel& m) { m.tensors[1].type = nvinfer1::DataType::kHALF; }), secondBlockOnly);
    EXPECT_EQ(sharedWith([](PlanModel& m) { m.tensors[3].maxBytes = 8192; }), secondBlockOnly);
    EXPECT_EQ(sharedWith([](PlanModel& m) { m.tensors[1].debug = kiln::plan::DebugMark::kMARKED; }), secondBlockOnly);
    // The residual read at the layer's other input too (x + f(x) where f is the layer itself).
    EXPECT_EQ(sharedWith([](PlanModel& m) { m.layers[2].inputs = {1, 1}; }), secondBlockOnly);
}

} // namespace
