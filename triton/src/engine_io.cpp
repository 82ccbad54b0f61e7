#include "engine_io.h"

#include "backend_error.h"
#include "data_types.h"
#include "server_log.h"

#include <algorithm>
#include <limits>
#include <memory>

namespace kiln::triton
{
namespace
{

std::vector<int64_t> valuesOf(nvinfer1::Dims const& dims)
{
    return std::vector<int64_t>(dims.d, dims.d + std::max(dims.nbDims, 0));
}

EngineTensor describeTensor(nvinfer1::ICudaEngine const& engine, char const* name, bool isInput)
{
    EngineTensor tensor;
    tensor.name = name;
    nvinfer1::DataType const kilnType = engine.getTensorDataType(name);
    tensor.type = tritonTypeOf(kilnType);
    if (tensor.type == TRITONSERVER_TYPE_INVALID)
    {
        throw BackendError(TRITONSERVER_ERROR_UNSUPPORTED,
            std::string(isInput ? "input" : "output") + " \"" + name
                + "\" has a type Triton cannot carry (FP8, INT4, FP4 or E8M0); make the model take and give "
                  "FP32, FP16, BF16 or integer tensors");
    }
    tensor.dims = valuesOf(engine.getTensorShape(name));
    if (isInput)
    {
        if (engine.isShapeInferenceIO(name))
        {
            throw BackendError(TRITONSERVER_ERROR_UNSUPPORTED,
                "input \"" + std::string(name) + "\" is a shape tensor, which Kiln's Triton backend does not take yet");
        }
        bool const dynamic = std::any_of(tensor.dims.begin(), tensor.dims.end(), [](int64_t d) { return d < 0; });
        tensor.minDims = dynamic ? valuesOf(engine.getProfileShape(name, 0, nvinfer1::OptProfileSelector::kMIN))
                                 : tensor.dims;
        tensor.maxDims = dynamic ? valuesOf(engine.getProfileShape(name, 0, nvinfer1::OptProfileSelector::kMAX))
                                 : tensor.dims;
    }
    return tensor;
}

//! Marks the outputs whose shape stays unknown once every input has a shape: those depend on the values.
void markDataDependentOutputs(nvinfer1::ICudaEngine& engine, EngineIo& io)
{
    if (io.outputs.empty())
    {
        return;
    }
    KilnErrorCapture errors;
    std::unique_ptr<nvinfer1::IExecutionContext> context(
        engine.createExecutionContext(nvinfer1::ExecutionContextAllocationStrategy::kUSER_MANAGED));
    if (context == nullptr)
    {
        throw BackendError(TRITONSERVER_ERROR_INTERNAL, errors.explain("cannot create an execution context"));
    }
    for (EngineTensor const& input : io.inputs)
    {
        if (!context->setInputShape(input.name.c_str(), toDims(input.minDims)))
        {
            throw BackendError(TRITONSERVER_ERROR_INTERNAL, errors.explain("cannot set the shape of " + input.name));
        }
    }
    for (EngineTensor& output : io.outputs)
    {
        nvinfer1::Dims const dims = context->getTensorShape(output.name.c_str());
        output.dataDependent = dims.nbDims < 0
            || std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; });
    }
}

} // namespace

EngineTensor const* EngineIo::firstDataDependentOutput() const
{
    auto const it = std::find_if(outputs.begin(), outputs.end(), [](EngineTensor const& t) { return t.dataDependent; });
    return it == outputs.end() ? nullptr : &*it;
}

EngineIo describeEngine(nvinfer1::ICudaEngine& engine)
{
    EngineIo io;
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        bool const isInput = engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT;
        (isInput ? io.inputs : io.outputs).push_back(describeTensor(engine, name, isInput));
    }
    markDataDependentOutputs(engine, io);
    auto const dynamicFirst = [](EngineTensor const& t) { return !t.dims.empty() && t.dims[0] < 0; };
    io.batches = !io.inputs.empty() && io.firstDataDependentOutput() == nullptr
        && std::all_of(io.inputs.begin(), io.inputs.end(), dynamicFirst)
        && std::all_of(io.outputs.begin(), io.outputs.end(), dynamicFirst)
        && std::all_of(io.inputs.begin(), io.inputs.end(), [](EngineTensor const& t) { return t.minDims[0] <= 1; });
    if (io.batches)
    {
        io.maxBatch = std::numeric_limits<int64_t>::max();
        for (EngineTensor const& input : io.inputs)
        {
            io.maxBatch = std::min(io.maxBatch, input.maxDims[0]);
        }
    }
    return io;
}

nvinfer1::Dims toDims(std::vector<int64_t> const& values)
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(values.size());
    std::copy(values.begin(), values.end(), dims.d);
    return dims;
}

std::string dimsText(std::vector<int64_t> const& dims)
{
    std::string text = "[";
    for (size_t i = 0; i < dims.size(); ++i)
    {
        text += (i == 0 ? "" : ",") + std::to_string(dims[i]);
    }
    return text + "]";
}

} // namespace kiln::triton
