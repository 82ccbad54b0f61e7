#include "reference_compare.h"

#include "cli_logger.h"
#include "context_buffers.h"
#include "engine_build.h"
#include "loaded_engine.h"
#include "spec_parsing.h"
#include "tensor_comparison.h"

#include <sstream>

namespace kiln::cli
{
namespace
{

//! Builds the model per request and runs it once on inputs; false after logging why.
bool buildAndRun(Options const& options, BuildRequest const& request, std::vector<HostTensor> const& inputs,
    char const* role, std::vector<HostTensor>& outputs, std::vector<LayerOutputs>* layers)
{
    std::unique_ptr<nvinfer1::IHostMemory> plan = buildFromOnnx(options, request, layers);
    LoadedEngine loaded;
    if (plan == nullptr || !loadEngine(plan->data(), plan->size(), std::string("the ") + role + " build", loaded))
    {
        logError(std::string("--compare: cannot build the ") + role);
        return false;
    }
    ContextBuffers buffers;
    std::string error;
    InferenceTrace ignored;
    StreamSettings const settings{
        request.backend, options.device, true, false, false, options.threads, options.fixedThreads};
    if (!buffers.setUp(*loaded.engine, inputs, settings, error)
        || !buffers.infer(std::chrono::steady_clock::now(), ignored, error))
    {
        logError(std::string("--compare: cannot run the ") + role + (error.empty() ? "" : ": " + error));
        return false;
    }
    outputs = buffers.outputs();
    return true;
}

HostTensor const* find(std::vector<HostTensor> const& tensors, std::string const& name)
{
    for (HostTensor const& t : tensors)
    {
        if (t.name == name)
        {
            return &t;
        }
    }
    return nullptr;
}

std::string format(double value)
{
    std::ostringstream s;
    s << value;
    return s.str();
}

bool compareOutputs(
    std::vector<HostTensor> const& actual, std::vector<HostTensor> const& reference, Tolerance const& tolerance)
{
    bool allPassed = true;
    for (HostTensor const& ref : reference)
    {
        HostTensor const* under = find(actual, ref.name);
        if (under == nullptr)
        {
            logError("output \"" + ref.name + "\" of the reference is missing from the run under test");
            allPassed = false;
            continue;
        }
        TensorComparison const c = compareTensors(*under, ref, tolerance);
        std::string const line = "Output \"" + ref.name + "\" (" + dimsSpec(ref.dims) + "): " + c.describe() + ": "
            + (c.passed() ? "PASSED" : "FAILED");
        c.passed() ? logInfo(line) : logError(line);
        allPassed = allPassed && c.passed();
    }
    return allPassed;
}

//! Compares layer by layer in network order; names the first layer whose output is outside the tolerance.
bool compareLayers(std::vector<LayerOutputs> const& layers, std::vector<HostTensor> const& actual,
    std::vector<HostTensor> const& reference, Tolerance const& tolerance)
{
    logInfo("=== Layer-by-layer comparison (" + std::to_string(layers.size()) + " layers, in network order) ===");
    for (LayerOutputs const& layer : layers)
    {
        for (std::string const& tensor : layer.tensors)
        {
            HostTensor const* under = find(actual, tensor);
            HostTensor const* ref = find(reference, tensor);
            if (under == nullptr || ref == nullptr)
            {
                logWarning("Layer \"" + layer.layer + "\" output \"" + tensor + "\": not produced by "
                    + (ref == nullptr ? "the reference" : "the run under test") + "; skipped");
                continue;
            }
            TensorComparison const c = compareTensors(*under, *ref, tolerance);
            logInfo("Layer \"" + layer.layer + "\" output \"" + tensor + "\" (" + dimsSpec(ref->dims)
                + "): " + c.describe() + ": " + (c.passed() ? "OK" : "DIVERGES"));
            if (!c.passed())
            {
                logError("First diverging layer: \"" + layer.layer + "\" (output \"" + tensor + "\"): " + c.describe());
                return false;
            }
        }
    }
    logInfo("Every layer's outputs are within the tolerance");
    return true;
}

} // namespace

bool compareWithReference(
    Options const& options, std::vector<HostTensor> const& inputs, std::vector<HostTensor> const& outputs)
{
    Tolerance const tolerance{options.atol, options.rtol};
    logInfo("");
    logInfo("=== Comparison with the CPU reference (FP32) ===");
    logInfo("Run under test: " + std::string(backendName(options.backend)) + " backend, "
        + (options.fp16 ? "FP16 allowed" : "FP32") + "; tolerance: atol = " + format(tolerance.atol)
        + ", rtol = " + format(tolerance.rtol) + " (|actual - reference| <= atol + rtol * |reference|)");

    BuildRequest reference{Backend::kCPU, false, options.compareLayers, false, CpuKernels::kREFERENCE};
    std::vector<HostTensor> referenceOutputs;
    std::vector<LayerOutputs> layers;
    if (!buildAndRun(options, reference, inputs, "CPU reference", referenceOutputs, &layers))
    {
        return false;
    }
    bool passed = false;
    if (options.compareLayers)
    {
        BuildRequest underTest{options.backend, options.fp16, true, false, options.cpuKernels};
        std::vector<HostTensor> actual;
        std::vector<LayerOutputs> unused;
        if (!buildAndRun(options, underTest, inputs, "run under test (every layer output marked)", actual, &unused))
        {
            return false;
        }
        passed = compareLayers(layers, actual, referenceOutputs, tolerance);
    }
    else
    {
        passed = compareOutputs(outputs, referenceOutputs, tolerance);
    }
    if (passed)
    {
        logInfo("Comparison with the CPU reference: PASSED");
    }
    else
    {
        logError("Comparison with the CPU reference: FAILED");
    }
    return passed;
}

} // namespace kiln::cli
