#include "plan/passes/attention_fusion.h"

#include "core/data_type.h"
#include "network/fused/attention.h"
#include "network/layers/constant.h"
#include "network/layers/elementwise.h"
#include "network/layers/matrix_multiply.h"
#include "network/layers/quantize.h"
#include "network/layers/shuffle.h"
#include "network/layers/slice.h"
#include "network/layers/softmax.h"
#include "network/layers/unary.h"
#include "plan/passes/quantized_patterns.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

namespace kiln::plan
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;
using nvinfer1::MatrixOperation;

//! One attention the pass found: the layers it replaces and what the fused layer reads.
struct Match
{
    std::vector<size_t> layers;     //!< every layer absorbed
    std::vector<size_t> constants;  //!< constants the absorbed layers read, dropped when nothing else reads them
    std::vector<size_t> pickedFrom; //!< transposes whose output picked operands are slices of
    int32_t query{-1};
    int32_t keys{-1};
    int32_t values{-1};
    int32_t mask{-1};
    size_t maskReader{0};    //!< the sum that added the mask, whose slot type the fused layer reads it in
    size_t secondProduct{0}; //!< where the fused layer runs: every input exists by then
    int32_t output{-1};
    network::AttentionParams params;
};

//! A Q -> DQ pair of one scale the pattern absorbs as one of the layer's roundings.
struct RoundingPair
{
    int32_t source{-1}; //!< what the quantization reads
    network::AttentionRounding rounding;
    size_t quantize{0};
    size_t dequantize{0};
    std::vector<size_t> constants; //!< the scales' and zero points' constant layers
};

class AttentionFuser
{
public:
    AttentionFuser(PlanModel& model, AttentionFusionRules const& rules)
        : mModel(model)
        , mRules(rules)
        , mReaders(readersOf(model))
        , mProducers(producersOf(model))
        , mRemoved(model.layers.size(), false)
        , mKnownValues(valuesNoRunChanges(model))
    {
    }

    void run()
    {
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (mModel.layers[l].type != LayerType::kSOFTMAX || mRemoved[l])
            {
                continue;
            }
            std::optional<Match> const match = matchAround(l, true);
            if (match)
            {
                apply(*match);
            }
        }
        eraseLayers(mModel, mRemoved);
    }

