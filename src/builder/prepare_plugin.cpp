#include "builder/prepare_plugin.h"

#include "core/data_type.h"

#include <algorithm>

namespace kiln::builder
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::DynamicPluginTensorDesc;

constexpr int32_t kCombinationLimit = 100;

//! Types to offer at one position, best first: the tensor's own type (no conversion
//! needed), then the other float types the CPU backend converts to and from.
std::vector<DataType> candidateTypes(DataType own, bool preferHalf)
{
    if (!isFloatType(own))
    {
        return {own};
    }
    std::vector<DataType> order{own};
    for (DataType other : preferHalf ? std::vector<DataType>{DataType::kHALF, DataType::kFLOAT}
                                     : std::vector<DataType>{DataType::kFLOAT, DataType::kHALF})
    {
        if (other != own)
        {
            order.push_back(other);
        }
    }
    return order;
}

DynamicPluginTensorDesc describe(PluginTensorInfo const& tensor, DataType type, size_t profile)
{
    DynamicPluginTensorDesc desc{};
    desc.desc.dims = tensor.dims;
    desc.desc.type = type;
    desc.desc.format = nvinfer1::TensorFormat::kLINEAR;
    desc.desc.scale = -1.0f;
    if (profile < tensor.profiles.size())
    {
        desc.min = tensor.profiles[profile][0];
        desc.opt = tensor.profiles[profile][1];
        desc.max = tensor.profiles[profile][2];
    }
    return desc;
}

//! Depth-first search over positions, asking the plugin about inOut[pos] with
//! inOut[0..pos-1] already chosen, as TensorRT's protocol requires.
class Negotiation
{
public:
    Negotiation(
        plugin::PluginAdapter& plugin, std::vector<PluginTensorInfo> const& tensors, int32_t nbInputs, bool preferHalf)
        : mPlugin(plugin)
        , mTensors(tensors)
        , mNbInputs(nbInputs)
        , mPreferHalf(preferHalf)
    {
        for (auto const& tensor : tensors)
        {
            mDescs.push_back(describe(tensor, tensor.type, 0));
        }
        mRejected.resize(tensors.size());
    }

    bool run()
    {
        return search(0);
    }
    std::vector<DataType> chosen() const
    {
        std::vector<DataType> types;
        for (auto const& desc : mDescs)
        {
            types.push_back(desc.desc.type);
        }
        return types;
    }
    //! Why nothing fitted: the deepest position that rejected every candidate.
    std::string failure() const
    {
        int32_t const pos = mDeepestFailure;
        std::string const which = pos < mNbInputs ? "input " + std::to_string(pos)
                                                  : "output " + std::to_string(pos - mNbInputs);
        std::string tried;
        for (auto const& type : mRejected[pos])
        {
            tried += (tried.empty() ? "" : ", ") + dataTypeName(type) + "/LINEAR";
        }
        return "no supported format combination: position " + std::to_string(pos) + " (" + which + ") rejected " + tried
            + " after " + std::to_string(mTried) + " question(s)" + (mLimitHit ? " (stopped at the limit of 100)" : "");
    }

private:
    bool search(int32_t pos)
    {
        if (pos == static_cast<int32_t>(mDescs.size()))
        {
            return true;
        }
        for (DataType type : candidateTypes(mTensors[pos].type, mPreferHalf))
        {
            if (mTried >= kCombinationLimit)
            {
                mLimitHit = true;
                return false;
            }
            ++mTried;
            mDescs[pos].desc.type = type;
            bool const accepted
                = mPlugin.supportsCombination(pos, mDescs, mNbInputs, static_cast<int32_t>(mDescs.size()) - mNbInputs);
            if (accepted && search(pos + 1))
            {
                return true;
            }
            if (!accepted)
            {
                mRejected[pos].push_back(type);
                mDeepestFailure = std::max(mDeepestFailure, pos);
            }
        }
        return false;
    }

    plugin::PluginAdapter& mPlugin;
    std::vector<PluginTensorInfo> const& mTensors;
    int32_t mNbInputs;
    bool mPreferHalf;
    std::vector<DynamicPluginTensorDesc> mDescs;
    std::vector<std::vector<DataType>> mRejected;
    int32_t mDeepestFailure{0};
    int32_t mTried{0};
    bool mLimitHit{false};
};

} // namespace

bool preparePlugin(network::PluginParams& params, std::vector<PluginTensorInfo> const& inputs,
    std::vector<PluginTensorInfo> const& outputs, bool preferHalf, Backend backend, std::string& error)
{
    std::string const who = "plugin " + params.adapter->description();
    if (backend == Backend::kCPU && !params.adapter->hasHostExecution())
    {
        error = who
            + " does not implement kiln::IHostPlugin, so it cannot run on the CPU backend "
              "(see include/kiln/HostPlugin.h)";
        return false;
    }
    // TensorRT builds with its own clone; the network's plugin stays as the application configured it.
    std::shared_ptr<plugin::PluginAdapter> building = params.adapter->clone(error);
    if (building == nullptr)
    {
        error = who + ": " + error;
        return false;
    }
    // Shape inputs of V3 plugins are not negotiated: they are read while shapes are inferred.
    std::vector<PluginTensorInfo> tensors(inputs.begin(), inputs.end() - params.nbShapeInputs);
    int32_t const nbInputs = static_cast<int32_t>(tensors.size());
    tensors.insert(tensors.end(), outputs.begin(), outputs.end());

    Negotiation negotiation(*building, tensors, nbInputs, preferHalf);
    if (!negotiation.run())
    {
        error = who + ": " + negotiation.failure();
        return false;
    }
    params.ioTypes = negotiation.chosen();

    size_t const nbProfiles = tensors.empty() ? 1 : tensors[0].profiles.size();
    for (size_t profile = 0; profile < std::max<size_t>(nbProfiles, 1); ++profile)
    {
        std::vector<DynamicPluginTensorDesc> in, out;
        for (int32_t i = 0; i < static_cast<int32_t>(tensors.size()); ++i)
        {
            (i < nbInputs ? in : out).push_back(describe(tensors[i], params.ioTypes[i], profile));
        }
        if (!building->configure(in, out, error))
        {
            error = who + ": profile " + std::to_string(profile) + ": " + error;
            return false;
        }
        params.workspaceBytes
            = std::max<int64_t>(params.workspaceBytes, static_cast<int64_t>(building->workspaceSize(in, out)));
    }
    if (!building->initialize(error) || !building->serialize(params.payload, error))
    {
        error = who + ": " + error;
        return false;
    }
    return true;
}

} // namespace kiln::builder
