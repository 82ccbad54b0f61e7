// The adapter for IPluginV2, IPluginV2Ext, IPluginV2IOExt and IPluginV2DynamicExt.
//
// The first three have static shapes and see no batch dimension: in Kiln's
// explicit-batch networks, the leading dimension of their first input is the
// batch, excluded from what they see and prepended to what they return.
#include "plugin/adapter/plugin_adapter.h"
#include "plugin/adapter/plugin_call.h"

#include <kiln/HostPlugin.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace kiln::plugin
{
namespace
{

using nvinfer1::Dims;
using nvinfer1::DimsExprs;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::PluginTensorDesc;

std::string cString(char const* s)
{
    return s ? s : "";
}

Dims withoutBatch(Dims const& dims)
{
    Dims out{};
    out.nbDims = dims.nbDims > 0 ? dims.nbDims - 1 : 0;
    for (int32_t i = 0; i < out.nbDims; ++i)
    {
        out.d[i] = dims.d[i + 1];
    }
    return out;
}

PluginTensorDesc descWithoutBatch(PluginTensorDesc desc)
{
    desc.dims = withoutBatch(desc.dims);
    return desc;
}

class V2Adapter final : public PluginAdapter
{
public:
    V2Adapter(nvinfer1::IPluginV2* plugin, PluginFamily family, std::string name, std::string version, std::string ns)
        : PluginAdapter(family, std::move(name), std::move(version), std::move(ns))
        , mPlugin(plugin)
        , mExt(dynamic_cast<nvinfer1::IPluginV2Ext*>(plugin))
        , mIOExt(dynamic_cast<nvinfer1::IPluginV2IOExt*>(plugin))
        , mDynamic(dynamic_cast<nvinfer1::IPluginV2DynamicExt*>(plugin))
    {
    }

    ~V2Adapter() override
    {
        std::string const who = description();
        if (mAttached && mExt)
        {
            callPlugin(who, "runtime", "detachFromContext", "", 0, [&] { return mExt->detachFromContext(), 0; });
        }
        if (mInitialized)
        {
            callPlugin(who, "runtime", "terminate", "", 0, [&] { return mPlugin->terminate(), 0; });
        }
        callPlugin(who, "runtime", "destroy", "", 0, [&] { return mPlugin->destroy(), 0; });
    }

    int32_t nbOutputs() override
    {
        int32_t const count
            = callPlugin(description(), "network", "getNbOutputs", "", -1, [&] { return mPlugin->getNbOutputs(); });
        return checkedOutputCount(description(), count);
    }

    bool outputTypes(std::vector<nvinfer1::DataType> const& inputTypes, std::vector<nvinfer1::DataType>& outputTypes,
        std::string& error) override
    {
        int32_t const count = nbOutputs();
        if (count < 0)
        {
            error = "getNbOutputs returned " + std::to_string(count);
            return false;
        }
        outputTypes.assign(count, inputTypes.empty() ? nvinfer1::DataType::kFLOAT : inputTypes[0]);
        if (mExt == nullptr)
        {
            return true; // IPluginV2 outputs have the type of the inputs
        }
        for (int32_t i = 0; i < count; ++i)
        {
            outputTypes[i] = callPlugin(description(), "network", "getOutputDataType", "index " + std::to_string(i),
                nvinfer1::DataType::kFLOAT,
                [&] { return mExt->getOutputDataType(i, inputTypes.data(), static_cast<int32_t>(inputTypes.size())); });
        }
        return true;
    }

    bool outputShapes(std::vector<DimsExprs> const& inputs, std::vector<DimsExprs> const& shapeInputs,
        nvinfer1::IExprBuilder& builder, std::vector<DimsExprs>& outputs, std::string& error) override
    {
        if (!shapeInputs.empty())
        {
            error = "shape-tensor inputs need an IPluginV3 plugin";
            return false;
        }
        int32_t const count = nbOutputs();
        outputs.assign(count < 0 ? 0 : count, DimsExprs{});
        if (mDynamic)
        {
            for (int32_t i = 0; i < count; ++i)
            {
                outputs[i] = callPlugin(description(), "network", "getOutputDimensions", "index " + std::to_string(i),
                    DimsExprs{-1, {}}, [&] {
                        return mDynamic->getOutputDimensions(
                            i, inputs.data(), static_cast<int32_t>(inputs.size()), builder);
                    });
                if (outputs[i].nbDims < 0 || outputs[i].nbDims > Dims::MAX_DIMS)
                {
                    error = "getOutputDimensions(" + std::to_string(i) + ") returned rank "
                        + std::to_string(outputs[i].nbDims);
                    return false;
                }
            }
            return true;
        }
        // Static-shape families: everything but the batch must be known now.
        std::vector<Dims> staticInputs;
        for (size_t input = 0; input < inputs.size(); ++input)
        {
            if (inputs[input].nbDims < 1)
            {
                error = "input " + std::to_string(input) + " has no batch dimension; " + familyName(family())
                    + " plugins take inputs whose leading dimension is the batch";
                return false;
            }
            Dims dims{};
            dims.nbDims = inputs[input].nbDims - 1;
            for (int32_t axis = 1; axis < inputs[input].nbDims; ++axis)
            {
                if (!inputs[input].d[axis]->isConstant())
                {
                    error = "dimension " + std::to_string(axis) + " of input " + std::to_string(input)
                        + " is known only at run time; " + familyName(family())
                        + " plugins allow that only for the batch (use IPluginV2DynamicExt or IPluginV3)";
                    return false;
                }
                dims.d[axis - 1] = inputs[input].d[axis]->getConstantValue();
            }
            staticInputs.push_back(dims);
        }
        nvinfer1::IDimensionExpr const* batch = inputs.empty() ? builder.constant(1) : inputs[0].d[0];
        for (int32_t i = 0; i < count; ++i)
        {
            Dims const dims = callPlugin(
                description(), "network", "getOutputDimensions", "index " + std::to_string(i), Dims{-1, {}}, [&] {
                    return mPlugin->getOutputDimensions(
                        i, staticInputs.data(), static_cast<int32_t>(staticInputs.size()));
                });
            if (dims.nbDims < 0 || dims.nbDims >= Dims::MAX_DIMS)
            {
                error = "getOutputDimensions(" + std::to_string(i) + ") returned rank " + std::to_string(dims.nbDims);
                return false;
            }
            outputs[i].nbDims = dims.nbDims + 1;
            outputs[i].d[0] = batch;
            for (int32_t axis = 0; axis < dims.nbDims; ++axis)
            {
                if (dims.d[axis] < 0)
                {
                    error = "getOutputDimensions(" + std::to_string(i) + ") returned extent "
                        + std::to_string(dims.d[axis]);
                    return false;
                }
                outputs[i].d[axis + 1] = builder.constant(dims.d[axis]);
            }
        }
        return true;
    }

    bool supportsCombination(
        int32_t pos, std::vector<DynamicPluginTensorDesc> const& inOut, int32_t nbInputs, int32_t nbOutputs) override
    {
        std::vector<PluginTensorDesc> descs;
        for (auto const& d : inOut)
        {
            descs.push_back(mDynamic ? d.desc : descWithoutBatch(d.desc));
        }
        std::string const details = "pos " + std::to_string(pos);
        if (mDynamic)
        {
            return callPlugin(description(), "build", "supportsFormatCombination", details, false,
                [&] { return mDynamic->supportsFormatCombination(pos, descs.data(), nbInputs, nbOutputs); });
        }
        if (mIOExt)
        {
            return callPlugin(description(), "build", "supportsFormatCombination", details, false,
                [&] { return mIOExt->supportsFormatCombination(pos, descs.data(), nbInputs, nbOutputs); });
        }
        // IPluginV2 and IPluginV2Ext answer per (type, format); IPluginV2 configures one type for all tensors, and
        // both one format (configureWithFormat's, configurePlugin's floatFormat).
        if (family() == PluginFamily::kV2 && pos > 0 && descs[pos].type != descs[0].type)
        {
            return false;
        }
        if (pos > 0 && descs[pos].format != descs[0].format)
        {
            return false;
        }
        return callPlugin(description(), "build", "supportsFormat", details, false,
            [&] { return mPlugin->supportsFormat(descs[pos].type, descs[pos].format); });
    }

    bool configure(std::vector<DynamicPluginTensorDesc> const& inputs,
        std::vector<DynamicPluginTensorDesc> const& outputs, std::string& error) override
    {
        auto const nbIn = static_cast<int32_t>(inputs.size());
        auto const nbOut = static_cast<int32_t>(outputs.size());
        mMaxBatch = inputs.empty() || inputs[0].max.nbDims == 0 ? 1 : static_cast<int32_t>(inputs[0].max.d[0]);
        if (mDynamic)
        {
            return callPlugin(description(), "build", "configurePlugin", "", false, [&] {
                mDynamic->configurePlugin(inputs.data(), nbIn, outputs.data(), nbOut);
                return true;
            });
        }
        std::vector<PluginTensorDesc> in, out;
        std::vector<Dims> inDims, outDims;
        std::vector<nvinfer1::DataType> inTypes, outTypes;
        for (auto const& d : inputs)
        {
            in.push_back(descWithoutBatch(d.desc));
            inDims.push_back(in.back().dims);
            inTypes.push_back(d.desc.type);
        }
        for (auto const& d : outputs)
        {
            out.push_back(descWithoutBatch(d.desc));
            outDims.push_back(out.back().dims);
            outTypes.push_back(d.desc.type);
        }
        if (mIOExt)
        {
            return callPlugin(description(), "build", "configurePlugin", "", false, [&] {
                mIOExt->configurePlugin(in.data(), nbIn, out.data(), nbOut);
                return true;
            });
        }
        // IPluginV2 and IPluginV2Ext are told one format: the first tensor's (each position was negotiated alone).
        nvinfer1::TensorFormat const format = !in.empty() ? in[0].format
            : !out.empty()                                ? out[0].format
                                                          : nvinfer1::TensorFormat::kLINEAR;
        if (mExt)
        {
            std::vector<char> inBroadcast(nbIn, 0), outBroadcast(nbOut, 0);
            return callPlugin(description(), "build", "configurePlugin", "", false, [&] {
                mExt->configurePlugin(inDims.data(), nbIn, outDims.data(), nbOut, inTypes.data(), outTypes.data(),
                    reinterpret_cast<bool const*>(inBroadcast.data()),
                    reinterpret_cast<bool const*>(outBroadcast.data()), format, mMaxBatch);
                return true;
            });
        }
        nvinfer1::DataType const type
            = !inTypes.empty() ? inTypes[0] : (!outTypes.empty() ? outTypes[0] : nvinfer1::DataType::kFLOAT);
        (void) error;
        return callPlugin(description(), "build", "configureWithFormat", "", false, [&] {
            mPlugin->configureWithFormat(inDims.data(), nbIn, outDims.data(), nbOut, type, format, mMaxBatch);
            return true;
        });
    }

    size_t workspaceSize(std::vector<DynamicPluginTensorDesc> const& inputs,
        std::vector<DynamicPluginTensorDesc> const& outputs) override
    {
        if (mDynamic)
        {
            std::vector<PluginTensorDesc> in, out;
            for (auto d : inputs)
            {
                d.desc.dims = d.max;
                in.push_back(d.desc);
            }
            for (auto d : outputs)
            {
                d.desc.dims = d.max;
                out.push_back(d.desc);
            }
            return callPlugin(description(), "build", "getWorkspaceSize", "", size_t{0}, [&] {
                return mDynamic->getWorkspaceSize(
                    in.data(), static_cast<int32_t>(in.size()), out.data(), static_cast<int32_t>(out.size()));
            });
        }
        return callPlugin(description(), "build", "getWorkspaceSize", "maxBatchSize " + std::to_string(mMaxBatch),
            size_t{0}, [&] { return mPlugin->getWorkspaceSize(mMaxBatch); });
    }

    bool initialize(std::string& error) override
    {
        int32_t const status
            = callPlugin(description(), "build", "initialize", "", -1, [&] { return mPlugin->initialize(); });
        if (status != 0)
        {
            error = "initialize returned " + std::to_string(status);
            return false;
        }
        mInitialized = true;
        return true;
    }

    std::unique_ptr<PluginAdapter> clone(std::string& error) override
    {
        nvinfer1::IPluginV2* copy = callPlugin(description(), "build", "clone", "",
            static_cast<nvinfer1::IPluginV2*>(nullptr), [&] { return mPlugin->clone(); });
        if (copy == nullptr)
        {
            error = "clone returned null";
            return nullptr;
        }
        return adaptPluginV2(copy, error);
    }

    bool serialize(PluginPayload& payload, std::string& error) override
    {
        size_t const size = callPlugin(description(), "build", "getSerializationSize", "", size_t{0},
            [&] { return mPlugin->getSerializationSize(); });
        payload.name = name();
        payload.version = version();
        payload.pluginNamespace = pluginNamespace();
        payload.family = family();
        try
        {
            payload.bytes.assign(size, 0);
        }
        catch (std::exception const&)
        {
            error = "getSerializationSize returned " + std::to_string(size) + " bytes, which cannot be allocated";
            return false;
        }
        return callPlugin(description(), "build", "serialize", std::to_string(size) + " bytes", false, [&] {
            mPlugin->serialize(payload.bytes.data());
            return true;
        }) || (error = "serialize threw", false);
    }

    std::unique_ptr<PluginAdapter> attachToContext(ContextResources const& resources, std::string& error) override
    {
        std::unique_ptr<PluginAdapter> copy = clone(error);
        if (copy == nullptr)
        {
            return nullptr;
        }
        auto& v2 = static_cast<V2Adapter&>(*copy);
        if (v2.mExt)
        {
            // On the CPU backend there is no cuDNN, cuBLAS or device allocator to offer: all three are null.
            auto const given = [](void const* p) { return p ? "given" : "null"; };
            std::string const what = std::string("cudnn ") + given(resources.cudnn) + ", cublas "
                + given(resources.cublas) + ", allocator " + given(resources.allocator);
            callPlugin(description(), "runtime", "attachToContext", what, 0, [&] {
                v2.mExt->attachToContext(resources.cudnn, resources.cublas, resources.allocator);
                return 0;
            });
            v2.mAttached = true;
        }
        return copy;
    }

    bool shapesChanged(std::vector<PluginTensorDesc> const& inputs, std::vector<PluginTensorDesc> const& outputs,
        std::string& error) override
    {
        if (!mDynamic)
        {
            return true;
        }
        auto concrete = [](PluginTensorDesc const& d) { return DynamicPluginTensorDesc{d, d.dims, d.dims, d.dims}; };
        std::vector<DynamicPluginTensorDesc> in, out;
        std::transform(inputs.begin(), inputs.end(), std::back_inserter(in), concrete);
        std::transform(outputs.begin(), outputs.end(), std::back_inserter(out), concrete);
        (void) error;
        return callPlugin(description(), "runtime", "configurePlugin", "shapes changed", false, [&] {
            mDynamic->configurePlugin(
                in.data(), static_cast<int32_t>(in.size()), out.data(), static_cast<int32_t>(out.size()));
            return true;
        });
    }

    bool runOnHost(std::vector<PluginTensorDesc> const& inputs, std::vector<PluginTensorDesc> const& outputs,
        void const* const* inputData, void* const* outputData, void* workspace, std::string& error) override
    {
        auto* host = dynamic_cast<kiln::IHostPlugin*>(mPlugin);
        if (host == nullptr)
        {
            error = "it does not implement kiln::IHostPlugin, so it cannot run on the CPU backend";
            return false;
        }
        int32_t const status = callPluginTraced(enqueueHostTrace(), description(), "enqueueHost", -1,
            [&] { return host->enqueueHost(inputs.data(), outputs.data(), inputData, outputData, workspace); });
        if (status != 0)
        {
            error = "enqueueHost returned " + std::to_string(status);
            return false;
        }
        return true;
    }

    bool hasHostExecution() override
    {
        return dynamic_cast<kiln::IHostPlugin*>(mPlugin) != nullptr;
    }

    bool runOnDevice(std::vector<PluginTensorDesc> const& inputs, std::vector<PluginTensorDesc> const& outputs,
        void const* const* inputData, void* const* outputData, void* workspace, cudaStream_t stream,
        std::string& error) override
    {
        int32_t status = 0;
        if (mDynamic != nullptr)
        {
            status = callPluginTraced(enqueueTrace(), description(), "enqueue", -1, [&] {
                return mDynamic->enqueue(inputs.data(), outputs.data(), inputData, outputData, workspace, stream);
            });
        }
        else
        {
            PluginTensorDesc const* first = !inputs.empty() ? inputs.data() : outputs.data();
            auto const batch = static_cast<int32_t>(first != nullptr && first->dims.nbDims > 0 ? first->dims.d[0] : 1);
            if (batch != mTracedBatch || mBatchTrace.empty())
            {
                // Made again only when the batch changes: a run in steady state formats no message.
                mBatchTrace
                    = pluginCallTrace(description(), "runtime", "enqueue", "batchSize " + std::to_string(batch));
                mTracedBatch = batch;
            }
            status = callPluginTraced(mBatchTrace, description(), "enqueue", -1,
                [&] { return mPlugin->enqueue(batch, inputData, outputData, workspace, stream); });
        }
        if (status == nvinfer1::kKILN_ENQUEUE_NOT_IMPLEMENTED)
        {
            error = "it overrides neither form of IPluginV2::enqueue";
            return false;
        }
        if (status != 0)
        {
            error = "enqueue returned " + std::to_string(status);
            return false;
        }
        return true;
    }

private:
    std::string mBatchTrace; //!< the kVERBOSE line of a static-shape enqueue at mTracedBatch
    int32_t mTracedBatch{0};
    nvinfer1::IPluginV2* mPlugin;
    nvinfer1::IPluginV2Ext* mExt;
    nvinfer1::IPluginV2IOExt* mIOExt;
    nvinfer1::IPluginV2DynamicExt* mDynamic;
    int32_t mMaxBatch{1};
    bool mInitialized{false};
    bool mAttached{false};
};

} // namespace

std::unique_ptr<PluginAdapter> adaptPluginV2(nvinfer1::IPluginV2* plugin, std::string& error)
{
    if (plugin == nullptr)
    {
        error = "the plugin is null";
        return nullptr;
    }
    PluginFamily family = PluginFamily::kV2;
    if (dynamic_cast<nvinfer1::IPluginV2DynamicExt*>(plugin))
    {
        family = PluginFamily::kV2_DYNAMICEXT;
    }
    else if (dynamic_cast<nvinfer1::IPluginV2IOExt*>(plugin))
    {
        family = PluginFamily::kV2_IOEXT;
    }
    else if (dynamic_cast<nvinfer1::IPluginV2Ext*>(plugin))
    {
        family = PluginFamily::kV2_EXT;
    }
    std::string name, version, ns;
    bool const ok
        = callPlugin("(unidentified IPluginV2)", "network", "getPluginType/Version/Namespace", "", false, [&] {
              name = cString(plugin->getPluginType());
              version = cString(plugin->getPluginVersion());
              ns = cString(plugin->getPluginNamespace());
              return true;
          });
    if (!ok || name.empty())
    {
        error = "the plugin does not report its type (getPluginType)";
        callPlugin("(unidentified IPluginV2)", "network", "destroy", "", 0, [&] { return plugin->destroy(), 0; });
        return nullptr;
    }
    return std::make_unique<V2Adapter>(plugin, family, std::move(name), std::move(version), std::move(ns));
}

} // namespace kiln::plugin
