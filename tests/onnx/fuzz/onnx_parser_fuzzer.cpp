// libFuzzer entry point for the ONNX parser, end to end: any byte string given to IParser::parse must end in true or
// in parser errors, and a model that parses must build for the CPU backend or fail with a logged error, and its
// engine must run once (tests/fuzz/engine_run.h), never crashing, hanging or (under the sanitizers) misbehaving.
// Inputs of run-time extent get a profile of extent 1, shape-tensor inputs the value 1. The model's path is a folder
// holding one small external-data file (external/weights.bin), so that external-data entries are read too.
#include "engine_run.h"
#include "fuzz_support.h"

#include <NvInfer.h>
#include <NvOnnxParser.h>
#include <kiln/Backend.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace
{

//! The parsed network's dynamic inputs fixed at extent 1 and value 1; false where a profile cannot say so.
bool addUnitProfile(
    nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config)
{
    nvinfer1::IOptimizationProfile* profile = builder.createOptimizationProfile();
    bool needed = false;
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        nvinfer1::ITensor* input = network.getInput(i);
        nvinfer1::Dims dims = input->getDimensions();
        if (dims.nbDims < 0)
        {
            return false;
        }
        bool const dynamic = std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; });
        std::replace_if(
            dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; }, int64_t{1});
        for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                 nvinfer1::OptProfileSelector::kMAX})
        {
            if (dynamic && !profile->setDimensions(input->getName(), selector, dims))
            {
                return false;
            }
        }
        needed = needed || dynamic;
        if (!input->isShapeTensor())
        {
            continue;
        }
        int64_t const count = dims.nbDims == 0 ? 1 : dims.d[0];
        if (dims.nbDims > 1 || count > kiln::fuzz::kMaxShapeValues)
        {
            return false;
        }
        std::vector<int32_t> const ones(static_cast<size_t>(count), 1);
        for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                 nvinfer1::OptProfileSelector::kMAX})
        {
            if (!profile->setShapeValues(input->getName(), selector, ones.data(), static_cast<int32_t>(count)))
            {
                return false;
            }
        }
        needed = true;
    }
    return !needed || config.addOptimizationProfile(profile) >= 0;
}

//! Builds the parsed network for the CPU backend, loads the plan and runs it once.
void buildAndRun(nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition& network, nvinfer1::IRuntime& runtime)
{
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder.createBuilderConfig()};
    kiln::setBackend(*config, kiln::Backend::kCPU);
    config->setMemoryPoolLimit(nvinfer1::MemoryPoolType::kWORKSPACE, kiln::fuzz::kMaxIOBytes);
    if (!addUnitProfile(builder, network, *config))
    {
        return;
    }
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder.buildSerializedNetwork(network, *config)};
    if (plan == nullptr)
    {
        return;
    }
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime.deserializeCudaEngine(plan->data(), plan->size())};
    if (engine != nullptr)
    {
        kiln::fuzz::runOnce(*engine);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    static kiln::fuzz::SilentLogger logger;
    static std::unique_ptr<nvinfer1::IBuilder> const builder{nvinfer1::createInferBuilder(logger)};
    static std::unique_ptr<nvinfer1::IRuntime> const runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    if (!parser->parse(data, size, KILN_FUZZ_ONNX_MODEL_PATH))
    {
        // Reading every error back exercises the error records too.
        for (int32_t i = 0; i < parser->getNbErrors(); ++i)
        {
            nvonnxparser::IParserError const* error = parser->getError(i);
            (void) error->desc();
            (void) error->nodeName();
        }
        return 0;
    }
    buildAndRun(*builder, *network, *runtime);
    return 0;
}
