// Every built-in layer kind, listed once. A kind's description (its header below: parameters, field list, shape
// and type rules, API class, and the facts the builder and backends ask of it: its interface class or PlanOnly,
// foldsWhenConstant, channelsLast) is all the network, the plan and the builder need; each backend runs it through
// the kernel it declares for its parameter struct, and the CPU backend must have one for every kind listed here.
#pragma once

#include "network/fused/attention.h"
#include "network/fused/fused_normalization.h"
#include "network/fused/pointwise.h"
#include "network/fused/quantized_convolution.h"
#include "network/fused/quantized_matrix_multiply.h"
#include "network/fused/recurrent_sequence.h"
#include "network/layers/activation.h"
#include "network/layers/concatenation.h"
#include "network/layers/constant.h"
#include "network/layers/convolution.h"
#include "network/layers/cumulative.h"
#include "network/layers/elementwise.h"
#include "network/layers/fill.h"
#include "network/layers/gather.h"
#include "network/layers/grid_sample.h"
#include "network/layers/lrn.h"
#include "network/layers/matrix_multiply.h"
#include "network/layers/nms.h"
#include "network/layers/non_zero.h"
#include "network/layers/normalization.h"
#include "network/layers/one_hot.h"
#include "network/layers/padding.h"
#include "network/layers/parametric_relu.h"
#include "network/layers/pooling.h"
#include "network/layers/quantize.h"
#include "network/layers/reduce.h"
#include "network/layers/resize.h"
#include "network/layers/reverse_sequence.h"
#include "network/layers/scale.h"
#include "network/layers/scatter.h"
#include "network/layers/select.h"
#include "network/layers/shuffle.h"
#include "network/layers/slice.h"
#include "network/layers/softmax.h"
#include "network/layers/top_k.h"
#include "network/layers/unary.h"

#include <memory>
#include <stdexcept>
#include <string>

//! X(parameter struct) for every kind an application adds through INetworkDefinition (network/layers/); each struct
//! names its nvinfer1::LayerType as kLayerType and its interface class as Interface.
#define KILN_FOR_EACH_NETWORK_LAYER_KIND(X)                                                                            \
    X(ActivationParams)                                                                                                \
    X(CastParams)                                                                                                      \
    X(ConcatenationParams)                                                                                             \
    X(ConstantParams)                                                                                                  \
    X(ConvolutionParams)                                                                                               \
    X(DequantizeParams)                                                                                                \
    X(CumulativeParams)                                                                                                \
    X(DeconvolutionParams)                                                                                             \
    X(ElementWiseParams)                                                                                               \
    X(FillParams)                                                                                                      \
    X(GatherParams)                                                                                                    \
    X(GridSampleParams)                                                                                                \
    X(IdentityParams)                                                                                                  \
    X(LRNParams)                                                                                                       \
    X(MatrixMultiplyParams)                                                                                            \
    X(NMSParams)                                                                                                       \
    X(NonZeroParams)                                                                                                   \
    X(NormalizationParams)                                                                                             \
    X(OneHotParams)                                                                                                    \
    X(PaddingParams)                                                                                                   \
    X(ParametricReLUParams)                                                                                            \
    X(PoolingParams)                                                                                                   \
    X(QuantizeParams)                                                                                                  \
    X(ReduceParams)                                                                                                    \
    X(ResizeParams)                                                                                                    \
    X(ReverseSequenceParams)                                                                                           \
    X(ScaleParams)                                                                                                     \
    X(ScatterParams)                                                                                                   \
    X(SelectParams)                                                                                                    \
    X(ShapeParams)                                                                                                     \
    X(ShuffleParams)                                                                                                   \
    X(SliceParams)                                                                                                     \
    X(SoftMaxParams)                                                                                                   \
    X(TopKParams)                                                                                                      \
    X(UnaryParams)

//! X(parameter struct) for every kind only plans hold (network/fused/): fusion passes make them from the layers they
//! replace; their LayerType lies beyond nvinfer1::LayerType's enumerators and their Interface is PlanOnly.
#define KILN_FOR_EACH_PLAN_ONLY_LAYER_KIND(X)                                                                          \
    X(AttentionParams)                                                                                                 \
    X(FusedNormalizationParams)                                                                                        \
    X(PointwiseParams)                                                                                                 \
    X(QuantizedConvolutionParams)                                                                                      \
    X(QuantizedMatrixMultiplyParams)                                                                                   \
    X(RecurrentSequenceParams)                                                                                         \
    X(RecurrentSequencePairParams)

//! X(parameter struct) for every built-in layer kind.
#define KILN_FOR_EACH_LAYER_KIND(X) KILN_FOR_EACH_NETWORK_LAYER_KIND(X) KILN_FOR_EACH_PLAN_ONLY_LAYER_KIND(X)

namespace kiln::network
{

//! Empty parameters of a built-in kind, to be filled by LayerParams::read when a plan is loaded; nullptr for a kind
//! Kiln does not implement.
std::unique_ptr<LayerParams> makeLayerParams(nvinfer1::LayerType type);

//! Calls `visitor` with `params` as its own parameter struct (ActivationParams const&, ...) and returns what it
//! returns. Throws std::invalid_argument for parameters of no built-in kind (a plugin's).
template <typename Visitor>
decltype(auto) visitLayerParams(LayerParams const& params, Visitor&& visitor)
{
    // On the value: PointwiseParams's and AttentionParams's types lie beyond nvinfer1::LayerType's enumerators.
    switch (static_cast<int32_t>(params.type()))
    {
#define KILN_VISIT_KIND(Params)                                                                                        \
    case static_cast<int32_t>(Params::kLayerType): return visitor(static_cast<Params const&>(params));
        KILN_FOR_EACH_LAYER_KIND(KILN_VISIT_KIND)
#undef KILN_VISIT_KIND
    default: break;
    }
    throw std::invalid_argument(
        "layer kind " + std::to_string(static_cast<int32_t>(params.type())) + " is not a built-in layer kind");
}

} // namespace kiln::network
