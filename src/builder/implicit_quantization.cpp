#include "builder/implicit_quantization.h"

#include "core/data_type.h"
#include "core/quantization.h"
#include "device_common/element_size.h"
#include "network/layers/constant.h"
#include "network/layers/convolution.h"
#include "network/layers/matrix_multiply.h"
#include "network/layers/quantize.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

namespace kiln::builder
{

std::vector<float> quantizeWeightsPerChannel(std::vector<float> const& values, int64_t channels, int64_t channelStride)
{
    auto const channelOf
        = [&](size_t i) { return static_cast<size_t>((static_cast<int64_t>(i) / channelStride) % channels); };
    std::vector<float> largest(static_cast<size_t>(channels), 0.0F);
    for (size_t i = 0; i < values.size(); ++i)
    {
        largest[channelOf(i)] = std::max(largest[channelOf(i)], std::fabs(values[i]));
    }
    std::vector<float> quantized(values.size());
    for (size_t i = 0; i < values.size(); ++i)
    {
        float const scale = largest[channelOf(i)] / 127.0F;
        quantized[i] = scale > 0.0F ? dequantizeInt8(quantizeToInt8(values[i], scale), scale) : values[i];
    }
    return quantized;
}

namespace
{

using plan::LayerRecord;
using plan::PlanModel;
using plan::TensorRecord;

network::WeightsBuffer quantizedWeights(network::WeightsBuffer const& weights, int64_t channels, int64_t stride)
{
    std::vector<float> const values = quantizeWeightsPerChannel(weights.toFloat(), channels, stride);
    network::WeightsBuffer const asFloat(
        nvinfer1::Weights{nvinfer1::DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())});
    return weights.type() == nvinfer1::DataType::kFLOAT ? asFloat : asFloat.storedAs(weights.type());
}

class ImplicitQuantizer
{
public:
    ImplicitQuantizer(PlanModel& model, std::unordered_map<std::string, float> const& scales)
        : mModel(model)
        , mScales(scales)
        , mProducers(plan::producersOf(model))
    {
    }

    ImplicitQuantization run()
    {
        // The original list stays whole: a layer's producers are looked up in it by their old indices.
        std::vector<LayerRecord> const layers = std::move(mModel.layers);
        mModel.layers.clear();
        for (LayerRecord layer : layers)
        {
            bool const quantizable = layer.type == nvinfer1::LayerType::kCONVOLUTION
                || layer.type == nvinfer1::LayerType::kMATRIX_MULTIPLY;
            if (quantizable)
            {
                std::string const why = quantize(layer, layers);
                if (why.empty())
                {
                    ++mResult.quantizedLayers;
                }
                else
                {
                    mResult.unquantized.push_back("\"" + layer.name + "\": " + why);
                }
            }
            mModel.layers.push_back(std::move(layer));
        }
        removeUnreadConstants();
        return std::move(mResult);
    }

private:
    //! Why `layer` stays in floating point, or empty after rewriting it.
    std::string quantize(LayerRecord& layer, std::vector<LayerRecord> const& original)
    {
        std::vector<size_t> activations;
        std::vector<std::pair<size_t, network::ConstantParams const*>> weights;
        for (size_t slot = 0; slot < layer.inputs.size(); ++slot)
        {
            int32_t const t = layer.inputs[slot];
            if (t < 0)
            {
                continue;
            }
            int64_t const producer = mProducers[static_cast<size_t>(t)];
            network::ConstantParams const* constant
                = producer >= 0 ? plan::fixedConstant(original[static_cast<size_t>(producer)]) : nullptr;
            if (layer.type == nvinfer1::LayerType::kCONVOLUTION && slot > 0)
            {
                return "its kernel or bias is a tensor, not weights";
            }
            if (constant != nullptr && isFloatType(constant->weights.type()))
            {
                weights.emplace_back(slot, constant);
                continue;
            }
            std::string const why = activationProblem(t);
            if (!why.empty())
            {
                return why;
            }
            activations.push_back(slot);
        }
        if (layer.type == nvinfer1::LayerType::kCONVOLUTION)
        {
            auto const* conv = plan::paramsOf<network::ConvolutionParams>(layer);
            if (conv->kernel.refit)
            {
                return "its weights are refittable";
            }
            auto params = std::make_shared<network::ConvolutionParams>(*conv);
            params->kernel
                = quantizedWeights(conv->kernel, conv->nbOutputMaps, conv->kernel.count() / conv->nbOutputMaps);
            layer.params = std::move(params);
        }
        for (auto const& [slot, constant] : weights)
        {
            layer.inputs[slot] = quantizedConstant(layer, slot, *constant);
        }
        for (size_t slot : activations)
        {
            layer.inputs[slot] = dequantizedTensor(layer.inputs[slot]);
        }
        return {};
    }

