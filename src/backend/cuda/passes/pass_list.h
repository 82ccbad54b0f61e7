// The CUDA backend's build passes, in the order it applies them: the fusions first (attention first, since its
// patterns hold transposes; normalizations before the point-wise chains, which would otherwise take their
// element-wise layers; products of one input merged after the matrix multiply fusions, each with its fused bias),
// then the storage formats, then each convolution's (FP and INT8), matrix multiply's and attention's algorithm by
// timing, which times the layers as they will run.
#pragma once

#include "backend/backend.h"
#include "backend/cuda/passes/attention_tuning.h"
#include "backend/cuda/passes/convolution_tuning.h"
#include "backend/cuda/passes/product_tuning.h"
#include "backend/cuda/passes/quantized_convolution_tuning.h"
#include "backend/pass_list.h"

#include <memory>
#include <string>

namespace kiln::cuda
{

//! What the passes of one CUDA build share: the configuration, and the timing cache and timers (made when a pass
//! first times).
class CudaBuild
{
public:
    //! `device`: the backend's deviceIdentity(); `whyNoGpu`: why no GPU is usable here, empty where one is.
    CudaBuild(backend::PassOptions const& options, std::string device, std::string whyNoGpu);
    ~CudaBuild();

    backend::PassOptions const& options() const
    {
        return mOptions;
    }

    //! How convolutions are timed: in the application's timing cache (else this build's own), by cuDNN where it can
    //! time here (the first call says where it cannot).
    ConvolutionTuning convolutionTuning();

    //! How matrix multiplies are timed: in the same cache, by cuBLASLt where cuDNN could time too.
    ProductTuning productTuning();

    //! How attention layers are timed: in the same cache, on the GPU where cuDNN could time convolutions.
    AttentionTuning attentionTuning();

    //! How INT8 convolutions are timed: in the same cache, on the GPU where cuDNN could time convolutions.
    QuantizedConvolutionTuning quantizedConvolutionTuning();

    //! Whether the plan may hold FP8 products (cuBLASLt's FP8 kernels): where the GPU here has FP8 tensor cores
    //! (compute capability 8.9 or later), or where no GPU is usable here (a plan built for another machine's GPU).
    bool fp8Products() const
    {
        return mFp8Products;
    }

private:
    backend::TimingCache& cache();

    //! Whether cuDNN's convolution timer started: the other libraries are timed only where it did.
    bool times();

    backend::PassOptions const& mOptions;
    std::string mDevice;
    std::string mWhyNoGpu;
    bool mFp8Products{true};
    backend::TimingCache mBuildCache; //!< this build's own, where the application gave none
    bool mConvolutionTimerTried{false};
    bool mProductTimerTried{false};
    bool mAttentionTimerTried{false};
    bool mQuantizedConvolutionTimerTried{false};
    std::unique_ptr<AlgorithmTimer> mConvolutionTimer;
    std::unique_ptr<ProductAlgorithmTimer> mProductTimer;
    std::unique_ptr<AttentionAlgorithmTimer> mAttentionTimer;
    std::unique_ptr<QuantizedConvolutionAlgorithmTimer> mQuantizedConvolutionTimer;
};

backend::PassList<CudaBuild> const& cudaPasses();

} // namespace kiln::cuda
