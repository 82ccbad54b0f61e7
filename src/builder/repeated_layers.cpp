#include "builder/repeated_layers.h"

#include "builder/constant_folding.h"
#include "network/layers/constant.h"
#include "serial/byte_io.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::builder
{
namespace
{

using plan::LayerRecord;
using plan::PlanModel;

class RepeatedLayers
{
public:
    explicit RepeatedLayers(PlanModel& model)
        : mModel(model)
        , mKept(model.tensors.size(), false)
        , mSameAs(model.tensors.size())
    {
        for (size_t t = 0; t < mSameAs.size(); ++t)
        {
            mSameAs[t] = static_cast<int32_t>(t);
            // A shape tensor's values are expressions of its own (a repeat's equal the first's), so only what is
            // reached by index stays: observed tensors, symbols' tensors and conditions.
            mKept[t] = plan::isObserved(model.tensors[t]);
        }
        for (plan::SymbolRecord const& symbol : model.symbols)
        {
            mKept[symbol.tensor] = true; // the execution context reads it by its index
        }
        for (LayerRecord const& layer : model.layers)
        {
            for (plan::Guard const& guard : layer.guards)
            {
                mKept[guard.condition] = true;
            }
        }
    }

    size_t run()
    {
        std::vector<bool> merged(mModel.layers.size(), false);
        std::unordered_map<std::string, size_t> firstWithKey;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            LayerRecord& layer = mModel.layers[l];
            for (int32_t& t : layer.inputs)
            {
                t = t >= 0 ? mSameAs[t] : t;
            }
            if (!mergeable(layer))
            {
                continue;
            }
            auto const [first, inserted] = firstWithKey.emplace(keyOf(layer), l);
            if (inserted || !sameOutputs(mModel.layers[first->second], layer))
            {
                continue;
            }
            for (size_t o = 0; o < layer.outputs.size(); ++o)
            {
                mSameAs[layer.outputs[o]] = mModel.layers[first->second].outputs[o];
            }
            merged[l] = true;
        }
        plan::eraseLayers(mModel, merged);
        return static_cast<size_t>(std::count(merged.begin(), merged.end(), true));
    }

private:
    bool mergeable(LayerRecord const& layer) const
    {
        bool const pureKind = layer.type == nvinfer1::LayerType::kCONSTANT ? smallFixedConstant(layer)
                                                                           : foldableKind(layer);
        if (!pureKind || !layer.guards.empty() || layer.epilogue.any() || !layer.backendChoice.empty())
        {
            return false;
        }
        for (int32_t t : layer.outputs)
        {
            if (mKept[t])
            {
                return false;
            }
        }
        return true;
    }

    static bool smallFixedConstant(LayerRecord const& layer)
    {
        network::ConstantParams const* constant = plan::fixedConstant(layer);
        return constant != nullptr && constant->weights.count() <= kMaxMergedConstantElements;
    }

    //! Everything that decides what the layer computes: its type, parameters as the plan writes them, inputs (each
    //! already the first of its repeats), precision, and I/O types and formats.
    static std::string keyOf(LayerRecord const& layer)
    {
        serial::ByteWriter key;
        key.write(static_cast<int32_t>(layer.type));
        serial::ByteWriter params;
        layer.params->write(params);
        key.writeBytes(params.bytes().data(), params.bytes().size());
        key.writeBytes(layer.inputs.data(), layer.inputs.size() * sizeof(int32_t));
        key.write(static_cast<int32_t>(layer.outputs.size()));
        key.write(layer.precision.has_value());
        key.write(static_cast<int32_t>(layer.precision.value_or(nvinfer1::DataType::kFLOAT)));
        key.writeBytes(layer.ioTypes.data(), layer.ioTypes.size() * sizeof(nvinfer1::DataType));
        key.writeBytes(layer.ioFormats.data(), layer.ioFormats.size() * sizeof(nvinfer1::TensorFormat));
        return std::string(key.bytes().begin(), key.bytes().end());
    }

    //! Whether `repeat`'s outputs are stored as `first`'s, so that its readers may read those instead.
    bool sameOutputs(LayerRecord const& first, LayerRecord const& repeat) const
    {
        for (size_t o = 0; o < repeat.outputs.size(); ++o)
        {
            plan::TensorRecord const& a = mModel.tensors[first.outputs[o]];
            plan::TensorRecord const& b = mModel.tensors[repeat.outputs[o]];
            // Their shapes are equal (the same layer computed them from the same inputs), but not always their
            // extents' expressions: a constant folded from a broadcast keeps the extents it had, expressions of the
            // inputs' (torchvision's ViT expands its class token to [batch, 1, 768]), while the same values held by
            // another constant have fixed ones (a normalization's bias of zeros); a reader of the first would no
            // longer see that its extent is 1, and passes that need it (the normalization's fusion) would not apply.
            if (a.type != b.type || a.format != b.format || !sameExtents(a, b))
            {
                return false;
            }
        }
        return true;
    }

    //! Whether `a` and `b` have the same rank and each extent is the same expression.
    bool sameExtents(plan::TensorRecord const& a, plan::TensorRecord const& b) const
    {
        return a.dims.size() == b.dims.size()
            && std::equal(a.dims.begin(), a.dims.end(), b.dims.begin(),
                [&](int32_t x, int32_t y) { return plan::sameExpr(mModel, x, y); });
    }

    PlanModel& mModel;
    std::vector<bool> mKept;      //!< by tensor: whether the layer writing it must stay
    std::vector<int32_t> mSameAs; //!< by tensor: the tensor holding its values (itself, or a repeat's first)
};

} // namespace

size_t mergeRepeatedLayers(PlanModel& model)
{
    return RepeatedLayers(model).run();
}

} // namespace kiln::builder
