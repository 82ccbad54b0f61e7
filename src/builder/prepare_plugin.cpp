#include "builder/prepare_plugin.h"

#include "core/data_type.h"
#include "core/logging.h"

#include <algorithm>

namespace kiln::builder
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::TensorFormat;

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

//! What a position may be offered: a type and a format.
struct Candidate
{
    DataType type;
    TensorFormat format;
};

//! The formats to offer a tensor of `type` and `rank` axes (as the plugin sees them), the one Kiln stores it in
//! first: kLINEAR, then for INT8 TensorRT's vector-major INT8 layouts, kCHW32 and kCHW4, which need three axes.
std::vector<TensorFormat> candidateFormats(DataType type, int32_t rank)
{
    if (type == DataType::kINT8 && rank >= 3)
    {
        return {TensorFormat::kLINEAR, TensorFormat::kCHW32, TensorFormat::kCHW4};
    }
    return {TensorFormat::kLINEAR};
}

//! TensorRT's short name of a format, for messages.
char const* formatName(TensorFormat format)
{
    switch (format)
    {
    case TensorFormat::kCHW4: return "CHW4";
    case TensorFormat::kCHW32: return "CHW32";
    default: return "LINEAR";
    }
}

DynamicPluginTensorDesc describe(PluginTensorInfo const& tensor, Candidate chosen, size_t profile)
{
    DynamicPluginTensorDesc desc{};
    desc.desc.dims = tensor.dims;
    desc.desc.type = chosen.type;
    desc.desc.format = chosen.format;
    // A scale belongs to the tensor's quantized values: a plugin offered it in another type gets none.
    desc.desc.scale = chosen.type == tensor.type ? tensor.scale : -1.0F;
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
    //! `seenRanks`: the rank of each tensor as the plugin sees it (without the batch for the static-shape families).
    Negotiation(plugin::PluginAdapter& plugin, std::vector<PluginTensorInfo> const& tensors, int32_t nbInputs,
        bool preferHalf, std::vector<int32_t> seenRanks)
        : mPlugin(plugin)
        , mTensors(tensors)
        , mNbInputs(nbInputs)
        , mPreferHalf(preferHalf)
        , mSeenRanks(std::move(seenRanks))
    {
        for (auto const& tensor : tensors)
        {
            mDescs.push_back(describe(tensor, {tensor.type, TensorFormat::kLINEAR}, 0));
        }
        mRejected.resize(tensors.size());
    }

    bool run()
    {
        return search(0);
    }
    std::vector<Candidate> chosen() const
    {
        std::vector<Candidate> chosen;
        for (auto const& desc : mDescs)
        {
            chosen.push_back({desc.desc.type, desc.desc.format});
        }
        return chosen;
    }
    //! Why nothing fitted: the deepest position that rejected every candidate.
    std::string failure() const
    {
        int32_t const pos = mDeepestFailure;
        std::string const which = pos < mNbInputs ? "input " + std::to_string(pos)
                                                  : "output " + std::to_string(pos - mNbInputs);
        std::string tried;
        for (Candidate const& candidate : mRejected[pos])
        {
            tried += (tried.empty() ? "" : ", ") + dataTypeName(candidate.type) + "/" + formatName(candidate.format);
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
        for (Candidate const& candidate : candidates(pos))
        {
            if (mTried >= kCombinationLimit)
            {
                mLimitHit = true;
                return false;
            }
            ++mTried;
            mDescs[pos] = describe(mTensors[pos], candidate, 0);
            bool const accepted
                = mPlugin.supportsCombination(pos, mDescs, mNbInputs, static_cast<int32_t>(mDescs.size()) - mNbInputs);
            if (accepted && search(pos + 1))
            {
                return true;
            }
            if (!accepted)
            {
                mRejected[pos].push_back(candidate);
                mDeepestFailure = std::max(mDeepestFailure, pos);
            }
        }
        return false;
    }

    //! What position `pos` is offered, best first: each candidate type in each format it may take.
    std::vector<Candidate> candidates(int32_t pos) const
    {
        std::vector<Candidate> offered;
        for (DataType type : candidateTypes(mTensors[pos].type, mPreferHalf))
        {
            for (TensorFormat format : candidateFormats(type, mSeenRanks[pos]))
            {
                offered.push_back({type, format});
            }
        }
        return offered;
    }

    plugin::PluginAdapter& mPlugin;
    std::vector<PluginTensorInfo> const& mTensors;
    int32_t mNbInputs;
    bool mPreferHalf;
    std::vector<int32_t> mSeenRanks;
    std::vector<DynamicPluginTensorDesc> mDescs;
    std::vector<std::vector<Candidate>> mRejected;
    int32_t mDeepestFailure{0};
    int32_t mTried{0};
    bool mLimitHit{false};
};

//! Asks the plugin which outputs alias an input (IPluginV3OneBuildV2::getAliasedInput) and checks each answer: an
//! input of the layer's, of the output's negotiated type and format, aliased to one output at most.
bool chooseAliases(plugin::PluginAdapter& plugin, network::PluginParams& params, std::string& error)
{
    int32_t const nbOutputs = params.outputCount;
    int32_t const nbInputs = static_cast<int32_t>(params.ioTypes.size()) - nbOutputs;
    std::vector<int32_t> aliases(static_cast<size_t>(nbOutputs), -1);
    bool any = false;
    for (int32_t o = 0; o < nbOutputs; ++o)
    {
        int32_t const input = plugin.aliasedInput(o);
        std::string const what = "getAliasedInput(" + std::to_string(o) + ") returned " + std::to_string(input);
        if (input == -1)
        {
            continue;
        }
        if (input < 0 || input >= nbInputs)
        {
            error = what + ", which is not one of its " + std::to_string(nbInputs) + " inputs";
            return false;
        }
        if (std::find(aliases.begin(), aliases.end(), input) != aliases.end())
        {
            error = what + ", an input already aliased to another output";
            return false;
        }
        auto const slot = static_cast<size_t>(nbInputs + o);
        if (params.ioTypes[slot] != params.ioTypes[input] || params.ioFormats[slot] != params.ioFormats[input])
        {
            error = what + ", but the output is " + dataTypeName(params.ioTypes[slot]) + "/"
                + formatName(params.ioFormats[slot]) + " and the input " + dataTypeName(params.ioTypes[input]) + "/"
                + formatName(params.ioFormats[input]) + " (aliased tensors share one type and format)";
            return false;
        }
        aliases[static_cast<size_t>(o)] = input;
        any = true;
    }
    params.aliasedInputs = any ? aliases : std::vector<int32_t>{};
    return true;
}

//! The tensors as a timed run sees them: described at the last configured profile's kOPT shapes, each in memory for its
//! kMAX shape (a plugin may write a data-dependent output up to its bound). False where a shape is known only at run
//! time.
bool timedTensors(std::vector<DynamicPluginTensorDesc> const& tensors, std::vector<backend::TimedTensor>& timed)
{
    timed.clear();
    for (DynamicPluginTensorDesc const& tensor : tensors)
    {
        backend::TimedTensor entry{tensor.desc, 0};
        entry.desc.dims = tensor.opt;
        nvinfer1::PluginTensorDesc largest = tensor.desc;
        largest.dims = tensor.max;
        for (int32_t d = 0; d < tensor.opt.nbDims; ++d)
        {
            if (tensor.opt.d[d] < 0 || d >= tensor.max.nbDims || tensor.max.d[d] < tensor.opt.d[d])
            {
                return false;
            }
        }
        entry.bytes = backend::pluginTensorBytes(largest);
        timed.push_back(entry);
    }
    return true;
}

//! Times each tactic the plugin offers at the last configured profile's kOPT shapes and sets the fastest (the first
//! where the build cannot time: no timer, or an output known only at run time), as TensorRT does before it serializes.
bool chooseTactic(plugin::PluginAdapter& plugin, std::vector<DynamicPluginTensorDesc> const& in,
    std::vector<DynamicPluginTensorDesc> const& out, network::PluginParams& params, backend::PluginTimer* timer,
    std::string& error)
{
    std::vector<int32_t> tactics;
    if (!plugin.validTactics(tactics, error))
    {
        return false;
    }
    if (tactics.empty())
    {
        return true;
    }
    std::vector<backend::TimedTensor> inputs, outputs;
    bool const timed = tactics.size() > 1 && timer != nullptr && timedTensors(in, inputs) && timedTensors(out, outputs);
    int32_t best = tactics.front();
    double fastest = -1.0;
    for (int32_t tactic : timed ? tactics : std::vector<int32_t>{})
    {
        if (!plugin.setTactic(tactic, error))
        {
            return false;
        }
        double const took = timer->time(plugin, inputs, outputs, static_cast<size_t>(params.workspaceBytes), error);
        if (took < 0.0)
        {
            error = "timing tactic " + std::to_string(tactic) + ": " + error;
            return false;
        }
        logVerbose("plugin " + plugin.description() + ": tactic " + std::to_string(tactic) + " took "
            + std::to_string(took) + " ms");
        if (fastest < 0.0 || took < fastest)
        {
            fastest = took;
            best = tactic;
        }
    }
    if (tactics.size() > 1 && !timed)
    {
        logInfo("plugin " + plugin.description() + ": its tactics were not timed ("
            + (timer == nullptr ? "this build cannot run the backend's kernels here"
                                : "an output's shape is known only at run time")
            + "); it gets its first, " + std::to_string(best));
    }
    params.tactic = best;
    return plugin.setTactic(best, error);
}

} // namespace

