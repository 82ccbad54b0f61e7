// A product by a constant per column after a linear layer, folded into the layer's weights and bias
// (backend/cuda/passes/column_scale_folding.h): on the CPU reference, a plan as built and the same plan folded compute
// the same outputs, with the weights read either way round; and where the fold must not happen, it does not.
#include "backend/cuda/passes/column_scale_folding.h"
#include "backend_comparison.h"
#include "plan/plan_format.h"

#include <map>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! Weights outlive the network that refers to them until the plan is built.
struct Constants
{
    std::vector<std::vector<float>> storage;

    ITensor& add(INetworkDefinition& network, Dims const& dims, float phase)
    {
        storage.push_back(weightsOf(volumeOf(dims), phase));
        Weights const weights{DataType::kFLOAT, storage.back().data(), static_cast<int64_t>(storage.back().size())};
        return *network.addConstant(dims, weights)->getOutput(0);
    }
};

//! x [2, 5, 3] times weights of 4 columns ([3, 4], or [4, 3] read transposed), plus a bias, times a scale per column
//! ([1, 1, 4]); with `sharedBias`, the bias is also added to a second product, an output of its own.
NetworkMaker scaledLinearLayer(std::shared_ptr<Constants> const& constants, bool transposed, bool sharedBias)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{3, {2, 5, 3}});
        ITensor& weights = constants->add(network, transposed ? Dims{3, {1, 4, 3}} : Dims{3, {1, 3, 4}}, 1.0F);
        ITensor& product = *network
                                .addMatrixMultiply(*x, MatrixOperation::kNONE, weights,
                                    transposed ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE)
                                ->getOutput(0);
        ITensor& bias = constants->add(network, Dims{3, {1, 1, 4}}, 2.0F);
        ITensor& biased = *network.addElementWise(product, bias, ElementWiseOperation::kSUM)->getOutput(0);
        ITensor& scale = constants->add(network, Dims{3, {1, 1, 4}}, 3.0F);
        ITensor& y = *network.addElementWise(biased, scale, ElementWiseOperation::kPROD)->getOutput(0);
        y.setName("y");
        network.markOutput(y);
        if (sharedBias)
        {
            ITensor& other = *network
                                  .addMatrixMultiply(*x, MatrixOperation::kNONE,
                                      constants->add(network, Dims{3, {1, 3, 4}}, 4.0F), MatrixOperation::kNONE)
                                  ->getOutput(0);
            ITensor& z = *network.addElementWise(other, bias, ElementWiseOperation::kSUM)->getOutput(0);
            z.setName("z");
            network.markOutput(z);
        }
    };
}

//! The CPU reference's plan for `maker`, as built, read back.
kiln::plan::PlanModel cpuPlanOf(NetworkMaker const& maker)
{
    RecordingLogger logger;
    std::unique_ptr<IHostMemory> const plan = buildPlan(logger, kiln::Backend::kCPU, maker, false, nullptr);
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan && kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
    return model;
}

void expectFoldKeepsTheOutputs(bool transposed, bool sharedBias)
{
    auto const constants = std::make_shared<Constants>();
    NetworkMaker const maker = scaledLinearLayer(constants, transposed, sharedBias);
    kiln::plan::PlanModel model = cpuPlanOf(maker);
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats({2, 5, 3}, spread(30, -2.0F, 3.0F))}};
    std::map<std::string, HostTensor> const asBuilt
        = runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(model), inputs);
    EXPECT_EQ(kiln::cuda::foldColumnScalesIntoProducts(model), 1U);
    EXPECT_EQ(layersOfKind(model, LayerType::kELEMENTWISE), sharedBias ? 2 : 1); // the bias's sums
    std::map<std::string, HostTensor> const folded = runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(model), inputs);
    ASSERT_EQ(folded.size(), asBuilt.size());
    for (auto const& [name, tensor] : asBuilt)
    {
        expectSameOutput(folded.at(name), tensor, Tolerance{1e-5, 1e-5}, name);
    }
}

TEST(ColumnScaleFolding, AScalePerColumnFoldsIntoTheWeightsAndTheBias)
{
    expectFoldKeepsTheOutputs(false, false);
}

TEST(ColumnScaleFolding, WeightsReadTransposedScaleTheirRows)
{
    expectFoldKeepsTheOutputs(true, false);
}

TEST(ColumnScaleFolding, ABiasOtherLayersReadIsScaledInACopyOfItsOwn)
{
    expectFoldKeepsTheOutputs(false, true);
}

//! x [2, 5, 3] times weights [3, 4], times a constant of `scaleDims`; with `productSeen`, the product is a network
//! output too.
NetworkMaker scaledProduct(std::shared_ptr<Constants> const& constants, Dims const& scaleDims, bool productSeen)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{3, {2, 5, 3}});
        ITensor& weights = constants->add(network, Dims{3, {1, 3, 4}}, 1.0F);
        ITensor& product
            = *network.addMatrixMultiply(*x, MatrixOperation::kNONE, weights, MatrixOperation::kNONE)->getOutput(0);
        ITensor& scale = constants->add(network, scaleDims, 2.0F);
        ITensor& y = *network.addElementWise(product, scale, ElementWiseOperation::kPROD)->getOutput(0);
        network.markOutput(y);
        if (productSeen)
        {
            product.setName("product");
            network.markOutput(product);
        }
    };
}

TEST(ColumnScaleFolding, AScaleAlongAnotherAxisOrAnOutputItselfStays)
{
    auto const constants = std::make_shared<Constants>();
    kiln::plan::PlanModel folding = cpuPlanOf(scaledProduct(constants, Dims{3, {1, 1, 4}}, false));
    EXPECT_EQ(kiln::cuda::foldColumnScalesIntoProducts(folding), 1U); // the case the two below differ from
    // A scale per row ([1, 5, 1]) is no scale per column.
    kiln::plan::PlanModel rows = cpuPlanOf(scaledProduct(constants, Dims{3, {1, 5, 1}}, false));
    EXPECT_EQ(kiln::cuda::foldColumnScalesIntoProducts(rows), 0U);
    // The product's output is a network output: the application sees it unscaled.
    kiln::plan::PlanModel seen = cpuPlanOf(scaledProduct(constants, Dims{3, {1, 1, 4}}, true));
    EXPECT_EQ(kiln::cuda::foldColumnScalesIntoProducts(seen), 0U);
}

} // namespace
