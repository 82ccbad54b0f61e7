// fuseResidualNormalizations (normalization_fusion.h): the residual sum a normalization over the last axes reads.
#include "backend/cuda/passes/normalization_fusion.h"
#include "network/layers/normalization.h"
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

using network::FusedNormalizationParams;
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

//! A normalization a residual sum may fold into, as a fused normalization without one.
struct Normalization
{
    FusedNormalizationParams params;
    int32_t scale{-1};
    int32_t bias{-1};
};

//! One residual sum and the normalization reading it, as found.
struct Residual
{
    size_t norm{0};
    size_t sum{0};
    std::optional<size_t> cast;    //!< a widening cast between the sum and the normalization
    std::optional<size_t> biasAdd; //!< the bias added to an operand of the sum just before
    int32_t x{-1};
    int32_t preBias{-1};
    int32_t residual{-1};
    int32_t sumOutput{-1}; //!< the tensor the fused layer also writes, where other layers read it
};

//! Whether a value of type `from` is kept exactly in type `to`.
bool keepsValues(DataType from, DataType to)
{
    return from == to || (to == DataType::kFLOAT && (from == DataType::kHALF || from == DataType::kBF16));
}

class ResidualFuser
{
public:
    explicit ResidualFuser(PlanModel& model)
        : mGraph(model)
    {
    }

    void run()
    {
        for (size_t l = 0; l < mGraph.size(); ++l)
        {
            std::optional<Normalization> const norm = mGraph.removed(l) ? std::nullopt : normalizationAt(l);
            std::optional<Residual> const found = norm ? residualOf(*norm, l) : std::nullopt;
            if (found)
            {
                std::vector<size_t> absorbed{found->sum, l};
                for (std::optional<size_t> extra : {found->cast, found->biasAdd})
                {
                    if (extra)
                    {
                        absorbed.push_back(*extra);
                    }
                }
                mGraph.replace(absorbed, l, fused(*norm, *found, absorbed));
            }
        }
        mGraph.commit();
    }

private:
    LayerRecord const& layer(size_t l) const
    {
        return mGraph.layer(l);
    }
    PlanModel const& model() const
    {
        return mGraph.model();
    }

    //! Layer `l` where it normalizes the rows of its input's last axes and reads no residual yet.
    std::optional<Normalization> normalizationAt(size_t l) const
    {
        LayerRecord const& record = layer(l);
        if (auto const* fused = paramsOf<FusedNormalizationParams>(record))
        {
            bool const plain = record.inputs.size() == FusedNormalizationParams::kInputCount
                && record.inputs[FusedNormalizationParams::kPreBias] < 0
                && record.inputs[FusedNormalizationParams::kResidual] < 0 && record.outputs.size() == 1;
            return plain ? std::optional<Normalization>(Normalization{*fused,
                       record.inputs[FusedNormalizationParams::kScale], record.inputs[FusedNormalizationParams::kBias]})
                         : std::nullopt;
        }
        std::optional<FusedNormalizationParams> const rows = rowNormalizationOf(model(), record);
        return rows ? std::optional<Normalization>(Normalization{*rows, record.inputs[1], record.inputs[2]})
                    : std::nullopt;
    }

    //! Layer `l` where it is a cast whose output holds its input's values exactly.
    bool widens(std::optional<size_t> l) const
    {
        if (!l || paramsOf<network::CastParams>(layer(*l)) == nullptr || layer(*l).inputs.size() != 1
            || layer(*l).outputs.size() != 1)
        {
            return false;
        }
        return keepsValues(slotType(model(), layer(*l), 0), slotType(model(), layer(*l), 1));
    }

    //! Whether tensor `t`, written by the fused layer at `l`, is read only after it: it replaces the layers that
    //! wrote `t` earlier, so a reader between them would read it before it is written. A shape layer reads only its
    //! extents, which are known before any layer runs (GPT-2's export takes the residual stream's shape there).
    bool readLater(int32_t t, size_t l) const
    {
        std::vector<size_t> const& readers = mGraph.readers(t);
        return std::all_of(readers.begin(), readers.end(),
            [&](size_t r) { return r >= l || layer(r).type == nvinfer1::LayerType::kSHAPE; });
    }

