// What the fast path's kernels share: the session's oneDNN engine and stream, conversions from Kiln's
// descriptions to oneDNN's, and the cache of work prepared per input shape.
#pragma once

#include "backend/cpu/fast/fast_path.h"
#include "network/layers/activation.h"

#include <dnnl.hpp>

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kiln::cpu::fast
{

struct Session::State
{
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    int32_t threads{0};    //!< as set; 0: availableCores()
    int32_t runThreads{0}; //!< the runs' count where fewer (Session::setRunThreads); 0: mostThreads()

    //! The setting, resolved.
    int32_t mostThreads() const
    {
        return threads > 0 ? threads : availableCores();
    }
    //! The threads the layers run on now.
    int32_t resolvedThreads() const
    {
        return runThreads > 0 ? std::min(runThreads, mostThreads()) : mostThreads();
    }
};

using State = Session::State;

//! oneDNN's eltwise algorithm and its alpha and beta for `activation`, where oneDNN has one that computes the same.
struct Eltwise
{
    dnnl::algorithm algorithm;
    float alpha;
    float beta;
};
std::optional<Eltwise> eltwiseOf(nvinfer1::ActivationType type, float alpha, float beta);

//! The eltwise post-ops, in order, that apply an epilogue's activation of `type`, `alpha` and `beta`, self-gated
//! (x * f(x), plan::Epilogue::selfGated) or not: eltwiseOf's where it has one, and beyond it hard sigmoid (a linear
//! step and a clip), SiLU (swish) and hard-swish with ONNX's 1/6 and 1/2. Empty where oneDNN computes none that is
//! the same.
std::vector<Eltwise> activationPostOps(nvinfer1::ActivationType type, float alpha, float beta, bool selfGated);

//! Whether `layer` reads one tensor and has no fused epilogue: what the kernels of one input take.
bool readsOneTensor(plan::LayerRecord const& layer);

//! Whether slot `slot` of `layer` (inputs, then outputs) reads or writes its tensor as it is stored, kLINEAR or, with
//! four axes, kHWC: what the quantized kernels, which take either, check of their slots.
bool readsAsStored(plan::PlanModel const& model, plan::LayerRecord const& layer, size_t slot);

//! `input` as a kernel reads it in `format`: itself where it is stored so, else its elements converted into `scratch`
//! (which the kernel keeps between runs).
ConstTensorView inFormat(ConstTensorView const& input, TensorFormat format, std::vector<std::byte>& scratch);

//! Whether oneDNN applies `epilogue`'s activation, where it has one.
bool appliesActivation(plan::Epilogue const& epilogue);
//! A primitive's attributes that apply `epilogue`'s activation (appliesActivation) as an eltwise post-op.
dnnl::primitive_attr activationAttributes(plan::Epilogue const& epilogue);

dnnl::memory::dims dimsOf(Shape const& shape);
//! The row-major (kLINEAR) layout of a tensor of `shape`, FP32 or of `type`.
dnnl::memory::desc linearDesc(Shape const& shape, dnnl::memory::data_type type = dnnl::memory::data_type::f32);
//! The FP32 rows x cols matrix whose element (i, j) lies at i * rowStride + j * colStride. An axis of extent 1 gets
//! the stride of a dense layout, which oneDNN's checks of plain layouts expect.
dnnl::memory::desc matrixDesc(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride);

//! The layout of a tensor of `shape` stored in `format` (kLINEAR, or kHWC: the channel axis innermost), FP32 or of
//! `type`.
dnnl::memory::desc storedDesc(
    Shape const& shape, TensorFormat format, dnnl::memory::data_type type = dnnl::memory::data_type::f32);

//! Whether `a` and `b` place every element at the same offset: the same plain layout, but for the strides of axes of
//! extent 1, which no element steps along ([N, C, 1, 1] is the same bytes row-major and channels-last).
bool sameBytes(dnnl::memory::desc const& a, dnnl::memory::desc const& b);

//! A user buffer's memory object whose address is set at each run.
dnnl::memory userMemory(dnnl::memory::desc const& desc, dnnl::engine const& engine);

//! Where a primitive reads or writes one tensor: the application's buffer, or a scratch copy in the layout the
//! primitive chose, converted on the way in (read) or out (write). Nothing is converted where both layouts place the
//! elements alike (sameBytes).
class Staged
{
public:
    Staged() = default;
    Staged(dnnl::memory::desc const& user, dnnl::memory::desc const& chosen, dnnl::engine const& engine);

    //! The memory the primitive reads, holding `data` (converted where the layouts differ).
    dnnl::memory read(void const* data, dnnl::stream& stream);
    //! The memory the primitive writes, for `data`.
    dnnl::memory target(void* data);
    //! After the primitive ran: converts its result into `data` where it wrote scratch.
    void commit(void* data, dnnl::stream& stream);

private:
    dnnl::memory mUser;
    dnnl::memory mScratch; //!< empty where the primitive uses the user's layout
    dnnl::reorder mToScratch;
    dnnl::reorder mToUser;
};

//! A primitive that reads and writes the application's row-major buffers as they are, without scratch copies: for
//! primitives made on linearDesc memory throughout. Its arguments' memory objects take the buffers' addresses at
//! each run.
class PlainPrimitive
{
public:
    PlainPrimitive() = default;
    //! `arguments`: each argument's DNNL_ARG_ kind and memory description, in the order run takes the buffers.
    PlainPrimitive(dnnl::primitive primitive, std::vector<std::pair<int, dnnl::memory::desc>> const& arguments,
        dnnl::engine const& engine);

    //! Runs the primitive on `buffers`, one per argument in order, and waits until it is done.
    void run(std::initializer_list<void const*> buffers, dnnl::stream& stream);

private:
    dnnl::primitive mPrimitive;
    std::vector<int> mOrder; //!< the arguments' kinds in the order of run's buffers
    std::unordered_map<int, dnnl::memory> mArguments;
};

//! Constant weights laid out once for a primitive: `values` (FP32, shaped by `user`) reordered into `chosen`.
dnnl::memory laidOutWeights(
    void const* values, dnnl::memory::desc const& user, dnnl::memory::desc const& chosen, State const& state);
inline dnnl::memory laidOutWeights(std::vector<float> const& values, dnnl::memory::desc const& user,
    dnnl::memory::desc const& chosen, State const& state)
{
    return laidOutWeights(values.data(), user, chosen, state);
}

//! A product of rows by constant weights as oneDNN's 1x1 convolution over the rows (FP32 linear layers, INT8 ones),
//! prepared for one row count: the primitive, its laid-out weights and bias, and the user memory of its ends.
struct RowConvolution
{
    dnnl::convolution_forward primitive;
    dnnl::memory weights;
    dnnl::memory bias; //!< empty where the layer adds none
    dnnl::memory source;
    dnnl::memory destination;

    //! Runs it on `input` into `output` and waits until it is done.
    void run(void const* input, void* output, dnnl::stream& stream);
};

//! How an INT8 primitive turns its INT32 sums into the layer's values, per output channel: the sums times
//! inputScale * weightScales[c], after adding the bias divided by that scale (oneDNN adds the bias before the output
//! scale). `bias` empty: no bias.
struct Int8Rescaling
{
    std::vector<float> scales;
    std::vector<float> bias;
};
Int8Rescaling int8Rescaling(float inputScale, std::vector<float> const& weightScales, std::vector<float> const& bias);

//! Whether oneDNN's INT8 products are exact on this CPU, as the reference kernels' are. Without VNNI (AVX2 or
//! AVX-512 alone, or ONEDNN_MAX_CPU_ISA set below it), oneDNN sums pairs of u8 x s8 products into 16 bits with
//! saturation, which full-range INT8 weights (Model Optimizer's reach +-127) overflow: the fast path then leaves
//! INT8 layers to the reference kernels (plans stay the same on every CPU).
bool int8ProductsExact();

//! The work a kernel prepared for one set of input shapes and thread count: made on first use, kept for the next
//! runs (a few shapes, as dynamic shapes alternate between profiles' sizes).
template <typename Prepared>
class PreparedCache
{
public:
    template <typename Make>
    Prepared& get(LayerInputs const& inputs, int32_t threads, Make&& make)
    {
        Key key{{}, threads};
        for (ConstTensorView const& input : inputs)
        {
            key.first.push_back(input.shape);
        }
        for (auto& [entryKey, prepared] : mEntries)
        {
            if (entryKey == key)
            {
                return *prepared;
            }
        }
        if (mEntries.size() == kEntries)
        {
            mEntries.erase(mEntries.begin());
        }
        mEntries.emplace_back(std::move(key), std::make_unique<Prepared>(make()));
        return *mEntries.back().second;
    }

private:
    static constexpr size_t kEntries = 4;
    using Key = std::pair<std::vector<Shape>, int32_t>;
    std::vector<std::pair<Key, std::unique_ptr<Prepared>>> mEntries;
};

} // namespace kiln::cpu::fast
