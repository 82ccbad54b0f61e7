// Which kernel a convolution, deconvolution, matrix multiply or attention layer of a CUDA plan runs, as the builder's
// timing chose it.
// The plan keeps it as the layer's backend choice (plan::LayerRecord::backendChoice), timing caches as a tactic.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::cuda
{

struct AlgorithmChoice
{
    enum class Source : int32_t
    {
        //! nothing timed: cuDNN's heuristics choose when a context first runs the layer (an attention layer: the
        //! rule attention_layer.h states)
        kHEURISTIC = 0,
        //! `index` is a cudnnConvolutionFwdAlgo_t (or BwdDataAlgo_t for a deconvolution)
        kPER_CALL = 1,
        //! `index` is the rank of an engine of cuDNN's graph API (convolution_graph.h); an attention layer's 0:
        //! cuDNN's fused attention wherever it takes the shape (attention_graph.h)
        kGRAPH_ENGINE = 2,
        //! Kiln's own kernel: `index` 0 small_channel_convolution.h (an attention layer: kernels/attention/), 1
        //! depthwise_convolution.h (plus its strip times kDepthwiseStripStride)
        kKILN_KERNEL = 3,
        //! One cuBLASLt matrix product; `index` is the rank of its algorithm among cuBLASLt's heuristic choices (a
        //! convolution's product, pointwise_convolution.h: 0; a matrix multiply: product_timing.h), and how many
        //! parts the algorithm splits K into (gemm, gemmRank, gemmSplits).
        kGEMM = 4,
    };
    //! A kGEMM index holds the rank plus this much per split past the first.
    static constexpr int32_t kGemmSplitStride = 1 << 16;
    //! A depthwise kernel's index holds 1 plus this much per output position a thread computes in strips.
    static constexpr int32_t kDepthwiseStripStride = 1 << 8;
    Source source{Source::kHEURISTIC};
    int32_t index{-1};

    static AlgorithmChoice perCall(int32_t algorithm)
    {
        return {Source::kPER_CALL, algorithm};
    }
    static AlgorithmChoice graphEngine(int32_t rank)
    {
        return {Source::kGRAPH_ENGINE, rank};
    }
    static AlgorithmChoice kilnKernel()
    {
        return {Source::kKILN_KERNEL, 0};
    }
    //! Kiln's depthwise kernel, in strips of `strip` positions a thread (0: the one-position kernel; see
    //! DepthwiseConvolution::strips).
    static AlgorithmChoice depthwiseKernel(int32_t strip = 0)
    {
        return {Source::kKILN_KERNEL, 1 + strip * kDepthwiseStripStride};
    }
    bool isDepthwiseKernel() const
    {
        return source == Source::kKILN_KERNEL && index % kDepthwiseStripStride == 1;
    }
    int32_t depthwiseStrip() const
    {
        return index / kDepthwiseStripStride;
    }
    //! cuBLASLt's heuristic choice of rank `rank`, with K split into `splits` parts computed in parallel (1: whole).
    static AlgorithmChoice gemm(int32_t rank = 0, int32_t splits = 1)
    {
        return {Source::kGEMM, rank + (splits - 1) * kGemmSplitStride};
    }
    int32_t gemmRank() const
    {
        return index % kGemmSplitStride;
    }
    int32_t gemmSplits() const
    {
        return index / kGemmSplitStride + 1;
    }
    bool operator==(AlgorithmChoice const& other) const
    {
        return source == other.source && index == other.index;
    }

    //! As the plan keeps it; empty for kHEURISTIC.
    std::vector<uint8_t> encode() const;
    //! What encode wrote (empty: kHEURISTIC). Throws std::runtime_error for bytes that are no choice.
    static AlgorithmChoice decode(std::vector<uint8_t> const& bytes);

    //! As a timing cache's tactic.
    uint64_t tactic() const;
    static AlgorithmChoice fromTactic(uint64_t tactic);
};

} // namespace kiln::cuda