    std::optional<Residual> residualOf(Normalization const& norm, size_t l) const
    {
        Residual r;
        r.norm = l;
        int32_t const x = layer(l).inputs[0];
        std::optional<size_t> p = mGraph.producer(x);
        int32_t s = x;
        if (widens(p))
        {
            r.cast = p;
            s = layer(*p).inputs[0];
            p = mGraph.producer(s);
            // The fused layer writes the cast's output, not the sum before it: nothing else may read that.
            if (mGraph.readers(s).size() != 1 || isObserved(model().tensors[s]))
            {
                return std::nullopt;
            }
        }
        LayerRecord const* sum = mGraph.elementWise(p, ElementWiseOperation::kSUM);
        int32_t const axes = norm.params.normalizedAxes;
        if (sum == nullptr || !operandRowsIn(model(), sum->inputs[0], s, axes)
            || !operandRowsIn(model(), sum->inputs[1], s, axes))
        {
            return std::nullopt;
        }
        r.sum = *p;
        r.x = sum->inputs[0];
        r.residual = sum->inputs[1];
        bool const othersRead = mGraph.readers(x).size() > 1 || isObserved(model().tensors[x]);
        if (model().tensors[x].values || (othersRead && !readLater(x, l)))
        {
            return std::nullopt;
        }
        r.sumOutput = othersRead ? x : -1;
        addBias(r, norm.params.normalizedAxes, s);
        return consistent(r) ? std::optional<Residual>(r) : std::nullopt;
    }

    //! A bias added to one operand of the sum just before it, where the sum alone reads that addition.
    void addBias(Residual& r, int32_t axes, int32_t s) const
    {
        for (int32_t const operand : {r.x, r.residual})
        {
            std::optional<size_t> const p = mGraph.producer(operand);
            LayerRecord const* add = mGraph.elementWise(p, ElementWiseOperation::kSUM);
            if (add == nullptr || mGraph.soleReader(*p) != r.sum)
            {
                continue;
            }
            for (size_t full : {0U, 1U})
            {
                int32_t const bias = add->inputs[1 - full];
                bool const rows = operandRowsIn(model(), add->inputs[full], s, axes)
                    && rowWeightIn(model(), add->inputs[full], s, axes) == network::RowWeight::kNONE;
                if (rows && rowWeightIn(model(), bias, s, axes) != network::RowWeight::kNONE)
                {
                    r.residual = operand == r.x ? r.residual : r.x;
                    r.x = add->inputs[full];
                    r.preBias = bias;
                    r.biasAdd = p;
                    return;
                }
            }
        }
    }

    //! The sum (and the bias addition) compute in the normalization's precision, in the type it reads x in.
    bool consistent(Residual const& r) const
    {
        LayerRecord const& norm = layer(r.norm);
        LayerRecord const& sum = layer(r.sum);
        DataType const type = slotType(model(), sum, 0);
        bool const sumAlike = computesIn(model(), sum, norm.precision, type);
        bool const biasAlike = !r.biasAdd || computesIn(model(), layer(*r.biasAdd), norm.precision, type);
        bool const readsTheSum = r.cast ? slotType(model(), layer(*r.cast), 0) == type : true;
        std::vector<size_t> layers{r.sum, r.norm};
        if (r.cast)
        {
            layers.push_back(*r.cast);
        }
        if (r.biasAdd)
        {
            layers.push_back(*r.biasAdd);
        }
        return sumAlike && biasAlike && readsTheSum && slotType(model(), norm, 0) == type && mGraph.alike(layers);
    }

    LayerRecord fused(Normalization const& norm, Residual const& r, std::vector<size_t> const& absorbed) const
    {
        LayerRecord const& old = layer(r.norm);
        LayerRecord record;
        record.type = network::kFusedNormalizationLayerType;
        record.name = mGraph.namesOf(absorbed);
        record.params = std::make_shared<FusedNormalizationParams>(norm.params);
        record.inputs = {r.x, r.preBias, r.residual, norm.scale, norm.bias};
        record.outputs = {old.outputs[0]};
        record.precision = old.precision;
        record.guards = old.guards;
        DataType const type = slotType(model(), layer(r.sum), 0);
        size_t const scaleSlot = paramsOf<FusedNormalizationParams>(old) ? FusedNormalizationParams::kScale : 1;
        auto weightType
            = [&](int32_t t, size_t slot) { return t < 0 ? DataType::kFLOAT : slotType(model(), old, slot); };
        DataType const preBiasType = r.biasAdd
            ? slotType(model(), layer(*r.biasAdd), layer(*r.biasAdd).inputs[0] == r.preBias ? 0 : 1)
            : DataType::kFLOAT;
        std::vector<DataType> types{type, preBiasType, type, weightType(norm.scale, scaleSlot),
            weightType(norm.bias, scaleSlot + 1), slotType(model(), old, old.inputs.size())};
        if (r.sumOutput >= 0)
        {
            record.outputs.push_back(r.sumOutput);
            types.push_back(r.cast ? slotType(model(), layer(*r.cast), 1) : type);
        }
        setIoTypes(model(), record, std::move(types));
        return record;
    }

    PatternGraph mGraph;
};

} // namespace

void fuseResidualNormalizations(PlanModel& model)
{
    ResidualFuser(model).run();
}

} // namespace kiln::cuda
