#include "backend/cpu/cpu_executor.h"

#include "backend/cpu/constant_inputs.h"
#include "backend/cpu/kernels/tensor/reformat.h"
#include "backend/cpu/layer_runner.h"
#include "network/layers/constant.h"
#include "network/plugin_layer.h"

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace kiln::cpu
{

CpuExecutor::CpuExecutor(backend::LoadedPlan const& plan, plugin::ContextResources const& resources)
    : mPlan(plan)
{
    auto const& model = *plan.model;
    // Each context runs its own clones of the engine's plugins, attached to it.
    mPlugins.resize(model.layers.size());
    mReformatters.resize(model.layers.size());
    mFastKernels.resize(model.layers.size());
    mLinearFormats.resize(model.layers.size());
    mConverts.resize(model.layers.size());
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        if (fast::isMarked(model.layers[l]))
        {
            mFastKernels[l] = mFastPath.makeKernel(model.layers[l]);
        }
        prepareConversions(l);
        if (auto const* plugin = dynamic_cast<network::PluginParams const*>(&plan.params(l)))
        {
            std::string error;
            mPlugins[l] = backend::PluginRunner::attach(
                *plugin, backend::PluginRunner::Memory::kHOST, std::make_unique<HostReformatter>(), resources, error);
            if (mPlugins[l] == nullptr)
            {
                throw std::runtime_error("layer \"" + model.layers[l].name + "\": " + error);
            }
        }
    }
    takeConstantInputs();
}

void CpuExecutor::prepareConversions(size_t l)
{
    auto const& model = *mPlan.model;
    plan::LayerRecord const& record = model.layers[l];
    // The reference kernels read and write kLINEAR tensors only; the fast kernels the formats the plan chose. A slot
    // per input and output: a record whose slots read the tensors as stored holds no formats (a marked layer that the
    // reference kernels run on this CPU: fast::leavesToReference).
    mLinearFormats[l].assign(record.inputs.size() + record.outputs.size(), TensorFormat::kLINEAR);
    bool const fast = mFastKernels[l] != nullptr;
    bool converts = false;
    size_t slot = 0;
    for (auto const* tensors : {&record.inputs, &record.outputs})
    {
        for (int32_t t : *tensors)
        {
            if (t >= 0)
            {
                plan::TensorRecord const& tensor = model.tensors[t];
                TensorFormat const format = fast ? plan::slotFormat(model, record, slot) : TensorFormat::kLINEAR;
                converts = converts || tensor.format != format || plan::slotType(model, record, slot) != tensor.type;
            }
            ++slot;
        }
    }
    mConverts[l] = converts;
}

void CpuExecutor::takeConstantInputs()
{
    auto const& model = *mPlan.model;
    std::vector<ConstTensorView> const constants = constantValues(model);
    std::vector<std::vector<bool>> taken(model.layers.size());
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        plan::LayerRecord const& layer = model.layers[l];
        for (size_t input = 0; mFastKernels[l] && input < layer.inputs.size(); ++input)
        {
            int32_t const t = layer.inputs[input];
            // As the kernel reads it: FP32, with no conversion on the way.
            bool const offered = t >= 0 && constants[t].data != nullptr
                && constants[t].type == nvinfer1::DataType::kFLOAT
                && plan::slotType(model, layer, input) == nvinfer1::DataType::kFLOAT;
            taken[l].push_back(offered && mFastKernels[l]->takeConstantInput(input, constants[t]));
        }
    }
    mUnneeded = unneededLayers(model, constants, taken);
}

void const* CpuExecutor::constantAddress(size_t l) const
{
    auto const* constant = dynamic_cast<network::ConstantParams const*>(&mPlan.params(l));
    return constant != nullptr ? constant->weights.data() : nullptr;
}

void CpuExecutor::allocateContextMemory()
{
    // Allocated once: the plan's memory layout fits the largest shapes of every profile. A negative size (a damaged
    // plan's) would wrap to a huge request, or with the byte added below to an empty one.
    if (mPlan.contextMemoryBytes < 0)
    {
        throw std::runtime_error(
            "the plan's context memory size is negative (" + std::to_string(mPlan.contextMemoryBytes) + " bytes)");
    }
    size_t const bytes = static_cast<size_t>(mPlan.contextMemoryBytes) + 1; // never 0: allocate(0) means failure
    if (mPlan.allocator != nullptr)
    {
        // The runtime's IGpuAllocator gives the context memory, as on the CUDA backend; this backend's "device" is
        // the host, so the allocator must give host memory (as setDeviceMemory takes on this backend).
        void* memory = mPlan.allocator->allocate(bytes, kContextMemoryAlignment, 0);
        if (memory == nullptr)
        {
            throw std::runtime_error("the runtime's IGpuAllocator gave no memory for the context's "
                + std::to_string(bytes) + " bytes of activations and plugin workspace");
        }
        mAllocated = memory;
        mContextMemory = static_cast<std::byte*>(memory);
        return;
    }
    mOwnedMemory.reset(new (std::nothrow) std::byte[bytes]);
    if (mOwnedMemory == nullptr)
    {
        throw std::runtime_error("out of host memory: could not allocate " + std::to_string(bytes)
            + " bytes for the context's activations and plugin workspace");
    }
    mContextMemory = mOwnedMemory.get();
}

CpuExecutor::~CpuExecutor()
{
    if (mAllocated != nullptr)
    {
        mPlan.allocator->deallocate(mAllocated);
    }
}

bool CpuExecutor::runLayer(size_t l, std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
    cudaStream_t, std::string& error)
{
    if (mUnneeded[l])
    {
        return true;
    }
    if (mPlugins[l])
    {
        return mPlugins[l]->run(inputs, outputs, mContextMemory + mPlan.workspaceOffset, nullptr, error);
    }
    return mFastKernels[l] ? runFastLayer(l, inputs, outputs, error) : runBuiltInLayer(l, inputs, outputs, error);
}

bool CpuExecutor::runFastLayer(
    size_t l, std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, std::string& error)
{
    try
    {
        if (!mConverts[l])
        {
            mFastPath.run(*mFastKernels[l], inputs, outputs);
            return true;
        }
        // A fast kernel reads and writes the formats the plan chose for its slots (a channels-last region's edge).
        plan::LayerRecord const& record = mPlan.model->layers[l];
        return mReformatters[l].around(record.ioTypes, record.ioFormats, inputs, outputs, nullptr,
            [&](std::vector<ConstTensorView> const& in, std::vector<TensorView> const& out) {
                mFastPath.run(*mFastKernels[l], in, out);
                return true;
            });
    }
    catch (std::exception const& e)
    {
        error = e.what();
        return false;
    }
}

bool CpuExecutor::runBuiltInLayer(
    size_t l, std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, std::string& error)
{
    plan::LayerRecord const& record = mPlan.model->layers[l];
    if (!mConverts[l])
    {
        return cpu::runLayer(record, inputs, outputs, error); // the tensors as stored: no views to make
    }
    return mReformatters[l].around(record.ioTypes, mLinearFormats[l], inputs, outputs, nullptr,
        [&](std::vector<ConstTensorView> const& in, std::vector<TensorView> const& out) {
            return cpu::runLayer(record, in, out, error);
        });
}

void CpuExecutor::copyTensor(ConstTensorView const& from, TensorView const& to, cudaStream_t)
{
    reformat(from, to); // a plain copy where type and format agree
}

} // namespace kiln::cpu