bool preparePlugin(network::PluginParams& params, std::vector<PluginTensorInfo> const& inputs,
    std::vector<PluginTensorInfo> const& outputs, PluginBuildOptions const& options, std::string& error)
{
    bool const preferHalf = options.preferHalf;
    std::string const who = "plugin " + params.adapter->description();
    if (options.backend == Backend::kCPU && !params.adapter->hasHostExecution())
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

    // The static-shape V2 families see no batch axis, so a vector-major format needs four axes of the tensor there.
    bool const seesBatch = params.family == plugin::PluginFamily::kV2_DYNAMICEXT
        || params.family == plugin::PluginFamily::kV3;
    std::vector<int32_t> seenRanks;
    for (PluginTensorInfo const& tensor : tensors)
    {
        seenRanks.push_back(tensor.dims.nbDims - (seesBatch ? 0 : 1));
    }
    Negotiation negotiation(*building, tensors, nbInputs, preferHalf, seenRanks);
    if (!negotiation.run())
    {
        error = who + ": " + negotiation.failure();
        return false;
    }
    std::vector<Candidate> const chosen = negotiation.chosen();
    params.ioTypes.clear();
    params.ioFormats.clear();
    params.ioScales.clear();
    for (size_t slot = 0; slot < chosen.size(); ++slot)
    {
        params.ioTypes.push_back(chosen[slot].type);
        params.ioFormats.push_back(chosen[slot].format);
        params.ioScales.push_back(describe(tensors[slot], chosen[slot], 0).desc.scale);
    }

    size_t const nbProfiles = tensors.empty() ? 1 : tensors[0].profiles.size();
    std::vector<DynamicPluginTensorDesc> in, out;
    for (size_t profile = 0; profile < std::max<size_t>(nbProfiles, 1); ++profile)
    {
        in.clear();
        out.clear();
        for (int32_t i = 0; i < static_cast<int32_t>(tensors.size()); ++i)
        {
            (i < nbInputs ? in : out).push_back(describe(tensors[i], chosen[i], profile));
        }
        if (!building->configure(in, out, error))
        {
            error = who + ": profile " + std::to_string(profile) + ": " + error;
            return false;
        }
        params.workspaceBytes
            = std::max<int64_t>(params.workspaceBytes, static_cast<int64_t>(building->workspaceSize(in, out)));
    }
    if ((options.aliasedIo && !chooseAliases(*building, params, error))
        || !chooseTactic(*building, in, out, params, options.timer, error))
    {
        error = who + ": " + error;
        return false;
    }
    if (!building->initialize(error) || !building->serialize(params.payload, error))
    {
        error = who + ": " + error;
        return false;
    }
    return true;
}

} // namespace kiln::builder
