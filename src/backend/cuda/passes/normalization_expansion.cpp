// fuseNormalizationExpansions (normalization_fusion.h): LayerNorm and RMSNorm spelled out in element-wise layers.
#include "backend/cuda/passes/normalization_fusion.h"
#include "network/layers/reduce.h"
#include "network/layers/unary.h"
#include "plan/passes/pattern_graph.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <memory>
#include <optional>

namespace kiln::cuda
{
using plan::LayerRecord;
using plan::PatternGraph;
using plan::PlanModel;

namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::UnaryOperation;

//! One normalization's layers, as found.
struct Expansion
{
    int32_t x{-1}; //!< the tensor normalized
    int32_t axes{0};
    bool centered{false};
    float epsilon{0.0F};
    std::vector<size_t> layers;
    size_t reader{0};  //!< a layer of the pattern that reads x: its type is the one x is read in
    size_t divider{0}; //!< the layer that divides the deviations (or x) by the root, or multiplies by its inverse
    int32_t scale{-1}; //!< the weight, where a product by one follows
    size_t scaleReader{0};
    int32_t bias{-1}; //!< the bias, where a sum with one follows
    size_t biasReader{0};
    size_t last{0}; //!< the layer that writes the result
};

//! Where layer `layer` reads tensor `t` (its first such input slot).
size_t slotOf(LayerRecord const& layer, int32_t t)
{
    return static_cast<size_t>(std::find(layer.inputs.begin(), layer.inputs.end(), t) - layer.inputs.begin());
}

class ExpansionFuser
{
public:
    explicit ExpansionFuser(PlanModel& model)
        : mGraph(model)
    {
    }

    void run()
    {
        for (size_t l = 0; l < mGraph.size(); ++l)
        {
            if (std::optional<Expansion> const found = around(l))
            {
                mGraph.replace(found->layers, found->last, fused(*found));
            }
        }
        mGraph.commit();
    }

private:
    LayerRecord const& layer(size_t l) const
    {
        return mGraph.layer(l);
    }

    //! How many trailing axes layer `l` averages over, keeping them as extents of 1; 0 where it is no such mean.
    int32_t rowMean(std::optional<size_t> l) const
    {
        if (!l || mGraph.removed(*l))
        {
            return 0;
        }
        LayerRecord const& mean = layer(*l);
        auto const* params = paramsOf<network::ReduceParams>(mean);
        if (params == nullptr || params->operation != nvinfer1::ReduceOperation::kAVG || !params->keepDimensions
            || mean.inputs.size() != 1 || mean.inputs[0] < 0 || mean.outputs.size() != 1)
        {
            return 0;
        }
        auto const rank = static_cast<int32_t>(mGraph.model().tensors[mean.inputs[0]].dims.size());
        return network::trailingAxesOf(params->reduceAxes, rank);
    }

    //! The tensor layer `l` squares: Pow(d, 2), or d * d.
    std::optional<int32_t> squared(std::optional<size_t> l) const
    {
        if (LayerRecord const* pow = mGraph.elementWise(l, ElementWiseOperation::kPOW))
        {
            return mGraph.isScalar(pow->inputs[1], 2.0) ? std::optional<int32_t>(pow->inputs[0]) : std::nullopt;
        }
        LayerRecord const* product = mGraph.elementWise(l, ElementWiseOperation::kPROD);
        return product != nullptr && product->inputs[0] == product->inputs[1]
            ? std::optional<int32_t>(product->inputs[0])
            : std::nullopt;
    }

    //! The normalization whose mean of squares layer `l` computes.
    std::optional<Expansion> around(size_t l) const
    {
        int32_t const axes = rowMean(l);
        std::optional<size_t> const square = axes > 0 ? mGraph.producer(layer(l).inputs[0]) : std::nullopt;
        std::optional<int32_t> const d = square ? squared(square) : std::nullopt;
        if (!d || mGraph.soleReader(*square) != l)
        {
            return std::nullopt;
        }
        Expansion e;
        e.x = *d;
        e.axes = axes;
        e.layers = {*square, l};
        e.reader = *square;
        std::optional<size_t> const root = rootOf(e, l);
        if (!root || !divides(e, *root, *d))
        {
            return std::nullopt;
        }
        centre(e, *d, *square);
        weigh(e);
        if (!sameShape(mGraph.model(), layer(e.last).outputs[0], e.x) || !mGraph.alike(e.layers))
        {
            return std::nullopt;
        }
        return e;
    }

    //! sqrt(mean + epsilon) of mean layer `mean`: the square root's layer.
    std::optional<size_t> rootOf(Expansion& e, size_t mean) const
    {
        std::optional<size_t> const plus = mGraph.soleReader(mean);
        LayerRecord const* sum = mGraph.elementWise(plus, ElementWiseOperation::kSUM);
        std::optional<float> const epsilon
            = sum != nullptr ? mGraph.scalar(PatternGraph::otherOperand(*sum, layer(mean).outputs[0])) : std::nullopt;
        std::optional<size_t> const root = plus ? mGraph.soleReader(*plus) : std::nullopt;
        if (!epsilon || mGraph.unary(root, UnaryOperation::kSQRT) == nullptr)
        {
            return std::nullopt;
        }
        e.epsilon = *epsilon;
        e.layers.insert(e.layers.end(), {*plus, *root});
        return root;
    }

