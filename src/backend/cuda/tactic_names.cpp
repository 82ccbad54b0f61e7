#include "backend/cuda/tactic_names.h"

#include "backend/cuda/passes/attention_tuning.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "network/fused/attention.h"
#include "network/fused/quantized_convolution.h"

#include <cudnn.h>

#include <stdexcept>

namespace kiln::cuda
{
namespace
{

std::string forwardAlgorithmName(int32_t algorithm)
{
    switch (static_cast<cudnnConvolutionFwdAlgo_t>(algorithm))
    {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return std::to_string(algorithm);
    }
}

std::string backwardDataAlgorithmName(int32_t algorithm)
{
    switch (static_cast<cudnnConvolutionBwdDataAlgo_t>(algorithm))
    {
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_0: return "ALGO_0";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_1: return "ALGO_1";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return std::to_string(algorithm);
    }
}

std::string productName(AlgorithmChoice const& choice)
{
    if (choice.source != AlgorithmChoice::Source::kGEMM)
    {
        return "cuBLASLt, its heuristic's first algorithm";
    }
    std::string name = "cuBLASLt, its heuristic's algorithm of rank " + std::to_string(choice.gemmRank());
    if (choice.gemmSplits() > 1)
    {
        name += ", K split in " + std::to_string(choice.gemmSplits()) + " parts";
    }
    return name;
}

std::string convolutionName(AlgorithmChoice const& choice, bool deconvolution)
{
    switch (choice.source)
    {
    case AlgorithmChoice::Source::kHEURISTIC: return "cuDNN, its heuristics' algorithm";
    case AlgorithmChoice::Source::kPER_CALL:
        return deconvolution ? "cuDNN backward-data algorithm " + backwardDataAlgorithmName(choice.index)
                             : "cuDNN forward algorithm " + forwardAlgorithmName(choice.index);
    case AlgorithmChoice::Source::kGRAPH_ENGINE:
        return "cuDNN graph API, engine of rank " + std::to_string(choice.index);
    case AlgorithmChoice::Source::kKILN_KERNEL:
        if (!choice.isDepthwiseKernel())
        {
            return "Kiln's small-channel convolution";
        }
        return choice.depthwiseStrip() == 0 ? "Kiln's depthwise convolution"
                                            : "Kiln's depthwise convolution, strips of "
                + std::to_string(choice.depthwiseStrip()) + " positions a thread";
    case AlgorithmChoice::Source::kGEMM: return "cuBLASLt, one product of the input (1x1) or of its windows, unfolded";
    }
    return {};
}

std::string attentionName(plan::LayerRecord const& layer, AlgorithmChoice const& choice)
{
    if (!cudnnMayRunAttention(layer))
    {
        return "Kiln's attention kernel";
    }
    if (choice.source == AlgorithmChoice::Source::kGRAPH_ENGINE)
    {
        return "cuDNN's fused attention where it takes the shape (timed faster), else Kiln's attention kernel";
    }
    if (choice.source == AlgorithmChoice::Source::kKILN_KERNEL)
    {
        return "Kiln's attention kernel";
    }
    return "cuDNN's fused attention from 256 keys where it takes the shape (untimed), else Kiln's attention kernel";
}

//! An INT8 convolution's kernels: cuDNN's graph engine where the builder timed one faster and it takes the shape.
std::string quantizedConvolutionName(AlgorithmChoice const& choice)
{
    if (choice.source == AlgorithmChoice::Source::kGRAPH_ENGINE)
    {
        return "cuDNN graph engine of rank " + std::to_string(choice.index)
            + " (INT8, compiled at run time) where it takes the shape, else Kiln's INT8 kernels";
    }
    return "Kiln's INT8 kernels";
}

} // namespace

std::string tacticName(plan::LayerRecord const& layer)
{
    bool const product = layer.type == nvinfer1::LayerType::kMATRIX_MULTIPLY;
    bool const convolution = layer.type == nvinfer1::LayerType::kCONVOLUTION;
    bool const deconvolution = layer.type == nvinfer1::LayerType::kDECONVOLUTION;
    bool const attention = layer.type == network::kAttentionLayerType;
    bool const quantizedConvolution = layer.type == network::kQuantizedConvolutionLayerType;
    if (!product && !convolution && !deconvolution && !attention && !quantizedConvolution)
    {
        return {};
    }
    AlgorithmChoice choice;
    try
    {
        choice = AlgorithmChoice::decode(layer.backendChoice);
    }
    catch (std::runtime_error const&)
    {
        return {}; // the context says so, with the layer's name, when it prepares the layer
    }
    if (attention)
    {
        return attentionName(layer, choice);
    }
    if (quantizedConvolution)
    {
        return quantizedConvolutionName(choice);
    }
    return product ? productName(choice) : convolutionName(choice, deconvolution);
}

} // namespace kiln::cuda
