// onnx_run_model MODEL DIR: parses an ONNX model with Kiln's parser, builds it for the CPU backend, runs it on
// DIR/input_<i>.npy (network input i, in the graph's order) and writes DIR/output_<i>.npy. The Python tests in
// architectures/ compare those outputs with ONNX Runtime's. Exits 1 with the parser's or builder's errors.
#include "npy_file.h"

#include <NvInfer.h>
#include <NvOnnxParser.h>
#include <kiln/Backend.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace
{

class StderrLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "%s\n", message);
        }
    }
};

size_t elementSize(nvinfer1::DataType type)
{
    switch (type)
    {
    case nvinfer1::DataType::kINT64: return 8;
    case nvinfer1::DataType::kFLOAT:
    case nvinfer1::DataType::kINT32: return 4;
    case nvinfer1::DataType::kHALF:
    case nvinfer1::DataType::kBF16: return 2;
    default: return 1;
    }
}

int run(std::string const& modelPath, std::string const& dir)
{
    StderrLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    if (!parser->parseFromFile(modelPath.c_str(), static_cast<int32_t>(nvinfer1::ILogger::Severity::kWARNING)))
    {
        for (int32_t i = 0; i < parser->getNbErrors(); ++i)
        {
            std::fprintf(stderr, "parse error: %s\n", parser->getError(i)->desc());
        }
        return 1;
    }
    std::vector<kiln::test::NpyArray> inputs;
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    kiln::setBackend(*config, kiln::Backend::kCPU);
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        inputs.push_back(kiln::test::readNpy(dir + "/input_" + std::to_string(i) + ".npy"));
        nvinfer1::Dims dims{};
        dims.nbDims = static_cast<int32_t>(inputs.back().shape.size());
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            dims.d[d] = inputs.back().shape[static_cast<size_t>(d)];
        }
        // The given shape is the profile's only shape, for inputs with run-time extents.
        char const* name = network->getInput(i)->getName();
        for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                 nvinfer1::OptProfileSelector::kMAX})
        {
            profile->setDimensions(name, selector, dims);
        }
    }
    config->addOptimizationProfile(profile);
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (!plan)
    {
        std::fprintf(stderr, "the build failed\n");
        return 1;
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine ? engine->createExecutionContext() : nullptr};
    if (!context)
    {
        std::fprintf(stderr, "the plan did not load\n");
        return 1;
    }
    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        char const* name = network->getInput(i)->getName();
        nvinfer1::Dims dims{};
        dims.nbDims = static_cast<int32_t>(inputs[static_cast<size_t>(i)].shape.size());
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            dims.d[d] = inputs[static_cast<size_t>(i)].shape[static_cast<size_t>(d)];
        }
        if (!context->setInputShape(name, dims) || !context->setTensorAddress(name, inputs[static_cast<size_t>(i)].bytes.data()))
        {
            std::fprintf(stderr, "input %d (%s) was not accepted\n", i, name);
            return 1;
        }
    }
    std::vector<kiln::test::NpyArray> outputs(static_cast<size_t>(network->getNbOutputs()));
    for (int32_t i = 0; i < network->getNbOutputs(); ++i)
    {
        char const* name = network->getOutput(i)->getName();
        nvinfer1::Dims const dims = context->getTensorShape(name);
        kiln::test::NpyArray& out = outputs[static_cast<size_t>(i)];
        out.type = engine->getTensorDataType(name);
        size_t count = 1;
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            out.shape.push_back(dims.d[d]);
            count *= static_cast<size_t>(dims.d[d]);
        }
        out.bytes.resize(count * elementSize(out.type));
        context->setTensorAddress(name, out.bytes.data());
    }
    if (!context->enqueueV3(nullptr))
    {
        std::fprintf(stderr, "the run failed\n");
        return 1;
    }
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        kiln::test::writeNpy(dir + "/output_" + std::to_string(i) + ".npy", outputs[i]);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3)
    {
        std::fprintf(stderr, "usage: onnx_run_model MODEL.onnx DIR (reads DIR/input_<i>.npy, writes DIR/output_<i>.npy)\n");
        return 2;
    }
    try
    {
        return run(argv[1], argv[2]);
    }
    catch (std::exception const& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