    //! d / root, or d times the root's inverse (Reciprocal, or 1 / root).
    bool divides(Expansion& e, size_t root, int32_t d) const
    {
        int32_t const rootOutput = layer(root).outputs[0];
        std::optional<size_t> const next = mGraph.soleReader(root);
        std::optional<size_t> inverse;
        if (LayerRecord const* division = mGraph.elementWise(next, ElementWiseOperation::kDIV))
        {
            if (division->inputs[1] == rootOutput && division->inputs[0] == d)
            {
                e.layers.push_back(*next);
                e.divider = e.last = *next;
                return true;
            }
            inverse = division->inputs[1] == rootOutput && mGraph.isScalar(division->inputs[0], 1.0) ? next
                                                                                                     : std::nullopt;
        }
        else if (mGraph.unary(next, UnaryOperation::kRECIP) != nullptr)
        {
            inverse = next;
        }
        std::optional<size_t> const product = inverse ? mGraph.soleReader(*inverse) : std::nullopt;
        LayerRecord const* times = mGraph.elementWise(product, ElementWiseOperation::kPROD);
        if (times == nullptr || PatternGraph::otherOperand(*times, layer(*inverse).outputs[0]) != d)
        {
            return false;
        }
        e.layers.insert(e.layers.end(), {*inverse, *product});
        e.divider = e.last = *product;
        return true;
    }

    //! LayerNorm: d = x - mean(x), read only by the square and the divider.
    void centre(Expansion& e, int32_t d, size_t square) const
    {
        std::optional<size_t> const sub = mGraph.producer(d);
        LayerRecord const* difference = mGraph.elementWise(sub, ElementWiseOperation::kSUB);
        std::optional<size_t> const mean = difference != nullptr ? mGraph.producer(difference->inputs[1])
                                                                 : std::nullopt;
        if (rowMean(mean) != e.axes || layer(*mean).inputs[0] != difference->inputs[0]
            || mGraph.soleReader(*mean) != sub)
        {
            return;
        }
        std::vector<size_t> const& readers = mGraph.readers(d);
        bool const inside
            = std::all_of(readers.begin(), readers.end(), [&](size_t r) { return r == square || r == e.divider; });
        if (!inside || isObserved(mGraph.model().tensors[d]) || !sameShape(mGraph.model(), d, difference->inputs[0]))
        {
            return;
        }
        e.centered = true;
        e.x = difference->inputs[0];
        e.reader = *mean;
        e.layers.insert(e.layers.end(), {*mean, *sub});
    }

    bool isWeight(Expansion const& e, int32_t w) const
    {
        return w >= 0 && w != e.x && rowWeightIn(mGraph.model(), w, e.x, e.axes) != network::RowWeight::kNONE;
    }

    //! Layer `l` where it converts between floating-point types.
    bool floatCast(std::optional<size_t> l) const
    {
        if (!l || mGraph.removed(*l) || paramsOf<network::CastParams>(layer(*l)) == nullptr)
        {
            return false;
        }
        LayerRecord const& cast = layer(*l);
        return cast.inputs.size() == 1 && cast.inputs[0] >= 0 && cast.outputs.size() == 1
            && isFloatType(slotType(mGraph.model(), cast, 0)) && isFloatType(slotType(mGraph.model(), cast, 1));
    }

    //! The product by a weight and the sum with a bias that may follow; a cast before the product (LLaMA's) joins.
    void weigh(Expansion& e) const
    {
        std::optional<size_t> next = mGraph.soleReader(e.last);
        // Plain indices rather than an optional: GCC 12 takes an optional's copy here for uninitialized.
        bool const casts = floatCast(next);
        size_t const cast = casts ? *next : e.last;
        next = casts ? mGraph.soleReader(cast) : next;
        int32_t const normalized = layer(cast).outputs[0];
        LayerRecord const* product = mGraph.elementWise(next, ElementWiseOperation::kPROD);
        if (product != nullptr && isWeight(e, PatternGraph::otherOperand(*product, normalized)))
        {
            if (casts)
            {
                e.layers.push_back(cast);
            }
            e.scale = PatternGraph::otherOperand(*product, normalized);
            e.scaleReader = e.last = *next;
            e.layers.push_back(*next);
        }
        next = mGraph.soleReader(e.last);
        LayerRecord const* sum = mGraph.elementWise(next, ElementWiseOperation::kSUM);
        int32_t const weighted = layer(e.last).outputs[0];
        if (sum != nullptr && isWeight(e, PatternGraph::otherOperand(*sum, weighted)))
        {
            e.bias = PatternGraph::otherOperand(*sum, weighted);
            e.biasReader = e.last = *next;
            e.layers.push_back(*next);
        }
    }

    LayerRecord fused(Expansion const& e) const
    {
        PlanModel const& model = mGraph.model();
        auto params = std::make_shared<network::FusedNormalizationParams>();
        params->normalizedAxes = e.axes;
        params->epsilon = e.epsilon;
        params->centered = e.centered;
        LayerRecord record;
        record.type = network::kFusedNormalizationLayerType;
        record.name = mGraph.namesOf(e.layers);
        record.inputs = {e.x, -1, -1, e.scale, e.bias};
        record.outputs = {layer(e.last).outputs[0]};
        record.params = std::move(params);
        record.precision = layer(e.reader).precision;
        record.guards = layer(e.last).guards;
        auto typeRead = [&](int32_t t, size_t reader) {
            return t < 0 ? nvinfer1::DataType::kFLOAT : slotType(model, layer(reader), slotOf(layer(reader), t));
        };
        LayerRecord const& last = layer(e.last);
        setIoTypes(model, record,
            {typeRead(e.x, e.reader), nvinfer1::DataType::kFLOAT, nvinfer1::DataType::kFLOAT,
                typeRead(e.scale, e.scaleReader), typeRead(e.bias, e.biasReader),
                slotType(model, last, last.inputs.size())});
        return record;
    }

    PatternGraph mGraph;
};

} // namespace

void fuseNormalizationExpansions(PlanModel& model)
{
    ExpansionFuser(model).run();
}

} // namespace kiln::cuda
