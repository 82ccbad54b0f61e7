// Benchmark: the cost of defining a network. (1) Adds N layers through INetworkDefinition (a chain of element-wise
// sums, shuffles with a parameter set after the add, and unary layers, each asking its output's shape as the ONNX
// parser does), for N = 10,000 and 20,000 by default, and prints the total and the time per layer: construction is
// linear when the two per-layer figures agree. (2) With --onnx, parses an ONNX file with Kiln's parser and prints the
// wall and processor time. Prints figures; CTest never runs it. bench/README.md says how to run it.
#include "machine_facts.h"

#include <NvInfer.h>
#include <NvOnnxParser.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using Clock = std::chrono::steady_clock;

class StderrLogger final : public ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "kiln: %s\n", message);
        }
    }
};

struct Timing
{
    double wallSeconds{0};
    double cpuSeconds{0};
};

//! Wall and processor time of `work`.
template <typename Work>
Timing timed(Work&& work)
{
    std::clock_t const cpuStart = std::clock();
    auto const start = Clock::now();
    work();
    Timing timing;
    timing.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    timing.cpuSeconds = static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    return timing;
}

//! Adds `count` layers after a [-1, 8] input; false (with a message) if the network rejects one.
bool addLayers(INetworkDefinition& network, long count)
{
    ITensor* input = network.addInput("x", DataType::kFLOAT, Dims{2, {-1, 8}});
    ITensor* current = input;
    for (long i = 0; i < count; ++i)
    {
        ILayer* layer = nullptr;
        switch (i % 3)
        {
        case 0: layer = network.addElementWise(*current, *input, ElementWiseOperation::kSUM); break;
        case 1:
        {
            IShuffleLayer* shuffle = network.addShuffle(*current);
            if (shuffle != nullptr)
            {
                shuffle->setReshapeDimensions(Dims{2, {-1, 8}}); // a setter after the add, as importers do
            }
            layer = shuffle;
            break;
        }
        default: layer = network.addUnary(*current, UnaryOperation::kABS); break;
        }
        if (layer == nullptr)
        {
            std::fprintf(stderr, "the network rejected layer %ld\n", i);
            return false;
        }
        current = layer->getOutput(0);
        if (current->getDimensions().nbDims != 2) // importers ask a shape after nearly every add
        {
            std::fprintf(stderr, "layer %ld has the wrong rank\n", i);
            return false;
        }
    }
    network.markOutput(*current);
    return true;
}

int benchLayers(std::vector<long> const& counts)
{
    StderrLogger logger;
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    std::printf("%-10s %12s %12s %16s\n", "layers", "wall (s)", "cpu (s)", "per layer (us)");
    for (long count : counts)
    {
        std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
        bool ok = true;
        Timing const t = timed([&] { ok = addLayers(*network, count); });
        if (!ok)
        {
            return 1;
        }
        std::printf("%-10ld %12.3f %12.3f %16.2f\n", count, t.wallSeconds, t.cpuSeconds,
            t.wallSeconds * 1e6 / static_cast<double>(count));
    }
    return 0;
}

int benchOnnx(char const* path)
{
    StderrLogger logger;
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    bool ok = false;
    Timing const t
        = timed([&] { ok = parser->parseFromFile(path, static_cast<int32_t>(ILogger::Severity::kWARNING)); });
    if (!ok)
    {
        for (int32_t i = 0; i < parser->getNbErrors(); ++i)
        {
            std::fprintf(stderr, "%s\n", parser->getError(i)->desc());
        }
        return 1;
    }
    int32_t constants = 0;
    for (int32_t i = 0; i < network->getNbLayers(); ++i)
    {
        constants += network->getLayer(i)->getType() == LayerType::kCONSTANT ? 1 : 0;
    }
    std::printf("parsed %s: %d layers (%d constant layers), %.3f s wall, %.3f s cpu\n", path, network->getNbLayers(),
        constants, t.wallSeconds, t.cpuSeconds);
    return 0;
}

void printUsage(std::FILE* stream, char const* program)
{
    std::fprintf(stream,
        "usage: %s [--layers N[,N...]] [--onnx model.onnx]\n"
        "  --layers  layer counts to add through the API (default 10000,20000)\n"
        "  --onnx    also time parsing this ONNX file\n",
        program);
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<long> counts{10000, 20000};
    char const* onnx = nullptr;
    for (int i = 1; i < argc; ++i)
    {
        if (std::strcmp(argv[i], "--layers") == 0 && i + 1 < argc)
        {
            counts.clear();
            for (char* next = argv[++i]; *next != '\0';)
            {
                char* end = nullptr;
                long const value = std::strtol(next, &end, 10);
                if (end == next || value <= 0)
                {
                    printUsage(stderr, argv[0]);
                    return 2;
                }
                counts.push_back(value);
                next = *end == ',' ? end + 1 : end;
            }
        }
        else if (std::strcmp(argv[i], "--onnx") == 0 && i + 1 < argc)
        {
            onnx = argv[++i];
        }
        else
        {
            printUsage(std::strcmp(argv[i], "--help") == 0 ? stdout : stderr, argv[0]);
            return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    kiln_bench::MachineFacts const facts = kiln_bench::collectMachineFacts();
    std::printf("machine: %s, %u logical cores, load average %s; build %s, %s\n", facts.cpuModel.c_str(),
        facts.logicalCores, facts.loadAverage.c_str(), facts.buildType.c_str(), facts.compiler.c_str());
    int const status = benchLayers(counts);
    if (status != 0 || onnx == nullptr)
    {
        return status;
    }
    return benchOnnx(onnx);
}