    //! Why tensor t cannot be quantized as an activation, or empty.
    std::string activationProblem(int32_t t) const
    {
        TensorRecord const& tensor = mModel.tensors[static_cast<size_t>(t)];
        if (!isFloatType(tensor.type))
        {
            return "input \"" + tensor.name + "\" is not floating-point";
        }
        auto const scale = mScales.find(tensor.name);
        if (scale == mScales.end())
        {
            return "input \"" + tensor.name + "\" has no dynamic range (setDynamicRange or calibration)";
        }
        if (!(scale->second > 0.0F) || !std::isfinite(scale->second))
        {
            return "input \"" + tensor.name + "\" has a dynamic range of 0";
        }
        return {};
    }

    //! A new constant holding matrix multiply `layer`'s constant operand `slot` quantized per output channel.
    int32_t quantizedConstant(LayerRecord const& layer, size_t slot, network::ConstantParams const& constant)
    {
        auto const* product = plan::paramsOf<network::MatrixMultiplyParams>(layer);
        nvinfer1::MatrixOperation const op = slot == 0 ? product->op0 : product->op1;
        nvinfer1::Dims const& dims = constant.dimensions;
        // The output's channels: the columns of the second operand, the rows of the first (as transposed).
        bool const lastAxis = (slot == 1) == (op == nvinfer1::MatrixOperation::kNONE);
        int32_t const axis = op == nvinfer1::MatrixOperation::kVECTOR || dims.nbDims < 2 ? -1
            : lastAxis                                                                   ? dims.nbDims - 1
                                                                                         : dims.nbDims - 2;
        int64_t channels = 1;
        int64_t stride = 1;
        if (axis >= 0)
        {
            channels = dims.d[axis];
            stride = axis == dims.nbDims - 1 ? 1 : dims.d[dims.nbDims - 1];
        }
        auto params = std::make_shared<network::ConstantParams>(constant);
        params->weights = quantizedWeights(constant.weights, channels, stride);
        TensorRecord const& source = mModel.tensors[static_cast<size_t>(layer.inputs[slot])];
        int32_t const output = addTensor(source.name + " (INT8 weights)", source.type, layer.inputs[slot]);
        mModel.tensors[static_cast<size_t>(output)].maxBytes = source.maxBytes;
        LayerRecord record;
        record.type = nvinfer1::LayerType::kCONSTANT;
        record.name = layer.name + " INT8 weights";
        record.outputs = {output};
        record.params = std::move(params);
        mModel.layers.push_back(std::move(record));
        return output;
    }

