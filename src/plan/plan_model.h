// What a plan holds, in memory. The builder fills one in and writes it
// (plan_format.h); the runtime reads one back and builds an engine from it.
#pragma once

#include "core/data_type.h"
#include "network/layer.h"
#include "network/weights_buffer.h"

#include <kiln/Backend.h>

#include <NvInfer.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::plan
{

//! One node of the shape-expression table; operands refer to earlier nodes.
struct ExprNode
{
    uint8_t kind{0}; //!< shape::ExprKind
    nvinfer1::DimensionOperation op{nvinfer1::DimensionOperation::kSUM};
    int64_t value{0};   //!< constants
    int32_t symbol{-1}; //!< symbols and size tensors: index into PlanModel::symbols
    int32_t first{-1};  //!< operations: node indices; size tensors: the optimum's node
    int32_t second{-1}; //!< size tensors: the upper bound's node
};

//! A value known only at run time: dimension `axis` of input `tensor`, or (kVALUE) element `axis` of a shape-tensor
//! input, which the application passes in host memory as TensorRT's shape tensors are, or (kSIZE) the value of a size
//! tensor: the 0-D INT32/INT64 `tensor` that the layer producing it writes, read once that layer has run (axis 0).
struct SymbolRecord
{
    enum class Kind : uint8_t
    {
        kDIMENSION = 0,
        kVALUE = 1,
        kSIZE = 2,
    };
    int32_t tensor{-1};
    int32_t axis{-1};
    Kind kind{Kind::kDIMENSION};
};

//! Whether an execution context may give a tensor's values to its IDebugListener (IExecutionContext::setDebugListener).
enum class DebugMark : uint8_t
{
    kNONE = 0,
    //! INetworkDefinition::markDebug: every pass keeps the tensor as itself (not fused away, row-major, in memory).
    kMARKED = 1,
    //! INetworkDefinition::markUnfusedTensorsAsDebugTensors: a tensor the passes left in memory, row-major, that was
    //! not marked; IExecutionContext::setUnfusedTensorsDebugState turns these on.
    kUNFUSED = 2,
};

struct TensorRecord
{
    std::string name;
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    //! How the tensor is stored: kLINEAR, or kHWC inside the FP16 convolution chains of CUDA plans.
    nvinfer1::TensorFormat format{nvinfer1::TensorFormat::kLINEAR};
    std::vector<int32_t> dims;                  //!< expression node per dimension
    std::optional<std::vector<int32_t>> values; //!< shape tensors: expression node per value
    nvinfer1::TensorIOMode ioMode{nvinfer1::TensorIOMode::kNONE};
    //! Where the tensor lives in a context's activation memory; -1 for I/O and shape-only tensors.
    int64_t arenaOffset{-1};
    int64_t maxBytes{0};
    //! A view (builder/view_layers.h): the tensor has no memory of its own but is bytes of tensor `viewOf` (itself
    //! never a view), from element `viewOffset` on (an expression node, in elements of the type both have); the
    //! layer writing it does not run. -1 for every other tensor.
    int32_t viewOf{-1};
    int32_t viewOffset{-1};
    //! A view's bounds as an expression node that is 0 where the view lies inside `viewOf` for the run's shapes
    //! (a slice's start within its input, as kSTRICT_BOUNDS asks), and positive where it does not; -1 where the
    //! builder proved it inside for every shape.
    int32_t viewCheck{-1};
    DebugMark debug{DebugMark::kNONE};
};

//! Whether the application sees tensor `t` as itself: a network input or output, or a tensor marked as a debug tensor.
//! Build passes keep such a tensor: they fuse no layer that writes it into another and keep it row-major.
inline bool isObserved(TensorRecord const& t)
{
    return t.ioMode != nvinfer1::TensorIOMode::kNONE || t.debug == DebugMark::kMARKED;
}

//! What a backend's fusion pass folded into a layer after its own computation (never set through the API): the layer
//! writes f(result + bias + residual), f its activation, each part only where it is set.
struct Epilogue
{
    //! Rows of N values, N the output's last extent (a matrix multiply's columns); empty: none. With one row, every
    //! row of the output adds it. With R rows the output is R equal blocks one after another, and block r adds row
    //! r: products of one input merged into one (backend/cuda/passes/product_merging.h) keep each product's bias.
    network::WeightsBuffer bias;
    bool addsResidual{false}; //!< the layer's last input, shaped as its output, is added (a ResNet shortcut)
    //! Applied last where `activates`: the activation an IActivationLayer of this type, alpha and beta computes.
    bool activates{false};
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.0F};
    float beta{0.0F};
    //! Where `activates`: the layer writes its value times the activation of it, x * f(x), rather than f(x): the
    //! self-gated activations that networks write as an activation and a product, SiLU (x * sigmoid(x)) and
    //! hard-swish (x * hard_sigmoid(x)).
    bool selfGated{false};

    bool any() const
    {
        return !bias.empty() || addsResidual || activates;
    }
    bool relu() const
    {
        return activates && activation == nvinfer1::ActivationType::kRELU;
    }
    void setRelu()
    {
        activates = true;
        activation = nvinfer1::ActivationType::kRELU;
        alpha = 0.0F;
        beta = 0.0F;
    }
    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.bias, "fused bias");
        field(self.addsResidual, "fused residual");
        field(self.activates, "fused activation present");
        field(self.activation, "fused activation");
        field(self.alpha, "fused activation alpha");
        field(self.beta, "fused activation beta");
        field(self.selfGated, "fused activation self-gated");
    }
};

