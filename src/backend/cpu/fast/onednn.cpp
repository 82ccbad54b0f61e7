#include "backend/cpu/fast/onednn.h"

#include <omp.h>
#include <sched.h>

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

bool readsOneTensor(plan::LayerRecord const& layer)
{
    return layer.inputs.size() == 1 && layer.inputs[0] >= 0 && !layer.epilogue.any();
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

dnnl::memory userMemory(dnnl::memory::desc const& desc, dnnl::engine const& engine)
{
    return dnnl::memory(desc, engine, DNNL_MEMORY_NONE);
}

Staged::Staged(dnnl::memory::desc const& user, dnnl::memory::desc const& chosen, dnnl::engine const& engine)
    : mUser(userMemory(user, engine))
{
    if (chosen != user)
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

} // namespace kiln::cpu::fast
