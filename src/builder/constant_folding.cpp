#include "builder/constant_folding.h"

#include "backend/cpu/host_reformatter.h"
#include "backend/cpu/layer_runner.h"
#include "core/logging.h"
#include "network/layers/constant.h"
#include "plan/plan_graph.h"
#include "shape/expr.h"

#include <algorithm>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::builder
{
namespace
{

using nvinfer1::LayerType;
using plan::LayerRecord;
using plan::PlanModel;

//! A folded result up to this size is always kept, whatever it was computed from.
constexpr int64_t kAlwaysFoldedBytes = int64_t{1} << 20;
//! A larger one is kept only where it is at most this many times the bytes of the constants it was computed from:
//! a Transpose, Concat or Cast of weights folds, an Expand of a scalar into a large tensor does not (the plan would
//! carry, and a context would hold, the expanded copy, for the price of one cheap kernel saved).
constexpr int64_t kMaxGrowth = 4;

int64_t bytesOf(ConstTensorView const& view)
{
    return view.count() * static_cast<int64_t>(elementSize(view.type));
}

class ConstantFolder
{
public:
    explicit ConstantFolder(PlanModel& model)
        : mModel(model)
        , mValues(model.tensors.size())
        , mSizeTensor(model.tensors.size(), false)
        , mFixed(plan::valuesNoRunChanges(model))
    {
        for (plan::SymbolRecord const& symbol : model.symbols)
        {
            if (symbol.kind == plan::SymbolRecord::Kind::kSIZE)
            {
                mSizeTensor[symbol.tensor] = true; // read by the execution context once its layer has run
            }
        }
    }

    FoldingResult run()
    {
        FoldingResult result;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (!plan::paramsOf<network::ConstantParams>(mModel.layers[l]) && fold(l))
            {
                ++result.folded;
            }
            learnConstant(l);
        }
        result.removed = removeUnreadLayers();
        return result;
    }

private:
    //! Where layer l is a constant whose weights hold its output as the plan stores it: that output's values.
    void learnConstant(size_t l)
    {
        LayerRecord const& layer = mModel.layers[l];
        auto const* constant = plan::fixedConstant(layer); // refittable weights are values known only at run time
        if (constant == nullptr || layer.outputs.size() != 1)
        {
            return;
        }
        int32_t const t = layer.outputs[0];
        std::optional<std::vector<int64_t>> const dims = fixedDims(t);
        if (dims && constant->weights.type() == mModel.tensors[t].type && constant->weights.count() == volume(*dims)
            && mModel.tensors[t].format == nvinfer1::TensorFormat::kLINEAR)
        {
            mValues[t] = ConstTensorView(constant->weights.type(), *dims, constant->weights.data());
        }
    }

    //! Tensor t's extents where no run changes them (plan::valuesNoRunChanges).
    std::optional<std::vector<int64_t>> fixedDims(int32_t t) const
    {
        std::vector<int64_t> extents;
        for (int32_t node : mModel.tensors[t].dims)
        {
            if (!mFixed[static_cast<size_t>(node)])
            {
                return std::nullopt;
            }
            extents.push_back(*mFixed[static_cast<size_t>(node)]);
        }
        return extents;
    }

    bool isConstant(int32_t t) const
    {
        return mValues[t].data != nullptr;
    }

    //! The constant inputs of layer l as its kernel is given them (absent optional inputs as empty views), where
    //! every input it has is one; `bytes` adds up their sizes.
    std::optional<std::vector<ConstTensorView>> constantInputs(LayerRecord const& layer, int64_t& bytes) const
    {
        std::vector<ConstTensorView> inputs;
        bool any = false;
        for (int32_t t : layer.inputs)
        {
            if (t >= 0 && !isConstant(t))
            {
                return std::nullopt;
            }
            any = any || t >= 0;
            inputs.push_back(t >= 0 ? mValues[t] : ConstTensorView{});
            bytes += t >= 0 ? bytesOf(mValues[t]) : 0;
        }
        if (!any)
        {
            return std::nullopt; // a layer that makes data from nothing (a static fill) is left to its kernel
        }
        return inputs;
    }

    //! Whether tensor t can be a folded constant's output: a non-empty shape no run changes, a type weights hold,
    //! stored row-major, and not a size tensor (whose value the execution context learns by running its layer).
    bool foldableOutput(int32_t t) const
    {
        std::optional<std::vector<int64_t>> const dims = fixedDims(t);
        plan::TensorRecord const& tensor = mModel.tensors[t];
        return dims && volume(*dims) > 0 && isNumericType(tensor.type) && network::weightsElementSize(tensor.type) > 0
            && tensor.format == nvinfer1::TensorFormat::kLINEAR && !mSizeTensor[t];
    }

    //! The values of shape tensor t where no run changes any of them: an extent that no profile changes (a head's
    //! depth in Shape -> Slice -> Cast -> Sqrt, as exports compute an attention's scale), although the tensor it came
    //! from may have dynamic extents elsewhere, or one that every profile pins (plan::valuesNoRunChanges).
    std::optional<std::vector<int64_t>> valuesKnownAtBuild(int32_t t) const
    {
        plan::TensorRecord const& tensor = mModel.tensors[t];
        if (!tensor.values || (tensor.type != nvinfer1::DataType::kINT32 && tensor.type != nvinfer1::DataType::kINT64))
        {
            return std::nullopt;
        }
        std::vector<int64_t> values;
        for (int32_t node : *tensor.values)
        {
            if (!mFixed[static_cast<size_t>(node)])
            {
                return std::nullopt;
            }
            values.push_back(*mFixed[static_cast<size_t>(node)]);
        }
        return values;
    }

    //! Layer l's output as a constant holding `values`, converted to the tensor's index type.
    void replaceByValues(size_t l, std::vector<int64_t> const& values)
    {
        LayerRecord& layer = mModel.layers[l];
        plan::TensorRecord const& tensor = mModel.tensors[layer.outputs[0]];
        Shape const shape = *fixedDims(layer.outputs[0]);
        std::vector<std::byte> bytes(values.size() * elementSize(tensor.type));
        for (size_t i = 0; i < values.size(); ++i)
        {
            if (tensor.type == nvinfer1::DataType::kINT32)
            {
                auto const value = static_cast<int32_t>(values[i]);
                std::memcpy(bytes.data() + i * sizeof(value), &value, sizeof(value));
            }
            else
            {
                std::memcpy(bytes.data() + i * sizeof(int64_t), &values[i], sizeof(int64_t));
            }
        }
        replaceByConstant(layer, tensor.type, shape, bytes.data());
    }

    //! Replaces layer l by a constant holding its output, where it reads only constants, or makes shape values
    //! that are the same in every profile, and folding it pays.
    bool fold(size_t l)
    {
        LayerRecord& layer = mModel.layers[l];
        if (!foldableKind(layer) || layer.outputs.size() != 1 || layer.epilogue.any() || !layer.ioFormats.empty()
            || !layer.guards.empty() || !foldableOutput(layer.outputs[0]))
        {
            return false;
        }
        std::optional<std::vector<int64_t>> const known = valuesKnownAtBuild(layer.outputs[0]);
        if (known && static_cast<int64_t>(known->size()) == volume(*fixedDims(layer.outputs[0])))
        {
            replaceByValues(l, *known);
            return true;
        }
        int64_t inputBytes = 0;
        std::optional<std::vector<ConstTensorView>> const inputs = constantInputs(layer, inputBytes);
        bool const empty = inputs && std::any_of(inputs->begin(), inputs->end(), [](ConstTensorView const& v) {
            return v.data != nullptr && v.count() == 0;
        });
        if (!inputs || empty)
        {
            return false;
        }
        int32_t const t = layer.outputs[0];
        plan::TensorRecord const& tensor = mModel.tensors[t];
        Shape const shape = *fixedDims(t);
        int64_t const outputBytes = volume(shape) * static_cast<int64_t>(elementSize(tensor.type));
        if (outputBytes > kAlwaysFoldedBytes && outputBytes > kMaxGrowth * inputBytes)
        {
            return false;
        }
        std::vector<std::byte> values(static_cast<size_t>(outputBytes));
        std::vector<TensorView> const outputs{TensorView{tensor.type, shape, values.data()}};
        // The layer computes as it would at run time: in the types the builder chose for it, converting from and to
        // the types its tensors are stored in.
        cpu::HostReformatter reformatter;
        std::string error;
        bool const computed = reformatter.around(layer.ioTypes, {}, *inputs, outputs, nullptr,
            [&](std::vector<ConstTensorView> const& in, std::vector<TensorView> const& out) {
                return cpu::runLayer(layer, in, out, error);
            });
        if (!computed)
        {
            logVerbose("layer \"" + layer.name + "\" reads only constants but is not folded: " + error);
            return false;
        }
        replaceByConstant(layer, tensor.type, shape, values.data());
        return true;
    }

    //! Makes `layer` a constant layer named after it, of `shape` and `type`, holding the values at `data`.
    static void replaceByConstant(LayerRecord& layer, nvinfer1::DataType type, Shape const& shape, void const* data)
    {
        auto constant = std::make_shared<network::ConstantParams>();
        constant->dimensions.nbDims = static_cast<int32_t>(shape.size());
        std::copy(shape.begin(), shape.end(), constant->dimensions.d);
        constant->weights = network::WeightsBuffer(nvinfer1::Weights{type, data, volume(shape)});
        LayerRecord replacement;
        replacement.type = LayerType::kCONSTANT;
        replacement.name = "folded: " + layer.name;
        replacement.outputs = layer.outputs;
        replacement.params = std::move(constant);
        layer = std::move(replacement);
    }

    //! Removes, from the last layer back, the constants and the other layers of foldable kinds (which compute
    //! nothing but their outputs) whose outputs no remaining layer reads and that make no network output; how many.
    //! Shape layers whose values all folded go too, so that a tensor they read keeps only its data readers.
    size_t removeUnreadLayers()
    {
        std::vector<std::vector<size_t>> const readers = plan::readersOf(mModel);
        std::vector<size_t> liveReaders(mModel.tensors.size(), 0);
        for (size_t t = 0; t < readers.size(); ++t)
        {
            liveReaders[t] = readers[t].size();
        }
        std::vector<bool> unread(mModel.layers.size(), false);
        for (size_t l = mModel.layers.size(); l-- > 0;)
        {
            LayerRecord const& layer = mModel.layers[l];
            bool const pure = plan::paramsOf<network::ConstantParams>(layer) != nullptr
                || (foldableKind(layer) && layer.guards.empty());
            unread[l] = pure && std::all_of(layer.outputs.begin(), layer.outputs.end(), [&](int32_t t) {
                return liveReaders[t] == 0 && !plan::isObserved(mModel.tensors[t]) && !mSizeTensor[t];
            });
            for (int32_t t : unread[l] ? layer.inputs : std::vector<int32_t>{})
            {
                if (t >= 0)
                {
                    --liveReaders[t];
                }
            }
        }
        plan::eraseLayers(mModel, unread);
        return static_cast<size_t>(std::count(unread.begin(), unread.end(), true));
    }

    PlanModel& mModel;
    std::vector<ConstTensorView> mValues;       //!< by tensor: its values where a constant layer makes it
    std::vector<bool> mSizeTensor;              //!< by tensor: whether it is a size tensor
    std::vector<std::optional<int64_t>> mFixed; //!< by expression node: its value where no run changes it
};

} // namespace

bool foldableKind(LayerRecord const& layer)
{
    return layer.params != nullptr && layer.params->foldsWhenConstant();
}

FoldingResult foldConstants(PlanModel& model)
{
    return ConstantFolder(model).run();
}

} // namespace kiln::builder