//! A condition a layer runs under: the 0-D BOOL tensor `condition` holds `value`.
struct Guard
{
    int32_t condition{-1};
    bool value{true};

    bool operator==(Guard const& other) const
    {
        return condition == other.condition && value == other.value;
    }
};

struct LayerRecord
{
    nvinfer1::LayerType type{nvinfer1::LayerType::kIDENTITY};
    std::string name;
    std::vector<int32_t> inputs;  //!< tensor indices; -1 for an optional input not given
    std::vector<int32_t> outputs; //!< tensor indices
    //! The layer's description (network/layers/, or a plugin's network::PluginParams). Shared, never changed: a pass
    //! that changes a layer gives it new parameters.
    std::shared_ptr<network::LayerParams const> params;
    //! The precision the builder chose for a built-in layer's floating-point data; none for layers that do not
    //! compute on floating-point data, and for plugins (their types are negotiated and kept in their params).
    std::optional<nvinfer1::DataType> precision;
    //! The types the layer reads and writes, inputs then outputs; empty when they are the tensors' own types.
    //! Where one differs from its tensor's type, the runtime converts (TensorRT's reformatting).
    std::vector<nvinfer1::DataType> ioTypes;
    //! The formats the layer reads and writes, likewise; empty when they are the tensors' own formats.
    std::vector<nvinfer1::TensorFormat> ioFormats;
    Epilogue epilogue;
    //! What the plan's backend chose for the layer (the CUDA backend: a convolution's timed algorithm), in that
    //! backend's own encoding; empty where it chose nothing.
    std::vector<uint8_t> backendChoice;
    //! The conditions under which the layer's results are needed (only one side of some conditionals needs them):
    //! it runs only when all hold. Empty: it always runs.
    std::vector<Guard> guards;
};

//! A conditional's output (its branches' tensors, then the condition): the execution context runs it, copying the
//! branch that ran; no backend has a kernel for it.
inline bool isConditionalOutput(LayerRecord const& layer)
{
    return layer.type == nvinfer1::LayerType::kCONDITIONAL_OUTPUT;
}

//! Per I/O input tensor (in ioTensors order, inputs only): kMIN, kOPT, kMAX.
struct ProfileRecord
{
    std::vector<std::array<nvinfer1::Dims, 3>> inputs;
};

//! A plugin the plan needs, and the library its creator came from when the plan was built.
struct PluginRequirement
{
    std::string name;
    std::string version;
    std::string pluginNamespace;
    std::string interfaceKind; //!< "IPluginV2", "IPluginV2Ext", "IPluginV2IOExt", "IPluginV2DynamicExt", "IPluginV3"
    std::string library;       //!< empty when it came from the application itself
};

