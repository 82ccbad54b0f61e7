#include "backend/cpu/fast/onednn.h"

#include "backend/cpu/fast/kernels.h"
#include "backend/cpu/kernels/tensor/reformat.h"
#include "core/logging.h"

#include <omp.h>
#include <sched.h>

#include <stdexcept>

namespace kiln::cpu::fast
{

using nvinfer1::ActivationType;

std::optional<Eltwise> eltwiseOf(ActivationType type, float alpha, float beta)
{
    using dnnl::algorithm;
    switch (type)
    {
    case ActivationType::kRELU: return Eltwise{algorithm::eltwise_relu, 0.0F, 0.0F};
    case ActivationType::kLEAKY_RELU: return Eltwise{algorithm::eltwise_relu, alpha, 0.0F};
    case ActivationType::kSIGMOID: return Eltwise{algorithm::eltwise_logistic, 0.0F, 0.0F};
    case ActivationType::kTANH: return Eltwise{algorithm::eltwise_tanh, 0.0F, 0.0F};
    case ActivationType::kELU: return Eltwise{algorithm::eltwise_elu, alpha, 0.0F};
    // Both max(alpha, min(beta, x)).
    case ActivationType::kCLIP: return Eltwise{algorithm::eltwise_clip, alpha, beta};
    case ActivationType::kGELU_ERF: return Eltwise{algorithm::eltwise_gelu_erf, 0.0F, 0.0F};
    case ActivationType::kGELU_TANH: return Eltwise{algorithm::eltwise_gelu_tanh, 0.0F, 0.0F};
    default: return std::nullopt;
    }
}

std::vector<Eltwise> activationPostOps(ActivationType type, float alpha, float beta, bool selfGated)
{
    using dnnl::algorithm;
    if (selfGated)
    {
        // oneDNN 2.6's hardswish is x * relu6(x + 3) / 6, ONNX's HardSwish: x * max(0, min(1, x / 6 + 1 / 2)).
        bool const hardSwish = type == ActivationType::kHARD_SIGMOID && alpha == 1.0F / 6.0F && beta == 0.5F;
        if (hardSwish)
        {
            return {Eltwise{algorithm::eltwise_hardswish, 0.0F, 0.0F}};
        }
        // swish is x * sigmoid(alpha x).
        return type == ActivationType::kSIGMOID ? std::vector<Eltwise>{Eltwise{algorithm::eltwise_swish, 1.0F, 0.0F}}
                                                : std::vector<Eltwise>{};
    }
    if (type == ActivationType::kHARD_SIGMOID)
    {
        // max(0, min(1, alpha x + beta)): linear computes alpha x + beta, clip_v2 bounds it to [alpha, beta].
        return {Eltwise{algorithm::eltwise_linear, alpha, beta}, Eltwise{algorithm::eltwise_clip_v2, 0.0F, 1.0F}};
    }
    std::optional<Eltwise> const single = eltwiseOf(type, alpha, beta);
    return single ? std::vector<Eltwise>{*single} : std::vector<Eltwise>{};
}

bool readsOneTensor(plan::LayerRecord const& layer)
{
    return layer.inputs.size() == 1 && layer.inputs[0] >= 0 && !layer.epilogue.any();
}

bool readsAsStored(plan::PlanModel const& model, plan::LayerRecord const& layer, size_t slot)
{
    int32_t const t = slot < layer.inputs.size() ? layer.inputs[slot] : layer.outputs.at(slot - layer.inputs.size());
    if (t < 0)
    {
        return false;
    }
    TensorFormat const format = model.tensors[t].format;
    bool const taken = format == TensorFormat::kLINEAR
        || (format == TensorFormat::kHWC && model.tensors[t].dims.size() == 4);
    return taken && plan::slotFormat(model, layer, slot) == format;
}

bool appliesActivation(plan::Epilogue const& epilogue)
{
    return !epilogue.activates || eltwiseOf(epilogue.activation, epilogue.alpha, epilogue.beta).has_value();
}

dnnl::primitive_attr activationAttributes(plan::Epilogue const& epilogue)
{
    dnnl::primitive_attr attributes;
    if (epilogue.activates)
    {
        Eltwise const eltwise = *eltwiseOf(epilogue.activation, epilogue.alpha, epilogue.beta);
        dnnl::post_ops postOps;
        postOps.append_eltwise(1.0F, eltwise.algorithm, eltwise.alpha, eltwise.beta);
        attributes.set_post_ops(postOps);
    }
    return attributes;
}

dnnl::memory::dims dimsOf(Shape const& shape)
{
    return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::desc linearDesc(Shape const& shape, dnnl::memory::data_type type)
{
    dnnl::memory::dims const dims = dimsOf(shape);
    dnnl::memory::dims strides(dims.size(), 1);
    for (size_t axis = dims.size(); axis-- > 1;)
    {
        strides[axis - 1] = strides[axis] * dims[axis];
    }
    return dnnl::memory::desc(dims, type, strides);
}

dnnl::memory::desc matrixDesc(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride)
{
    if (cols == 1)
    {
        colStride = rows == 1 ? 1 : rows * rowStride;
    }
    if (rows == 1)
    {
        rowStride = cols * colStride;
    }
    return dnnl::memory::desc({rows, cols}, dnnl::memory::data_type::f32, {rowStride, colStride});
}

dnnl::memory::desc storedDesc(Shape const& shape, TensorFormat format, dnnl::memory::data_type type)
{
    if (format == TensorFormat::kLINEAR)
    {
        return linearDesc(shape, type);
    }
    if (format != TensorFormat::kHWC || shape.size() < 3)
    {
        throw std::invalid_argument("the CPU backend's oneDNN kernels take kLINEAR and kHWC tensors of [N, C, "
                                    "spatial...] only");
    }
    // Memory axis p holds logical axis order[p]; the innermost steps by one element.
    std::vector<int32_t> const order = storedAxisOrder(format, shape.size());
    dnnl::memory::dims strides(shape.size(), 1);
    dnnl::memory::dim step = 1;
    for (size_t p = order.size(); p-- > 0;)
    {
        strides[static_cast<size_t>(order[p])] = step;
        step *= shape[static_cast<size_t>(order[p])];
    }
    return dnnl::memory::desc(dimsOf(shape), type, strides);
}

bool sameBytes(dnnl::memory::desc const& a, dnnl::memory::desc const& b)
{
    if (a == b)
    {
        return true;
    }
    dnnl_memory_desc_t const& x = a.data;
    dnnl_memory_desc_t const& y = b.data;
    if (x.format_kind != dnnl_blocked || y.format_kind != dnnl_blocked || x.format_desc.blocking.inner_nblks != 0
        || y.format_desc.blocking.inner_nblks != 0 || a.dims() != b.dims() || a.data_type() != b.data_type()
        || a.get_size() != b.get_size() || x.offset0 != y.offset0)
    {
        return false;
    }
    for (int axis = 0; axis < x.ndims; ++axis)
    {
        if (x.dims[axis] > 1 && x.format_desc.blocking.strides[axis] != y.format_desc.blocking.strides[axis])
        {
            return false;
        }
    }
    return true;
}

dnnl::memory userMemory(dnnl::memory::desc const& desc, dnnl::engine const& engine)
{
    return dnnl::memory(desc, engine, DNNL_MEMORY_NONE);
}

Staged::Staged(dnnl::memory::desc const& user, dnnl::memory::desc const& chosen, dnnl::engine const& engine)
    // Where the layouts place the elements alike, the primitive reads the user's buffer described as it chose.
    : mUser(userMemory(sameBytes(user, chosen) ? chosen : user, engine))
{
    if (!sameBytes(user, chosen))
    {
        mScratch = dnnl::memory(chosen, engine);
        mToScratch = dnnl::reorder(mUser, mScratch);
        mToUser = dnnl::reorder(mScratch, mUser);
    }
}

dnnl::memory Staged::read(void const* data, dnnl::stream& stream)
{
    // oneDNN's memory objects are not const-aware; a source is only read.
    mUser.set_data_handle(const_cast<void*>(data));
    if (!mScratch)
    {
        return mUser;
    }
    mToScratch.execute(stream, mUser, mScratch);
    return mScratch;
}

dnnl::memory Staged::target(void* data)
{
    mUser.set_data_handle(data);
    return mScratch ? mScratch : mUser;
}

void Staged::commit(void* data, dnnl::stream& stream)
{
    if (mScratch)
    {
        mUser.set_data_handle(data);
        mToUser.execute(stream, mScratch, mUser);
    }
}

PlainPrimitive::PlainPrimitive(dnnl::primitive primitive,
    std::vector<std::pair<int, dnnl::memory::desc>> const& arguments, dnnl::engine const& engine)
    : mPrimitive(std::move(primitive))
{
    for (auto const& [kind, desc] : arguments)
    {
        mOrder.push_back(kind);
        mArguments.emplace(kind, userMemory(desc, engine));
    }
}

void PlainPrimitive::run(std::initializer_list<void const*> buffers, dnnl::stream& stream)
{
    size_t slot = 0;
    for (void const* buffer : buffers)
    {
        // oneDNN's memory objects are not const-aware; sources are only read.
        mArguments.at(mOrder.at(slot++)).set_data_handle(const_cast<void*>(buffer));
    }
    mPrimitive.execute(stream, mArguments);
    stream.wait();
}

void RowConvolution::run(void const* input, void* output, dnnl::stream& stream)
{
    source.set_data_handle(const_cast<void*>(input));
    destination.set_data_handle(output);
    std::unordered_map<int, dnnl::memory> arguments{
        {DNNL_ARG_SRC, source}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, destination}};
    if (bias)
    {
        arguments.emplace(DNNL_ARG_BIAS, bias);
    }
    primitive.execute(stream, arguments);
    stream.wait();
}

Int8Rescaling int8Rescaling(float inputScale, std::vector<float> const& weightScales, std::vector<float> const& bias)
{
    Int8Rescaling rescaling;
    for (size_t c = 0; c < weightScales.size(); ++c)
    {
        rescaling.scales.push_back(inputScale * weightScales[c]);
        if (!bias.empty())
        {
            rescaling.bias.push_back(bias[c] / rescaling.scales.back());
        }
    }
    return rescaling;
}

dnnl::memory laidOutWeights(
    void const* values, dnnl::memory::desc const& user, dnnl::memory::desc const& chosen, State const& state)
{
    dnnl::memory laidOut(chosen, state.engine);
    // oneDNN's memory objects are not const-aware; the values are only read.
    dnnl::memory source(user, state.engine, const_cast<void*>(values));
    dnnl::stream stream(state.engine);
    dnnl::reorder(source, laidOut).execute(stream, source, laidOut);
    stream.wait();
    return laidOut;
}

int32_t threadsFor(State const& state, int64_t elements)
{
    return elements > kParallelElements ? state.resolvedThreads() : 1;
}

int32_t primitiveThreads(State const& state, int64_t elements)
{
    int32_t const threads = threadsFor(state, elements);
    omp_set_num_threads(threads);
    return threads;
}

int32_t availableCores()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
    {
        return std::max(1, CPU_COUNT(&set));
    }
    return std::max(1, omp_get_num_procs());
}

bool int8ProductsExact()
{
    static bool const exact = [] {
        dnnl::cpu_isa const isa = dnnl::get_effective_cpu_isa();
        bool const vnni = isa == dnnl::cpu_isa::avx2_vnni || isa == dnnl::cpu_isa::avx512_core_vnni
            || isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
        if (!vnni)
        {
            logInfo("Kiln's CPU fast path: oneDNN's INT8 kernels would saturate on this CPU (no VNNI); INT8 layers "
                    "run on the reference kernels");
        }
        return vnni;
    }();
    return exact;
}

ConstTensorView inFormat(ConstTensorView const& input, TensorFormat format, std::vector<std::byte>& scratch)
{
    if (input.format == format)
    {
        return input;
    }
    scratch.resize(static_cast<size_t>(input.count()) * elementSize(input.type));
    TensorView const converted{input.type, input.shape, scratch.data(), format};
    reformat(input, converted);
    return converted;
}

} // namespace kiln::cpu::fast
