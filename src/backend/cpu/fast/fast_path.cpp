#include "backend/cpu/fast/kernels.h"
#include "backend/cpu/fast/onednn.h"

#include "network/fused/attention.h"
#include "network/fused/pointwise.h"
#include "network/fused/quantized_convolution.h"
#include "network/fused/quantized_matrix_multiply.h"
#include "network/fused/recurrent_sequence.h"
#include "network/layers/reduce.h"
#include "network/plugin_layer.h"
#include "plan/passes/sample_normalization.h"
#include "plan/plan_graph.h"

#include <omp.h>

#include <mutex>
#include <stdexcept>
#include <string>

namespace kiln::cpu::fast
{
namespace
{

struct KernelKind
{
    nvinfer1::LayerType type;
    bool (*supports)(plan::PlanModel const& model, plan::LayerRecord const& layer);
    std::unique_ptr<Kernel> (*make)(State& state, plan::LayerRecord const& layer);
    //! How its kernel takes channels-last tensors of four axes.
    ChannelsLastUse channelsLast{ChannelsLastUse::kNO};
    //! Whether `supports` checks the layer's types itself (INT8 slots): else the layer computes FP32 throughout.
    bool checksItsTypes{false};
};

using Use = ChannelsLastUse;

//! The layer kinds the fast path runs.
constexpr KernelKind kKernels[] = {
    {nvinfer1::LayerType::kCONVOLUTION, supportsConvolution, makeConvolution, Use::kSTARTS},
    {nvinfer1::LayerType::kDECONVOLUTION, supportsDeconvolution, makeDeconvolution},
    {nvinfer1::LayerType::kPOOLING, supportsPooling, makePooling, Use::kCONTINUES},
    {nvinfer1::LayerType::kACTIVATION, supportsActivation, makeActivation, Use::kKEEPS},
    {nvinfer1::LayerType::kUNARY, supportsUnary, makeUnary, Use::kKEEPS},
    {nvinfer1::LayerType::kELEMENTWISE, supportsElementWise, makeElementWise, Use::kCONTINUES},
    {nvinfer1::LayerType::kREDUCE, supportsReduce, makeReduce, Use::kREADS},
    {nvinfer1::LayerType::kMATRIX_MULTIPLY, supportsMatrixMultiply, makeMatrixMultiply},
    {nvinfer1::LayerType::kSOFTMAX, supportsSoftMax, makeSoftMax},
    {network::kAttentionLayerType, supportsAttention, makeAttention},
    {network::kRecurrentSequenceLayerType, supportsRecurrentSequence, makeRecurrentSequence},
    // Only normalizations of whole samples keep channels-last data, as channelsLastUse decides.
    {nvinfer1::LayerType::kNORMALIZATION, supportsNormalization, makeNormalization, Use::kKEEPS},
    // Only the permutes that move nothing read or start channels-last data, each as channelsLastUse decides.
    {nvinfer1::LayerType::kSHUFFLE, supportsShuffle, makeShuffle, Use::kREADS},
    {nvinfer1::LayerType::kSELECT, supportsSelect, makeSelect, Use::kNO, true},
    {nvinfer1::LayerType::kCONCATENATION, supportsConcatenation, makeConcatenation, Use::kCONTINUES, true},
    {nvinfer1::LayerType::kSLICE, supportsSlice, makeSlice, Use::kCONTINUES, true},
    {nvinfer1::LayerType::kGATHER, supportsGather, makeGather, Use::kCONTINUES, true},
    {network::kPointwiseLayerType, supportsPointwise, makePointwise, Use::kCONTINUES},
    {nvinfer1::LayerType::kQUANTIZE, supportsQuantization, makeQuantization, Use::kCONTINUES, true},
    {nvinfer1::LayerType::kDEQUANTIZE, supportsQuantization, makeQuantization, Use::kNO, true},
    {network::kQuantizedConvolutionLayerType, supportsQuantizedConvolution, makeQuantizedConvolution, Use::kSTARTS,
        true},
    {network::kQuantizedMatrixMultiplyLayerType, supportsQuantizedMatrixMultiply, makeQuantizedMatrixMultiply, Use::kNO,
        true},
};

KernelKind const* kindOf(plan::LayerRecord const& layer)
{
    for (KernelKind const& kind : kKernels)
    {
        if (kind.type == layer.type)
        {
            return &kind;
        }
    }
    return nullptr;
}

//! Whether each of `layer`'s tensors is stored kLINEAR or, with four axes, kHWC (the executor converts between them),
//! and each slot reads or writes kLINEAR or, where the kernel takes it, kHWC.
bool formatsTaken(plan::PlanModel const& model, plan::LayerRecord const& layer, bool takesChannelsLast)
{
    size_t const inputs = layer.inputs.size();
    for (size_t slot = 0; slot < inputs + layer.outputs.size(); ++slot)
    {
        int32_t const t = slot < inputs ? layer.inputs[slot] : layer.outputs[slot - inputs];
        if (t < 0)
        {
            continue;
        }
        bool const fourAxes = model.tensors[t].dims.size() == 4;
        auto const taken = [&](nvinfer1::TensorFormat format, bool channelsLastToo) {
            return format == nvinfer1::TensorFormat::kLINEAR
                || (format == nvinfer1::TensorFormat::kHWC && fourAxes && channelsLastToo);
        };
        if (!taken(model.tensors[t].format, true) || !taken(plan::slotFormat(model, layer, slot), takesChannelsLast))
        {
            return false;
        }
    }
    return true;
}

//! FP32 in every slot and in the tensors there (the executor converts no type around a fast kernel: a layer next to
//! FP16 layers reads a tensor stored in half), formats the kernel takes (formatsTaken), computing in FP32.
bool float32Throughout(plan::PlanModel const& model, plan::LayerRecord const& layer, bool takesChannelsLast)
{
    if (layer.precision != nvinfer1::DataType::kFLOAT || !formatsTaken(model, layer, takesChannelsLast))
    {
        return false;
    }
    size_t const inputs = layer.inputs.size();
    for (size_t slot = 0; slot < inputs + layer.outputs.size(); ++slot)
    {
        int32_t const t = slot < inputs ? layer.inputs[slot] : layer.outputs[slot - inputs];
        if (t >= 0
            && (plan::slotType(model, layer, slot) != nvinfer1::DataType::kFLOAT
                || model.tensors[t].type != nvinfer1::DataType::kFLOAT))
        {
            return false;
        }
    }
    return true;
}

//! Whether slot `slot` of `layer` holds `type`, stored and read or written there in `type`.
bool holdsType(plan::PlanModel const& model, plan::LayerRecord const& layer, size_t slot, nvinfer1::DataType type)
{
    size_t const inputs = layer.inputs.size();
    int32_t const t = slot < inputs ? layer.inputs[slot] : layer.outputs.at(slot - inputs);
    return t >= 0 && model.tensors[t].type == type && plan::slotType(model, layer, slot) == type;
}

//! Whether `layer` reads one INT8 tensor and writes one, each slot in INT8, in the formats its kernel takes.
bool int8InAndOut(plan::PlanModel const& model, plan::LayerRecord const& layer, bool takesChannelsLast)
{
    return layer.inputs.size() == 1 && layer.outputs.size() == 1 && formatsTaken(model, layer, takesChannelsLast)
        && holdsType(model, layer, 0, nvinfer1::DataType::kINT8)
        && holdsType(model, layer, 1, nvinfer1::DataType::kINT8);
}

//! A max pooling that the quantized fusion moved onto an INT8 tensor: INT8 in and out, row-major or channels-last as
//! FP32 poolings, computing in FP32 as the layer it was.
bool int8MaxPooling(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* pooling = plan::paramsOf<network::PoolingParams>(layer);
    return pooling != nullptr && pooling->poolingType == nvinfer1::PoolingType::kMAX
        && layer.precision == nvinfer1::DataType::kFLOAT && int8InAndOut(model, layer, true);
}

//! A shuffle that the Q/DQ propagation moved onto INT8 data (a transformer's heads split and merged between quantized
//! products): INT8 in and out, row-major, its bytes moved as the FP32 ones' floats.
bool int8Shuffle(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    return layer.type == nvinfer1::LayerType::kSHUFFLE && int8InAndOut(model, layer, false);
}

} // namespace

bool rowMajorSlotOf(plan::PlanModel const& model, plan::LayerRecord const& layer, size_t slot, nvinfer1::DataType type)
{
    size_t const inputs = layer.inputs.size();
    int32_t const t = slot < inputs ? layer.inputs[slot] : layer.outputs.at(slot - inputs);
    return holdsType(model, layer, slot, type) && model.tensors[t].format == nvinfer1::TensorFormat::kLINEAR
        && plan::slotFormat(model, layer, slot) == nvinfer1::TensorFormat::kLINEAR;
}

bool copiesFourAxesOf(
    plan::PlanModel const& model, plan::LayerRecord const& layer, size_t slot, nvinfer1::DataType type)
{
    size_t const inputs = layer.inputs.size();
    int32_t const t = slot < inputs ? layer.inputs[slot] : layer.outputs.at(slot - inputs);
    if (!holdsType(model, layer, slot, type) || model.tensors[t].dims.size() != 4)
    {
        return false;
    }
    auto const taken = [](nvinfer1::TensorFormat format) {
        return format == nvinfer1::TensorFormat::kLINEAR || format == nvinfer1::TensorFormat::kHWC;
    };
    return taken(model.tensors[t].format) && taken(plan::slotFormat(model, layer, slot));
}

bool runsLayer(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    KernelKind const* kind = kindOf(layer);
    return kind != nullptr && dynamic_cast<network::PluginParams const*>(layer.params.get()) == nullptr
        && (kind->checksItsTypes || float32Throughout(model, layer, kind->channelsLast != Use::kNO)
            || int8MaxPooling(model, layer) || int8Shuffle(model, layer) || isFloatFlags(model, layer))
        && kind->supports(model, layer);
}

ChannelsLastUse channelsLastUse(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    KernelKind const* kind = kindOf(layer);
    if (kind == nullptr || kind->channelsLast == Use::kNO || layer.inputs.empty() || layer.inputs[0] < 0
        || layer.outputs.size() != 1 || model.tensors[layer.inputs[0]].dims.size() != 4)
    {
        return Use::kNO;
    }
    // A kind that checks its own types (INT8 slots) takes channels-last tensors of any of them; the others FP32 ones,
    // and a max pooling INT8 ones too.
    bool const typesTaken = kind->checksItsTypes
        ? formatsTaken(model, layer, true)
        : float32Throughout(model, layer, true) || int8MaxPooling(model, layer);
    if (!typesTaken)
    {
        return Use::kNO;
    }
    if (layer.type == nvinfer1::LayerType::kSHUFFLE)
    {
        // A permute that moves the channels last (ConvNeXt's, around its MLP) reads channels-last data as stored: the
        // row-major output's bytes are the input's. One that moves them back from a row-major input starts a region:
        // its channels-last output's bytes are the input's. Either moves nothing (a view where the builder makes one).
        using nvinfer1::TensorFormat;
        if (plan::shuffleKeepsStoredOrder(model, layer, TensorFormat::kHWC, TensorFormat::kLINEAR))
        {
            return Use::kREADS;
        }
        bool const rowMajorInput = model.tensors[layer.inputs[0]].format == TensorFormat::kLINEAR;
        return rowMajorInput && plan::shuffleKeepsStoredOrder(model, layer, TensorFormat::kLINEAR, TensorFormat::kHWC)
            ? Use::kSTARTS
            : Use::kNO;
    }
    if (layer.type == nvinfer1::LayerType::kNORMALIZATION)
    {
        // Each sample's elements lie together in either format: a normalization of whole samples (PoolFormer's group
        // normalizations of one group) computes the same on channels-last data, its weights (one value, or one per
        // channel) read as the data lies. Other normalizations mix axes that channels-last memory interleaves.
        return plan::normalizesSamplesPerChannel(model, layer) ? Use::kKEEPS : Use::kNO;
    }
    if (kind->channelsLast == Use::kREADS)
    {
        // Both spatial axes reduced: the kept ones (batch, channels) lie in their order in kHWC memory. Sums and
        // means run down the rows of channels (reduce.cpp); oneDNN's other reductions of them are slow.
        constexpr uint32_t kSpatial = (1U << 2U) | (1U << 3U);
        auto const* reduce = plan::paramsOf<network::ReduceParams>(layer);
        bool const sums = reduce != nullptr
            && (reduce->operation == nvinfer1::ReduceOperation::kSUM
                || reduce->operation == nvinfer1::ReduceOperation::kAVG);
        return sums && (reduce->reduceAxes & kSpatial) == kSpatial ? Use::kREADS : Use::kNO;
    }
    return model.tensors[layer.outputs[0]].dims.size() == 4 ? kind->channelsLast : Use::kNO;
}

bool joinsPointwiseChain(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    return dynamic_cast<network::PluginParams const*>(layer.params.get()) == nullptr
        && float32Throughout(model, layer, false);
}

bool fusesActivation(network::ActivationParams const& activation)
{
    return eltwiseOf(activation.activation, activation.alpha, activation.beta).has_value();
}

bool convolutionFusesActivation(network::ActivationParams const& activation)
{
    return !activationPostOps(activation.activation, activation.alpha, activation.beta, false).empty();
}

bool convolutionFusesSelfGated(network::ActivationParams const& activation)
{
    return !activationPostOps(activation.activation, activation.alpha, activation.beta, true).empty();
}

Session::Session()
    : mState(std::make_unique<State>())
{
}

Session::~Session() = default;

bool Session::available()
{
    return true;
}

bool leavesToReference(plan::LayerRecord const& layer)
{
    bool const int8Products = layer.type == network::kQuantizedConvolutionLayerType
        || layer.type == network::kQuantizedMatrixMultiplyLayerType;
    return int8Products && !int8ProductsExact();
}

std::unique_ptr<Kernel> Session::makeKernel(plan::LayerRecord const& layer)
{
    KernelKind const* kind = kindOf(layer);
    return kind != nullptr && !leavesToReference(layer) ? kind->make(*mState, layer) : nullptr;
}

void Session::setThreads(int32_t threads)
{
    mState->threads = threads;
}

int32_t Session::threads() const
{
    return mState->mostThreads();
}

void Session::setRunThreads(int32_t threads)
{
    mState->runThreads = threads;
}

void Session::run(Kernel& kernel, LayerInputs const& inputs, LayerOutputs const& outputs) const
{
    // oneDNN's primitives share one scratchpad in the whole process (Debian builds it without
    // DNNL_ENABLE_CONCURRENT_EXEC): contexts on different threads take turns, layer by layer. Each layer still runs
    // on the context's threads.
    static std::mutex oneLayerAtATime;
    std::lock_guard<std::mutex> const turn(oneLayerAtATime);
    // OpenMP's thread count is the calling thread's own setting: contexts run on other threads keep theirs.
    omp_set_num_threads(mState->resolvedThreads());
    try
    {
        kernel.run(inputs, outputs);
    }
    catch (dnnl::error const& e)
    {
        throw std::runtime_error(std::string("oneDNN: ") + e.what());
    }
}

} // namespace kiln::cpu::fast