//! Weights a refitter may replace (BuilderFlag::kREFIT, kREFIT_INDIVIDUAL): the weights of `role` in layer `layer`'s
//! parameters (network::LayerParams::weightsOfRole), floating-point, which no build pass combined with others or
//! transformed beyond storing them in another floating-point type.
struct RefitRecord
{
    std::string name;      //!< INetworkDefinition::setWeightsName's; "" where they have none
    std::string layerName; //!< the network layer's name, by which IRefitter::setWeights finds them
    int32_t layer{-1};     //!< the plan layer
    nvinfer1::WeightsRole role{nvinfer1::WeightsRole::kANY};
};

struct PlanModel
{
    Backend backend{Backend::kCPU};
    std::string networkName;
    std::vector<PluginRequirement> manifest;
    std::vector<ExprNode> exprs;
    std::vector<SymbolRecord> symbols;
    std::vector<TensorRecord> tensors;
    std::vector<int32_t> ioTensors; //!< I/O tensors in getIOTensorName order
    std::vector<LayerRecord> layers;
    std::vector<ProfileRecord> profiles;
    std::vector<RefitRecord> refittable;
    int64_t arenaBytes{0};
    int64_t workspaceBytes{0};
};

//! Every tensor's offset in the activation memory is a multiple of this (the builder's memory plan aligns each buffer
//! so), so that kernels may read and write whole vectors of any element type; a plan read back is held to it.
inline constexpr int64_t kArenaAlignment = 256;

//! Whether every output of layer `l` is a shape tensor whose values the plan gives as expressions of the input
//! shapes: such a layer can be computed on the host without running it (the CUDA backend does so).
inline bool computesShapesOnly(PlanModel const& model, size_t l)
{
    for (int32_t t : model.layers[l].outputs)
    {
        TensorRecord const& tensor = model.tensors[t];
        if (!tensor.values.has_value() || !isIndexType(tensor.type))
        {
            return false;
        }
    }
    return !model.layers[l].outputs.empty();
}

//! Whether `layer` only makes a view of its input (its output is a view: TensorRecord::viewOf): it runs nothing.
inline bool isView(PlanModel const& model, LayerRecord const& layer)
{
    return layer.outputs.size() == 1 && model.tensors[layer.outputs[0]].viewOf >= 0;
}

//! The tensor `layer` reads (slot < its input count) or writes at `slot` (inputs, then outputs). Throws
//! std::out_of_range for a slot that holds none (an absent optional input), or that the layer does not have.
inline TensorRecord const& slotTensor(PlanModel const& model, LayerRecord const& layer, size_t slot)
{
    size_t const inputs = layer.inputs.size();
    int32_t const t = slot < inputs ? layer.inputs[slot] : layer.outputs.at(slot - inputs);
    if (t < 0 || static_cast<size_t>(t) >= model.tensors.size())
    {
        throw std::out_of_range(
            "slot " + std::to_string(slot) + " of layer \"" + layer.name + "\" holds no tensor of the plan");
    }
    return model.tensors[static_cast<size_t>(t)];
}

//! The type `layer` reads (slot < its input count) or writes at `slot` (inputs, then outputs): its own I/O types
//! where the builder chose them, else the tensor's. Without I/O types, a slot that holds no tensor (an absent optional
//! input) throws std::out_of_range.
inline nvinfer1::DataType slotType(PlanModel const& model, LayerRecord const& layer, size_t slot)
{
    return layer.ioTypes.empty() ? slotTensor(model, layer, slot).type : layer.ioTypes.at(slot);
}

//! The format `layer` reads or writes at `slot`, as slotType does for types.
inline nvinfer1::TensorFormat slotFormat(PlanModel const& model, LayerRecord const& layer, size_t slot)
{
    return layer.ioFormats.empty() ? slotTensor(model, layer, slot).format : layer.ioFormats.at(slot);
}

} // namespace kiln::plan
