// Which precision each built-in layer computes its floating-point data in, and which type
// each tensor is stored in: FP32 by default; FP16 (kFP16) or BF16 (kBF16) where the builder
// may reduce precision; a layer's own ILayer::setPrecision where kOBEY_PRECISION_CONSTRAINTS
// or kPREFER_PRECISION_CONSTRAINTS asks for it. NMS layers and the layers computing only their
// boxes stay FP32 (coordinates shifted apart per class). Network inputs and outputs keep their
// declared types, and types asked for with setOutputType or ITensor::setType are kept.
// Plugins are not chosen for here: they negotiate their own types (prepare_plugin.h).
#pragma once

#include "network/layer.h"
#include "network/network.h"

#include <NvInferBuilder.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::builder
{

struct PrecisionChoice
{
    //! Built-in layers that compute on floating-point data: the precision they compute in.
    std::unordered_map<network::Layer const*, nvinfer1::DataType> layers;
    //! Every tensor of the network: the type it is stored in.
    std::unordered_map<network::Tensor const*, nvinfer1::DataType> storage;

    std::optional<nvinfer1::DataType> precisionOf(network::Layer const& layer) const;

    //! The types `layer` reads and writes (inputs, then outputs); empty where they all equal the tensors' types.
    std::vector<nvinfer1::DataType> ioTypes(network::Layer const& layer) const;
};

//! False with `error` naming the layer when a precision constraint cannot be obeyed.
bool choosePrecisions(network::Network const& network, std::vector<network::Layer const*> const& order,
    network::NetworkFacts const& facts, nvinfer1::IBuilderConfig const& config, PrecisionChoice& choice,
    std::string& error);

} // namespace kiln::builder
