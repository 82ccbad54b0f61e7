// onnx_run_model MODEL DIR [--backend=cpu|cuda]: parses an ONNX model with Kiln's parser, builds it for the CPU
// backend (the default) or the CUDA backend, runs it on DIR/input_<i>.npy (network input i, in the graph's order)
// and writes DIR/output_<i>.npy. The Python tests in architectures/ compare those outputs with ONNX Runtime's.
// Exits 1 with the parser's, builder's or CUDA's errors, and 77 (CTest's skip code) when --backend=cuda cannot run
// here: a build without the CUDA backend, or no usable GPU.
#include "model_runner.h"
#include "npy_file.h"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

namespace
{

constexpr int kSkip = 77; // the Python test and CTest report this exit code as "skipped"

int run(std::string const& modelPath, std::string const& dir, kiln::Backend backend)
{
    std::vector<kiln::test::HostTensor> inputs;
    for (int i = 0; std::filesystem::exists(dir + "/input_" + std::to_string(i) + ".npy"); ++i)
    {
        inputs.push_back(kiln::test::readNpy(dir + "/input_" + std::to_string(i) + ".npy"));
    }
    kiln::test::ModelRun const result = kiln::test::runOnnxModel(modelPath, inputs, backend);
    if (!result.error.empty())
    {
        std::fprintf(stderr, "%s%s\n", result.skipped ? "--backend=cuda: " : "", result.error.c_str());
        return result.skipped ? kSkip : 1;
    }
    for (size_t i = 0; i < result.outputs.size(); ++i)
    {
        kiln::test::writeNpy(dir + "/output_" + std::to_string(i) + ".npy", result.outputs[i]);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    kiln::Backend backend = kiln::Backend::kCPU;
    std::vector<std::string> positional;
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        if (arg == "--backend=cpu")
        {
            backend = kiln::Backend::kCPU;
        }
        else if (arg == "--backend=cuda")
        {
            backend = kiln::Backend::kCUDA;
        }
        else if (arg.rfind("--", 0) != 0)
        {
            positional.push_back(arg);
        }
        else
        {
            positional.clear(); // an unknown option: print the usage
            break;
        }
    }
    if (positional.size() != 2)
    {
        std::fprintf(stderr,
            "usage: onnx_run_model MODEL.onnx DIR [--backend=cpu|cuda] (reads DIR/input_<i>.npy, "
            "writes DIR/output_<i>.npy; the default backend is cpu)\n");
        return 2;
    }
    try
    {
        return run(positional[0], positional[1], backend);
    }
    catch (std::exception const& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