private:
    //! The layer that alone reads layer `l`'s output, within the pattern's rules.
    std::optional<size_t> soleReaderOf(size_t l) const
    {
        return soleReader(mModel, mReaders, l);
    }

    //! The producer of `tensor` when it is layer `l`'s only input it must come from, else none.
    std::optional<size_t> producerOf(int32_t tensor) const
    {
        if (tensor < 0 || mProducers[tensor] < 0 || mRemoved[mProducers[tensor]])
        {
            return std::nullopt;
        }
        return static_cast<size_t>(mProducers[tensor]);
    }

    //! The value of `tensor` when a constant layer makes it and it holds one element, of any type (a zero point's
    //! too) where `anyType`, else of a floating-point one.
    std::optional<float> scalarConstant(int32_t tensor, bool anyType = false) const
    {
        std::optional<size_t> const p = producerOf(tensor);
        auto const* params = p ? fixedConstant(mModel.layers[*p]) : nullptr;
        if (params == nullptr || params->weights.count() != 1 || !(anyType || isFloatType(params->weights.type())))
        {
            return std::nullopt;
        }
        return params->weights.toFloat()[0];
    }

    //! The scale of quantize or dequantize layer `l` (plan::perTensorScale, its constants made by constant layers)
    //! where it is positive and finite, as a rounding's must be.
    std::optional<float> roundingScale(size_t l) const
    {
        std::optional<float> const scale
            = perTensorScale(mModel.layers[l], [this](int32_t t) { return scalarConstant(t, true); });
        return scale && std::isfinite(*scale) && *scale > 0.0F ? scale : std::nullopt;
    }

    //! Where `tensor` is DQ(Q(x)) by one scale into INT8 or FP8 and back to `type`, each layer's output read by the
    //! next alone: the pair, which the fused layer computes as a rounding of x.
    std::optional<RoundingPair> roundingPairOf(int32_t tensor, DataType type) const
    {
        std::optional<size_t> const dq = producerOf(tensor);
        if (!dq || !internalWithOneReader(tensor) || paramsOf<network::DequantizeParams>(mModel.layers[*dq]) == nullptr
            || mModel.layers[*dq].inputs.empty())
        {
            return std::nullopt;
        }
        int32_t const code = mModel.layers[*dq].inputs[0];
        std::optional<size_t> const q = producerOf(code);
        if (!q || !internalWithOneReader(code) || paramsOf<network::QuantizeParams>(mModel.layers[*q]) == nullptr)
        {
            return std::nullopt;
        }
        LayerRecord const& quantize = mModel.layers[*q];
        LayerRecord const& dequantize = mModel.layers[*dq];
        DataType const quantized = slotType(mModel, quantize, quantize.inputs.size());
        std::optional<float> const scale = roundingScale(*q);
        bool const types = (quantized == DataType::kINT8 || quantized == DataType::kFP8)
            && slotType(mModel, quantize, 0) == type && slotType(mModel, dequantize, 0) == quantized
            && slotType(mModel, dequantize, dequantize.inputs.size()) == type;
        bool const plain = quantize.outputs.size() == 1 && dequantize.outputs.size() == 1 && quantize.guards.empty()
            && dequantize.guards.empty() && linearThroughout(mModel, quantize) && linearThroughout(mModel, dequantize);
        if (!types || !plain || !scale || roundingScale(*dq) != scale || !sameShape(mModel, quantize.inputs[0], tensor))
        {
            return std::nullopt;
        }
        RoundingPair pair;
        pair.source = quantize.inputs[0];
        pair.rounding.type = quantized;
        pair.rounding.scale = *scale;
        pair.quantize = *q;
        pair.dequantize = *dq;
        for (LayerRecord const* layer : {&quantize, &dequantize})
        {
            for (size_t i = 1; i < layer->inputs.size(); ++i)
            {
                if (std::optional<size_t> const c = producerOf(layer->inputs[i]))
                {
                    pair.constants.push_back(*c);
                }
            }
        }
        return pair;
    }

    //! Takes `pair`'s layers and constants into `match`; gives its rounding.
    static network::AttentionRounding absorb(RoundingPair const& pair, Match& match)
    {
        match.layers.push_back(pair.quantize);
        match.layers.push_back(pair.dequantize);
        match.constants.insert(match.constants.end(), pair.constants.begin(), pair.constants.end());
        return pair.rounding;
    }

    //! Whether layer `l` computes in `precision` on `type`, row-major, with its one output read inside the pattern.
    bool fits(size_t l, std::optional<DataType> precision, DataType type) const
    {
        LayerRecord const& record = mModel.layers[l];
        return !mRemoved[l] && record.outputs.size() == 1 && record.guards.empty() && !record.epilogue.any()
            && computesIn(mModel, record, precision, type) && linearThroughout(mModel, record);
    }

    //! Whether layer `l` moves `type` elements from one row-major tensor to another and nothing else (a transpose
    //! computes in no precision).
    bool movesOnly(size_t l, DataType type) const
    {
        LayerRecord const& record = mModel.layers[l];
        return !mRemoved[l] && record.outputs.size() == 1 && record.guards.empty() && !record.epilogue.any()
            && slotType(mModel, record, 0) == type && slotType(mModel, record, record.inputs.size()) == type
            && linearThroughout(mModel, record);
    }

    //! Element-wise `l`'s operation with one operand a constant scalar: the other operand and the factor it
    //! multiplies that operand by (1/c for a division by c).
    std::optional<std::pair<int32_t, float>> scaling(size_t l) const
    {
        LayerRecord const& record = mModel.layers[l];
        auto const* params = paramsOf<network::ElementWiseParams>(record);
        if (params == nullptr || record.inputs.size() != 2)
        {
            return std::nullopt;
        }
        for (size_t side = 0; side < 2; ++side)
        {
            std::optional<float> const c = scalarConstant(record.inputs[1 - side]);
            if (!c)
            {
                continue;
            }
            if (params->operation == ElementWiseOperation::kPROD)
            {
                return std::pair{record.inputs[side], *c};
            }
            if (params->operation == ElementWiseOperation::kDIV && side == 0 && *c != 0.0F)
            {
                return std::pair{record.inputs[0], 1.0F / *c};
            }
        }
        return std::nullopt;
    }

    //! Follows constant-scalar multiplications back from `tensor` (an operand of the first product), absorbing
    //! those that only the pattern reads into `factor`; gives the tensor the multiplications started from.
    int32_t unscaled(
        int32_t tensor, Match& match, float& factor, std::optional<DataType> precision, DataType type) const
    {
        for (std::optional<size_t> p = producerOf(tensor); p; p = producerOf(tensor))
        {
            std::optional<std::pair<int32_t, float>> const step = scaling(*p);
            if (!step || !fits(*p, precision, type) || mReaders[tensor].size() != 1
                || isObserved(mModel.tensors[tensor]) || !sameShape(mModel, step->first, tensor))
            {
                break;
            }
            factor *= step->second;
            match.layers.push_back(*p);
            match.constants.push_back(scalarProducer(*p, step->first));
            tensor = step->first;
        }
        return tensor;
    }

    //! Follows transposes back from `tensor` (an operand the pattern reads), absorbing those that only the pattern
    //! reads into `axes` (logical axis i of the operand is axis axes.order[i] of the tensor read); gives the tensor
    //! the transposes started from.
    int32_t untransposed(int32_t tensor, Match& match, nvinfer1::Permutation& axes, DataType type) const
    {
        for (std::optional<size_t> p = producerOf(tensor); p; p = producerOf(tensor))
        {
            std::optional<nvinfer1::Permutation> const order = transposeOf(mModel, mModel.layers[*p]);
            if (!order || !movesOnly(*p, type) || !internalWithOneReader(tensor))
            {
                break;
            }
            size_t const rank = mModel.tensors[tensor].dims.size();
            for (size_t i = 0; i < rank; ++i)
            {
                axes.order[i] = order->order[axes.order[i]];
            }
            match.layers.push_back(*p);
            tensor = mModel.layers[*p].inputs[0];
        }
        return tensor;
    }

    //! Whether shuffle `l` removes axis `axis` of its input, of extent 1, and nothing else: a squeeze.
    bool squeezes(size_t l, size_t axis) const
    {
        LayerRecord const& record = mModel.layers[l];
        auto const* params = paramsOf<network::ShuffleParams>(record);
        if (params == nullptr || !params->reshapesOnly() || record.inputs.empty())
        {
            return false;
        }
        std::vector<int32_t> const& in = mModel.tensors[record.inputs[0]].dims;
        std::vector<int32_t> const& out = mModel.tensors[record.outputs[0]].dims;
        if (in.size() != out.size() + 1 || axis >= in.size() || constantExtent(mModel, record.inputs[0], axis) != 1)
        {
            return false;
        }
        for (size_t j = 0; j < out.size(); ++j)
        {
            if (!equalEveryRun(mModel, mKnownValues, out[j], in[j < axis ? j : j + 1]))
            {
                return false;
            }
        }
        return true;
    }

    //! The index slice `l` keeps along `axis`, where it keeps one there and every other axis whole (stride 1, start
    //! and size fixed while building, the start inside the axis).
    std::optional<int32_t> sliceIndex(size_t l, size_t axis) const
    {
        LayerRecord const& record = mModel.layers[l];
        auto const* params = paramsOf<network::SliceParams>(record);
        auto const given = [&](size_t input) { return input < record.inputs.size() && record.inputs[input] >= 0; };
        if (params == nullptr || params->mode != nvinfer1::SampleMode::kSTRICT_BOUNDS || given(1) || given(3)
            || given(4))
        {
            return std::nullopt;
        }
        std::vector<int32_t> const& in = mModel.tensors[record.inputs[0]].dims;
        std::vector<int32_t> const& out = mModel.tensors[record.outputs[0]].dims;
        auto const rank = static_cast<int32_t>(in.size());
        // The index must lie inside the axis, whose extent must be a constant: otherwise the slice runs, and its
        // kernel reports a start outside it.
        std::optional<int64_t> const extent = constantExtent(mModel, record.inputs[0], axis);
        if (params->start.nbDims != rank || params->stride.nbDims != rank || out.size() != in.size()
            || constantExtent(mModel, record.outputs[0], axis) != 1 || !extent || params->start.d[axis] < 0
            || params->start.d[axis] >= *extent || params->start.d[axis] > std::numeric_limits<int32_t>::max())
        {
            return std::nullopt;
        }
        for (size_t j = 0; j < in.size(); ++j)
        {
            bool const whole = j == axis
                || (params->start.d[j] == 0 && equalEveryRun(mModel, mKnownValues, out[j], in[j]));
            if (params->stride.d[j] != 1 || !whole)
            {
                return std::nullopt;
            }
        }
        return static_cast<int32_t>(params->start.d[axis]);
    }

    //! Where operand `tensor` (its logical axis i is axis axes.order[i] of it) is one index along an axis of a
    //! transpose's output, sliced off and squeezed away, as exports spell timm's `q, k, v = qkv.unbind(0)`
    //! (Transpose -> Split -> Squeeze): takes the squeeze and the slice into `match`, and the transpose into
    //! match.pickedFrom (its other readers are the other operands' slices), sets `pick` and `axes` to read the
    //! transpose's input in place, and gives that input.
    std::optional<int32_t> picked(
        int32_t tensor, Match& match, nvinfer1::Permutation& axes, network::AttentionPick& pick, DataType type) const
    {
        std::optional<size_t> const squeeze = producerOf(tensor);
        if (!squeeze || !movesOnly(*squeeze, type) || !internalWithOneReader(tensor))
        {
            return std::nullopt;
        }
        int32_t const sliced = mModel.layers[*squeeze].inputs[0];
        std::optional<size_t> const slice = producerOf(sliced);
        if (!slice || !movesOnly(*slice, type) || !internalWithOneReader(sliced))
        {
            return std::nullopt;
        }
        int32_t const transposed = mModel.layers[*slice].inputs[0];
        std::optional<size_t> const transpose = producerOf(transposed);
        std::optional<nvinfer1::Permutation> const order = transpose ? transposeOf(mModel, mModel.layers[*transpose])
                                                                     : std::nullopt;
        if (!order || !movesOnly(*transpose, type) || isObserved(mModel.tensors[transposed]))
        {
            return std::nullopt;
        }
        size_t const rank = mModel.tensors[tensor].dims.size();
        for (size_t axis = 0; axis <= rank; ++axis)
        {
            std::optional<int32_t> const index = squeezes(*squeeze, axis) ? sliceIndex(*slice, axis) : std::nullopt;
            if (!index)
            {
                continue;
            }
            for (size_t i = 0; i < rank; ++i)
            {
                auto const kept = static_cast<size_t>(axes.order[i]);
                axes.order[i] = order->order[kept < axis ? kept : kept + 1];
            }
            pick = network::AttentionPick{order->order[axis], *index};
            match.layers.push_back(*squeeze);
            match.layers.push_back(*slice);
            match.pickedFrom.push_back(*transpose);
            for (LayerRecord const* layer : {&mModel.layers[*squeeze], &mModel.layers[*slice]})
            {
                for (size_t i = 1; i < layer->inputs.size(); ++i)
                {
                    if (std::optional<size_t> const c = producerOf(layer->inputs[i]))
                    {
                        match.constants.push_back(*c);
                    }
                }
            }
            return mModel.layers[*transpose].inputs[0];
        }
        return std::nullopt;
    }

    //! Takes into `match` the transposes its operands are picked from, where the match absorbs every layer that reads
    //! each; false where another layer reads one (which then stays, and the operands with it).
    bool absorbPickedTransposes(Match& match) const
    {
        std::sort(match.pickedFrom.begin(), match.pickedFrom.end());
        match.pickedFrom.erase(std::unique(match.pickedFrom.begin(), match.pickedFrom.end()), match.pickedFrom.end());
        for (size_t transpose : match.pickedFrom)
        {
            for (size_t reader : mReaders[mModel.layers[transpose].outputs[0]])
            {
                if (std::find(match.layers.begin(), match.layers.end(), reader) == match.layers.end())
                {
                    return false;
                }
            }
            match.layers.push_back(transpose);
        }
        return true;
    }

    //! The tensor operand `tensor` is read from: through the transposes the pattern absorbs and then, where
    //! `takePicks`, a pick (picked()).
    int32_t operandSource(int32_t tensor, Match& match, nvinfer1::Permutation& axes, network::AttentionPick& pick,
        DataType type, bool takePicks) const
    {
        tensor = untransposed(tensor, match, axes, type);
        std::optional<int32_t> const whole = takePicks ? picked(tensor, match, axes, pick, type) : std::nullopt;
        return whole.value_or(tensor);
    }

    //! The tensor a query or keys operand comes from, through a Q -> DQ pair (`rounding`) and the scalings,
    //! transposes and pick the pattern absorbs. Scalings multiply the scores where nothing rounds the operand, else
    //! the operand before its rounding.
    int32_t operandOrigin(int32_t tensor, Match& match, network::AttentionRounding& rounding,
        nvinfer1::Permutation& axes, network::AttentionPick& pick, std::optional<DataType> precision, DataType type,
        bool takePicks) const
    {
        if (std::optional<RoundingPair> const pair = roundingPairOf(tensor, type))
        {
            rounding = absorb(*pair, match);
            tensor = pair->source;
        }
        float& factor = rounding.rounds() ? rounding.factor : match.params.scale;
        for (int32_t previous = -1; previous != tensor;)
        {
            previous = tensor;
            tensor = untransposed(unscaled(tensor, match, factor, precision, type), match, axes, type);
        }
        return operandSource(tensor, match, axes, pick, type, takePicks);
    }

    //! Whether shuffle `l` gives its input's shape back without moving an element (a reshape to the same extents).
    bool keepsShape(size_t l) const
    {
        LayerRecord const& record = mModel.layers[l];
        auto const* params = paramsOf<network::ShuffleParams>(record);
        if (params == nullptr || record.inputs.empty() || record.outputs.size() != 1)
        {
            return false;
        }
        size_t const rank = mModel.tensors[record.outputs[0]].dims.size();
        for (size_t i = 0; i < rank; ++i)
        {
            if (params->firstTranspose.order[i] != static_cast<int32_t>(i)
                || params->secondTranspose.order[i] != static_cast<int32_t>(i))
            {
                return false;
            }
        }
        return sameShapeEveryRun(mModel, mKnownValues, record.inputs[0], record.outputs[0]);
    }

    //! Follows transposes forward from the output, absorbing those that read it alone into `match`, and reshapes to
    //! the same extents between them (exports of BERT reshape the attention's output to its own shape before moving
    //! the heads): the fused layer writes the last one's output.
    void absorbOutputTransposes(Match& match, DataType type) const
    {
        for (std::optional<size_t> reader = soleReaderOf(mProducers[match.output]); reader;
             reader = soleReaderOf(static_cast<size_t>(mProducers[match.output])))
        {
            std::optional<nvinfer1::Permutation> const order = transposeOf(mModel, mModel.layers[*reader]);
            if (!movesOnly(*reader, type))
            {
                return;
            }
            if (!order)
            {
                if (!keepsShape(*reader))
                {
                    return;
                }
                match.layers.push_back(*reader);
                match.output = mModel.layers[*reader].outputs[0];
                continue;
            }
            // Logical axis i is at axis a of the tensor so far, which the transpose moves to axis k where order[k] ==
            // a.
            size_t const rank = mModel.tensors[match.output].dims.size();
            nvinfer1::Permutation moved = match.params.outputAxes;
            for (size_t i = 0; i < rank; ++i)
            {
                for (size_t k = 0; k < rank; ++k)
                {
                    if (order->order[k] == match.params.outputAxes.order[i])
                    {
                        moved.order[i] = static_cast<int32_t>(k);
                    }
                }
            }
            match.params.outputAxes = moved;
            match.layers.push_back(*reader);
            match.output = mModel.layers[*reader].outputs[0];
        }
    }

    //! Whether `tensor` is an internal activation (not a network output) that one layer reads.
    bool internalWithOneReader(int32_t tensor) const
    {
        return mReaders[tensor].size() == 1 && !isObserved(mModel.tensors[tensor]);
    }

    //! Whether two tensors have as many axes. A mask whose sum has the scores' shape broadcasts into them, and
    //! operands the products read broadcast into the output: the layers' own shape rules made them so.
    bool sameRank(int32_t a, int32_t b) const
    {
        return mModel.tensors[a].dims.size() == mModel.tensors[b].dims.size();
    }

    //! The constant layer that makes the other operand of scaling or select `l`, beside `kept`.
    size_t scalarProducer(size_t l, int32_t kept) const
    {
        for (int32_t input : mModel.layers[l].inputs)
        {
            if (input != kept && input >= 0 && mProducers[input] >= 0
                && mModel.layers[mProducers[input]].type == LayerType::kCONSTANT)
            {
                return static_cast<size_t>(mProducers[input]);
            }
        }
        return l;
    }

    //! The scores' way back from what the SoftMax (or the mask's sum) reads to the first product.
    struct ScoresPath
    {
        size_t product{0};
        std::vector<size_t> scalings;  //!< multiplications and divisions by constant scalars on the way
        std::vector<size_t> constants; //!< the constant layers of those scalars
        float scale{1.0F};
        std::optional<RoundingPair> rounding; //!< a Q -> DQ pair after the scalings
    };

    //! Walks back from `scores` through a Q -> DQ pair and constant-scalar scalings to a matrix multiply, each
    //! step's result read by the next step alone.
    std::optional<ScoresPath> scoresPath(int32_t scores, std::optional<DataType> precision, DataType type) const
    {
        ScoresPath path;
        path.rounding = roundingPairOf(scores, type);
        if (path.rounding)
        {
            scores = path.rounding->source;
        }
        for (std::optional<size_t> p = producerOf(scores); p; p = producerOf(scores))
        {
            if (!internalWithOneReader(scores) || !fits(*p, precision, type))
            {
                return std::nullopt;
            }
            if (mModel.layers[*p].type == LayerType::kMATRIX_MULTIPLY)
            {
                path.product = *p;
                return path;
            }
            std::optional<std::pair<int32_t, float>> const factor = scaling(*p);
            if (!factor || !sameShape(mModel, factor->first, scores))
            {
                return std::nullopt;
            }
            path.scale *= factor->second;
            path.scalings.push_back(*p);
            path.constants.push_back(scalarProducer(*p, factor->first));
            scores = factor->first;
        }
        return std::nullopt;
    }

    //! After SoftMax `softmax`: Where(IsNaN(p), 0, p) as exports guard fully masked rows, read by the pattern
    //! alone. Gives the select's output and adds the two layers to `match`.
    std::optional<int32_t> nanGuard(size_t softmax, Match& match, DataType type) const
    {
        int32_t const p = mModel.layers[softmax].outputs[0];
        std::vector<size_t> const& readers = mReaders[p];
        if (readers.size() != 2 || isObserved(mModel.tensors[p]))
        {
            return std::nullopt;
        }
        for (size_t first = 0; first < 2; ++first)
        {
            size_t const isNaN = readers[first];
            size_t const select = readers[1 - first];
            LayerRecord const& test = mModel.layers[isNaN];
            LayerRecord const& choice = mModel.layers[select];
            auto const* unary = paramsOf<network::UnaryParams>(test);
            if (unary == nullptr || unary->operation != nvinfer1::UnaryOperation::kISNAN
                || choice.type != LayerType::kSELECT || choice.inputs.size() != 3 || choice.outputs.size() != 1
                || choice.inputs[0] != test.outputs[0] || choice.inputs[2] != p || soleReaderOf(isNaN) != select
                || scalarConstant(choice.inputs[1]) != 0.0F || !test.guards.empty() || !choice.guards.empty()
                || slotType(mModel, choice, 2) != type || slotType(mModel, choice, 3) != type
                || !sameShape(mModel, choice.outputs[0], p) || !linearThroughout(mModel, choice))
            {
                continue;
            }
            match.constants.push_back(scalarProducer(select, p));
            match.layers.push_back(isNaN);
            match.layers.push_back(select);
            match.params.zeroNaNProbabilities = true;
            return choice.outputs[0];
        }
        return std::nullopt;
    }

    //! The attention around SoftMax `softmax`, its operands picked from a shared transpose's input where
    //! `takePicks`.
    std::optional<Match> matchAround(size_t softmax, bool takePicks) const
    {
        LayerRecord const& normalize = mModel.layers[softmax];
        auto const* softmaxParams = paramsOf<network::SoftMaxParams>(normalize);
        size_t const rank = mModel.tensors[normalize.outputs.at(0)].dims.size();
        if (softmaxParams == nullptr || rank < 2 || softmaxParams->axes != (1U << (rank - 1)) || !normalize.precision
            || normalize.inputs.size() != 1)
        {
            return std::nullopt;
        }
        std::optional<DataType> const precision = normalize.precision;
        DataType const type = slotType(mModel, normalize, 0);
        if ((type != DataType::kFLOAT && type != DataType::kHALF) || !fits(softmax, precision, type))
        {
            return std::nullopt;
        }
        Match match;
        match.layers.push_back(softmax);
        // Back from the SoftMax: an optional sum with a mask, then scalings of the scores, then the first product.
        int32_t const scores = normalize.inputs[0];
        std::optional<size_t> const p = producerOf(scores);
        bool const summed = p && isSum(mModel.layers[*p]);
        std::optional<ScoresPath> path = summed ? std::nullopt : scoresPath(scores, precision, type);
        if (summed && fits(*p, precision, type) && internalWithOneReader(scores))
        {
            LayerRecord const& sum = mModel.layers[*p];
            // Either side may be the scores. Their extents need not be the sum's expressions: a mask built from
            // another input (BERT's attention_mask) has its own symbols for the batch and the sequence. Whichever
            // operand broadcasts, the fused layer computes what the sum did, since query and keys broadcast into the
            // output as the scores would; a mask that would widen the scores' rows fails the kernel's shape check.
            for (size_t side = 0; side < 2 && !path && sum.inputs.size() == 2; ++side)
            {
                if (sameRank(sum.inputs[side], sum.outputs[0]) && sameRank(sum.inputs[1 - side], sum.outputs[0]))
                {
                    path = scoresPath(sum.inputs[side], precision, type);
                    match.mask = path ? sum.inputs[1 - side] : -1;
                }
            }
            if (path)
            {
                match.maskReader = *p;
                match.layers.push_back(*p);
            }
        }
        if (!path)
        {
            return std::nullopt;
        }
        match.params.scale = path->scale;
        if (path->rounding)
        {
            match.params.scoresRounding = absorb(*path->rounding, match);
        }
        match.layers.insert(match.layers.end(), path->scalings.begin(), path->scalings.end());
        match.constants.insert(match.constants.end(), path->constants.begin(), path->constants.end());
        size_t const first = path->product;
        auto const* firstParams = paramsOf<network::MatrixMultiplyParams>(mModel.layers[first]);
        if (firstParams->op0 != MatrixOperation::kNONE
            || (firstParams->op1 != MatrixOperation::kNONE && firstParams->op1 != MatrixOperation::kTRANSPOSE))
        {
            return std::nullopt;
        }
        match.layers.push_back(first);
        match.params.keysByRow = firstParams->op1 == MatrixOperation::kTRANSPOSE;
        // Forward from the SoftMax: the optional NaN guard, an optional Q -> DQ pair, then the second product.
        std::optional<int32_t> guarded = nanGuard(softmax, match, type);
        int32_t probabilities = guarded ? *guarded : normalize.outputs[0];
        size_t producerOfProbabilities = guarded ? match.layers.back() : softmax;
        std::optional<size_t> const quantize = soleReaderOf(producerOfProbabilities);
        std::optional<size_t> const dequantize = quantize ? soleReaderOf(*quantize) : std::nullopt;
        std::optional<RoundingPair> const rounding
            = dequantize ? roundingPairOf(mModel.layers[*dequantize].outputs[0], type) : std::nullopt;
        if (rounding && rounding->source == probabilities)
        {
            match.params.probabilitiesRounding = absorb(*rounding, match);
            probabilities = mModel.layers[*dequantize].outputs[0];
            producerOfProbabilities = *dequantize;
        }
        std::optional<size_t> const second = soleReaderOf(producerOfProbabilities);
        if (!second || mModel.layers[*second].type != LayerType::kMATRIX_MULTIPLY || !fits(*second, precision, type)
            || mModel.layers[*second].inputs[0] != probabilities)
        {
            return std::nullopt;
        }
        auto const* secondParams = paramsOf<network::MatrixMultiplyParams>(mModel.layers[*second]);
        if (secondParams->op0 != MatrixOperation::kNONE || secondParams->op1 != MatrixOperation::kNONE)
        {
            return std::nullopt;
        }
        match.layers.push_back(*second);
        match.secondProduct = *second;
        match.output = mModel.layers[*second].outputs[0];
        int32_t values = mModel.layers[*second].inputs[1];
        if (std::optional<RoundingPair> const pair = roundingPairOf(values, type))
        {
            match.params.valuesRounding = absorb(*pair, match);
            values = pair->source;
        }
        match.values = operandSource(values, match, match.params.valueAxes, match.params.valuePick, type, takePicks);
        match.query = operandOrigin(mModel.layers[first].inputs[0], match, match.params.queryRounding,
            match.params.queryAxes, match.params.queryPick, precision, type, takePicks);
        match.keys = operandOrigin(mModel.layers[first].inputs[1], match, match.params.keysRounding,
            match.params.keyAxes, match.params.keyPick, precision, type, takePicks);
        absorbOutputTransposes(match, type);
        if (!absorbPickedTransposes(match))
        {
            // Another layer reads a transpose the operands are sliced from: the attention still fuses, reading the
            // transpose's slices.
            return matchAround(softmax, false);
        }
        return shapesFit(match) ? std::optional<Match>(std::move(match)) : std::nullopt;
    }

    //! Whether query, keys and values have the output's rank, or one axis more where picked (their leading extents
    //! broadcast into its, as the products' shape rules required), and depths the backend takes.
    bool shapesFit(Match const& match) const
    {
        size_t const rank = mModel.tensors[match.output].dims.size();
        network::AttentionParams const& p = match.params;
        for (auto const& [t, pick] :
            {std::pair{match.query, p.queryPick}, {match.keys, p.keyPick}, {match.values, p.valuePick}})
        {
            if (mModel.tensors[t].dims.size() != rank + (pick.picks() ? 1 : 0))
            {
                return false;
            }
        }
        auto const last = [&](nvinfer1::Permutation const& axes) { return static_cast<size_t>(axes.order[rank - 1]); };
        std::optional<int64_t> const depth = constantExtent(mModel, match.query, last(match.params.queryAxes));
        std::optional<int64_t> const valueDepth = constantExtent(mModel, match.values, last(match.params.valueAxes));
        DataType const type = slotType(mModel, mModel.layers[match.secondProduct], 2);
        return depth && valueDepth && mRules.runs(type, *depth, *valueDepth, match.params.rounds());
    }

    void apply(Match const& match)
    {
        LayerRecord const& second = mModel.layers[match.secondProduct];
        LayerRecord record;
        record.type = network::kAttentionLayerType;
        record.params = std::make_shared<network::AttentionParams>(match.params);
        record.precision = second.precision;
        record.inputs = {match.query, match.keys, match.values};
        DataType const type = slotType(mModel, second, 2);
        std::vector<DataType> types{type, type, type};
        if (match.mask >= 0)
        {
            LayerRecord const& sum = mModel.layers[match.maskReader];
            record.inputs.push_back(match.mask);
            types.push_back(slotType(mModel, sum, sum.inputs[0] == match.mask ? 0 : 1));
        }
        types.push_back(type);
        record.outputs = {match.output};
        // Named after the layers it replaces, in plan order.
        std::vector<size_t> ordered = match.layers;
        std::sort(ordered.begin(), ordered.end());
        for (size_t l : ordered)
        {
            record.name += (record.name.empty() ? "" : " + ") + mModel.layers[l].name;
        }
        setIoTypes(mModel, record, std::move(types));
        for (size_t l : match.layers)
        {
            stopReading(l);
            mRemoved[l] = true;
        }
        size_t const at = match.secondProduct;
        mRemoved[at] = false;
        mModel.layers[at] = std::move(record);
        for (int32_t t : mModel.layers[at].inputs)
        {
            mReaders[t].push_back(at);
        }
        for (size_t c : match.constants)
        {
            if (mModel.layers[c].type != LayerType::kCONSTANT)
            {
                continue;
            }
            int32_t const made = mModel.layers[c].outputs[0];
            if (mReaders[made].empty() && !isObserved(mModel.tensors[made]))
            {
                mRemoved[c] = true;
            }
        }
    }

    //! Takes layer `l` off the reader lists of the tensors it reads.
    void stopReading(size_t l)
    {
        for (int32_t t : mModel.layers[l].inputs)
        {
            if (t >= 0)
            {
                std::erase(mReaders[t], l);
            }
        }
    }

    PlanModel& mModel;
    AttentionFusionRules const& mRules;
    std::vector<std::vector<size_t>> mReaders;        //!< by tensor: the layers that read it, kept current while fusing
    std::vector<int64_t> mProducers;                  //!< by tensor: the layer that writes it, or -1
    std::vector<bool> mRemoved;                       //!< by layer: absorbed into a fused layer
    std::vector<std::optional<int64_t>> mKnownValues; //!< by expression node: its value where no run changes it
};

} // namespace

void fuseAttention(PlanModel& model, AttentionFusionRules const& rules)
{
    AttentionFuser(model, rules).run();
}

} // namespace kiln::plan
