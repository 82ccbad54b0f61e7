#include "input_data.h"

#include "bounded_io.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

namespace kiln::cli
{
namespace
{

std::string inputNames(nvinfer1::ICudaEngine const& engine)
{
    std::string names;
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT)
        {
            names += (names.empty() ? "" : ", ") + std::string(name);
        }
    }
    return names;
}

bool isInput(nvinfer1::ICudaEngine const& engine, std::string const& name)
{
    return engine.getTensorIOMode(name.c_str()) == nvinfer1::TensorIOMode::kINPUT;
}

//! The shape to run input `name` at.
nvinfer1::Dims chooseShape(nvinfer1::ICudaEngine const& engine, Options const& options, char const* name)
{
    if (engine.isShapeInferenceIO(name))
    {
        return engine.getTensorShape(name); // the shape flags give a shape tensor's values, not its shape
    }
    if (ShapeSpec const* spec = findSpec(options.shapes, name))
    {
        return spec->dims;
    }
    nvinfer1::Dims dims = engine.getTensorShape(name);
    bool const dynamic = std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; });
    if (dynamic && engine.getNbOptimizationProfiles() > 0)
    {
        dims = engine.getProfileShape(name, 0, nvinfer1::OptProfileSelector::kOPT);
    }
    return dims;
}

//! A shape-tensor input's values: --shapes's, as trtexec reads them, else --optShapes's (the profile this run built;
//! a plan does not keep the values of its profiles).
bool fillShapeValues(Options const& options, HostTensor& tensor, std::string& error)
{
    ShapeSpec const* spec = findSpec(options.shapes, tensor.name);
    spec = spec != nullptr ? spec : findSpec(options.optShapes, tensor.name);
    std::vector<int64_t> values;
    if (spec != nullptr)
    {
        values.assign(spec->dims.d, spec->dims.d + spec->dims.nbDims);
    }
    size_t const count = tensor.bytes.size() / elementSize(tensor.type);
    bool const integers = tensor.type == nvinfer1::DataType::kINT32 || tensor.type == nvinfer1::DataType::kINT64;
    if (values.size() != count || !integers)
    {
        error = "input \"" + tensor.name + "\" is a shape tensor of " + std::to_string(count)
            + " values; give them with --shapes=" + tensor.name + ":v0xv1... (or --loadInputs)";
        return false;
    }
    for (size_t i = 0; i < count; ++i)
    {
        if (tensor.type == nvinfer1::DataType::kINT32)
        {
            auto const value = static_cast<int32_t>(values[i]);
            std::memcpy(tensor.bytes.data() + i * sizeof(value), &value, sizeof(value));
        }
        else
        {
            std::memcpy(tensor.bytes.data() + i * sizeof(int64_t), &values[i], sizeof(int64_t));
        }
    }
    return true;
}

} // namespace

bool readRawTensor(std::string const& path, HostTensor& tensor, std::string& error)
{
    // A regular file says its size; a device or pipe is read up to the size the input needs, never further.
    std::error_code ec;
    bool const regular = std::filesystem::is_regular_file(path, ec);
    uint64_t const size = regular ? std::filesystem::file_size(path, ec) : 0;
    bool const wrongSize = regular && !ec && size != tensor.bytes.size();
    std::vector<uint8_t> bytes;
    if (!wrongSize && !readBoundedFile(path, "--loadInputs", tensor.bytes.size(), bytes, error))
    {
        error += " (input \"" + tensor.name + "\")";
        return false;
    }
    if (wrongSize || bytes.size() != tensor.bytes.size())
    {
        error = "--loadInputs: \"" + path + "\" holds " + std::to_string(wrongSize ? size : bytes.size())
            + " bytes, but input \"" + tensor.name + "\" (" + trtexecTypeName(tensor.type) + ", shape "
            + dimsSpec(tensor.dims) + ") needs " + std::to_string(tensor.bytes.size());
        return false;
    }
    tensor.bytes = std::move(bytes);
    return true;
}

bool makeInputs(
    nvinfer1::ICudaEngine const& engine, Options const& options, std::vector<HostTensor>& inputs, std::string& error)
{
    for (ShapeSpec const& spec : options.shapes)
    {
        if (!isInput(engine, spec.name))
        {
            error = "--shapes: \"" + spec.name + "\" is not an input of the network; its inputs are "
                + inputNames(engine);
            return false;
        }
    }
    std::set<std::string> loaded;
    for (NameValue const& entry : options.loadInputs)
    {
        if (!isInput(engine, entry.name))
        {
            error = "--loadInputs: \"" + entry.name + "\" is not an input of the network; its inputs are "
                + inputNames(engine);
            return false;
        }
        if (!loaded.insert(entry.name).second)
        {
            error = "--loadInputs: input \"" + entry.name + "\" is given twice";
            return false;
        }
    }

    inputs.clear();
    uint32_t seed = 1;
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        if (engine.getTensorIOMode(name) != nvinfer1::TensorIOMode::kINPUT)
        {
            continue;
        }
        HostTensor tensor{name, engine.getTensorDataType(name), chooseShape(engine, options, name), {}};
        if (std::any_of(tensor.dims.d, tensor.dims.d + tensor.dims.nbDims, [](int64_t d) { return d < 0; }))
        {
            error = "input \"" + tensor.name + "\" has dynamic dimensions (" + dimsSpec(tensor.dims)
                + "); give its shape with --shapes=" + tensor.name + ":...";
            return false;
        }
        size_t const size = elementSize(tensor.type);
        if (size == 0)
        {
            error = "input \"" + tensor.name + "\" is " + trtexecTypeName(tensor.type) + ", which kiln cannot fill";
            return false;
        }
        std::optional<size_t> const bytes = tensorByteSize(tensor.type, tensor.dims);
        if (!bytes)
        {
            error = "input \"" + tensor.name + "\" (" + trtexecTypeName(tensor.type) + ", shape "
                + dimsSpec(tensor.dims) + ") has more elements or bytes than 64 bits count";
            return false;
        }
        if (!allocateTensorBytes(tensor, "input", *bytes, error))
        {
            return false;
        }
        auto const file = std::find_if(options.loadInputs.begin(), options.loadInputs.end(),
            [&](NameValue const& entry) { return entry.name == tensor.name; });
        if (file != options.loadInputs.end())
        {
            if (!readRawTensor(file->value, tensor, error))
            {
                return false;
            }
        }
        else if (engine.isShapeInferenceIO(name))
        {
            if (!fillShapeValues(options, tensor, error))
            {
                return false;
            }
        }
        else
        {
            fillRandom(tensor, seed);
        }
        ++seed;
        inputs.push_back(std::move(tensor));
    }
    return true;
}

} // namespace kiln::cli