    //! Tensor t read through a quantize and a dequantize layer of its scale (made once per tensor).
    int32_t dequantizedTensor(int32_t t)
    {
        if (auto const done = mDequantized.find(t); done != mDequantized.end())
        {
            return done->second;
        }
        TensorRecord const source = mModel.tensors[static_cast<size_t>(t)];
        float const scale = mScales.at(source.name);
        int32_t const scaleTensor = addTensor(source.name + " (INT8 scale)", nvinfer1::DataType::kFLOAT, -1);
        mModel.tensors[static_cast<size_t>(scaleTensor)].maxBytes = sizeof(float);
        auto scaleParams = std::make_shared<network::ConstantParams>();
        scaleParams->weights = network::WeightsBuffer(nvinfer1::Weights{nvinfer1::DataType::kFLOAT, &scale, 1});
        addLayer(nvinfer1::LayerType::kCONSTANT, source.name + " INT8 scale", {}, scaleTensor, std::move(scaleParams),
            std::nullopt);

        int32_t const quantized = addTensor(source.name + " (quantized)", nvinfer1::DataType::kINT8, t);
        int64_t const elements = source.maxBytes / static_cast<int64_t>(std::max<size_t>(elementSize(source.type), 1));
        mModel.tensors[static_cast<size_t>(quantized)].maxBytes = elements;
        auto quantizeParams = std::make_shared<network::QuantizeParams>();
        quantizeParams->toType = nvinfer1::DataType::kINT8;
        addLayer(nvinfer1::LayerType::kQUANTIZE, source.name + " implicit quantize", {t, scaleTensor}, quantized,
            std::move(quantizeParams), source.type);

        int32_t const dequantized = addTensor(source.name + " (dequantized)", source.type, t);
        mModel.tensors[static_cast<size_t>(dequantized)].maxBytes = source.maxBytes;
        auto dequantizeParams = std::make_shared<network::DequantizeParams>();
        dequantizeParams->toType = source.type;
        addLayer(nvinfer1::LayerType::kDEQUANTIZE, source.name + " implicit dequantize", {quantized, scaleTensor},
            dequantized, std::move(dequantizeParams), source.type);
        mDequantized[t] = dequantized;
        return dequantized;
    }

    //! Appends a layer of `type` reading `inputs` and writing `output`, computing in `precision`.
    void addLayer(nvinfer1::LayerType type, std::string name, std::vector<int32_t> inputs, int32_t output,
        std::shared_ptr<network::LayerParams const> params, std::optional<nvinfer1::DataType> precision)
    {
        LayerRecord layer;
        layer.type = type;
        layer.name = std::move(name);
        layer.inputs = std::move(inputs);
        layer.outputs = {output};
        layer.params = std::move(params);
        layer.precision = precision;
        mModel.layers.push_back(std::move(layer));
    }

    //! A new tensor of `type` with the dimensions of tensor `shapedAs` (-1: a scalar).
    int32_t addTensor(std::string name, nvinfer1::DataType type, int32_t shapedAs)
    {
        TensorRecord tensor;
        tensor.name = std::move(name);
        tensor.type = type;
        if (shapedAs >= 0)
        {
            tensor.dims = mModel.tensors[static_cast<size_t>(shapedAs)].dims;
        }
        auto const index = static_cast<int32_t>(mModel.tensors.size());
        mModel.tensors.push_back(std::move(tensor));
        mResult.addedTensors.emplace_back(index, shapedAs);
        return index;
    }

    //! The constants whose only readers now read quantized copies.
    void removeUnreadConstants()
    {
        std::vector<std::vector<size_t>> const readers = plan::readersOf(mModel);
        std::vector<bool> unread(mModel.layers.size(), false);
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            LayerRecord const& layer = mModel.layers[l];
            unread[l] = layer.type == nvinfer1::LayerType::kCONSTANT && layer.outputs.size() == 1
                && readers[static_cast<size_t>(layer.outputs[0])].empty()
                && !plan::isObserved(mModel.tensors[static_cast<size_t>(layer.outputs[0])]);
        }
        plan::eraseLayers(mModel, unread);
    }

    PlanModel& mModel;
    std::unordered_map<std::string, float> const& mScales;
    std::vector<int64_t> const mProducers; //!< by tensor, in the plan as it was
    std::unordered_map<int32_t, int32_t> mDequantized;
    ImplicitQuantization mResult;
};

} // namespace

ImplicitQuantization quantizeImplicitly(plan::PlanModel& model, std::unordered_map<std::string, float> const& scales)
{
    return ImplicitQuantizer(model, scales).run();
}

} // namespace kiln::builder
