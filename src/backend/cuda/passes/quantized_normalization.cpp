// fuseNormalizationQuantizations (normalization_fusion.h): the Q/DQ layers around a fused normalization.
#include "backend/cuda/passes/normalization_fusion.h"
#include "network/layers/quantize.h"
#include "plan/passes/pattern_graph.h"
#include "plan/passes/quantized_patterns.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <memory>
#include <optional>

namespace kiln::cuda
{
using plan::Dequantization;
using plan::LayerRecord;
using plan::PatternGraph;
using plan::PlanModel;

namespace
{

using network::FusedNormalizationParams;
using nvinfer1::DataType;

//! A quantization by one constant scale, as a fused normalization's output may take it.
struct Quantization
{
    size_t layer;
    float scale;
    DataType type; //!< INT8 or FP8
};

class QuantizationFuser
{
public:
    explicit QuantizationFuser(PlanModel& model)
        : mGraph(model)
    {
    }

    void run()
    {
        for (size_t l = 0; l < mGraph.size(); ++l)
        {
            if (mGraph.removed(l))
            {
                continue;
            }
            if (auto const* params = paramsOf<FusedNormalizationParams>(layer(l)))
            {
                if (!params->quantizes())
                {
                    fuseAround(l, *params);
                }
            }
            else if (std::optional<FusedNormalizationParams> const rows = rowNormalizationTakingCodes(l))
            {
                mGraph.replace({l}, l, fusedRecordOf(layer(l), *rows));
                fuseAround(l, *rows);
            }
            fuseRoundedSum(l);
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

    //! The dequantization that writes input `slot` of normalization `l` for it alone, into `valueType`.
    std::optional<Dequantization> dequantizationAt(size_t l, size_t slot, DataType valueType) const
    {
        int32_t const t = layer(l).inputs[slot];
        std::optional<Dequantization> const dq = t >= 0 ? plan::dequantizationOf(mGraph, t) : std::nullopt;
        bool const fits = dq && dq->floatType == valueType && plan::readOnlyBy(mGraph, *dq, l)
            && layer(dq->layer).guards == layer(l).guards;
        return fits ? dq : std::nullopt;
    }

    //! The quantization that alone reads normalization `l`'s output y (its first output; a second is the residual
    //! sum), of `valueType`, by one constant scale.
    std::optional<Quantization> quantizationOfOutput(size_t l, DataType valueType) const
    {
        std::optional<size_t> const reader = mGraph.soleReaderOf(layer(l).outputs[0]);
        auto const* params = reader && !mGraph.removed(*reader) ? paramsOf<network::QuantizeParams>(layer(*reader))
                                                                : nullptr;
        if (params == nullptr || (params->toType != DataType::kINT8 && params->toType != DataType::kFP8))
        {
            return std::nullopt;
        }
        LayerRecord const& q = layer(*reader);
        std::optional<float> const scale = plan::perTensorScale(mGraph, q);
        bool const fits = scale && q.guards == layer(l).guards && slotType(model(), q, 0) == valueType
            && slotType(model(), q, q.inputs.size()) == params->toType;
        return fits ? std::optional<Quantization>(Quantization{*reader, *scale, params->toType}) : std::nullopt;
    }

    //! Normalization `l` as a fused normalization, where it is an INormalizationLayer over its input's last axes (no
    //! residual sum folded into it: ConvNeXt's) whose input a dequantization writes or whose output a quantization
    //! reads, as fuseAround takes them.
    std::optional<FusedNormalizationParams> rowNormalizationTakingCodes(size_t l) const
    {
        std::optional<FusedNormalizationParams> const rows = rowNormalizationOf(model(), layer(l));
        if (!rows)
        {
            return std::nullopt;
        }
        // fuseAround's conditions, so that a layer that takes nothing stays as it was.
        DataType const valueType = slotType(model(), layer(l), 0);
        bool const codes = slotType(model(), layer(l), layer(l).inputs.size()) == valueType
            && (dequantizationAt(l, 0, valueType) || quantizationOfOutput(l, valueType));
        return codes ? rows : std::nullopt;
    }

    //! The fused normalization `params` of INormalizationLayer record `norm`: its input, scale and bias in their
    //! slots, no residual and no bias before it, each slot in the type the layer read or wrote it in.
    LayerRecord fusedRecordOf(LayerRecord const& norm, FusedNormalizationParams const& params) const
    {
        LayerRecord record;
        record.type = network::kFusedNormalizationLayerType;
        record.name = norm.name;
        record.params = std::make_shared<FusedNormalizationParams>(params);
        record.inputs = {norm.inputs[0], -1, -1, norm.inputs[1], norm.inputs[2]};
        record.outputs = norm.outputs;
        record.precision = norm.precision;
        record.guards = norm.guards;
        DataType const x = slotType(model(), norm, 0);
        setIoTypes(model(), record,
            {x, DataType::kFLOAT, x, slotType(model(), norm, 1), slotType(model(), norm, 2),
                slotType(model(), norm, 3)});
        return record;
    }

    void fuseAround(size_t l, FusedNormalizationParams const& old)
    {
        LayerRecord const& norm = layer(l);
        size_t const ySlot = norm.inputs.size();
        DataType const valueType = slotType(model(), norm, 0);
        // The sums round to x's type; the codes' values must round to it too, and y be held in it before its Q, as the
        // residual sum a pre-norm block's normalization also writes (its second output, for the block's next sum).
        for (size_t slot = ySlot; slot < ySlot + norm.outputs.size(); ++slot)
        {
            if (slotType(model(), norm, slot) != valueType)
            {
                return;
            }
        }
        // x + x reads one tensor twice: its dequantization stays.
        bool const twice = norm.inputs[FusedNormalizationParams::kResidual] == norm.inputs[0];
        std::optional<Dequantization> const x
            = twice ? std::nullopt : dequantizationAt(l, FusedNormalizationParams::kInput, valueType);
        std::optional<Dequantization> const residual
            = twice ? std::nullopt : dequantizationAt(l, FusedNormalizationParams::kResidual, valueType);
        std::optional<Quantization> const y = quantizationOfOutput(l, valueType);
        if (!x && !residual && !y)
        {
            return;
        }
        auto params = std::make_shared<FusedNormalizationParams>(old);
        params->valueType = valueType;
        LayerRecord record = norm;
        std::vector<DataType> types = plan::slotTypes(model(), norm);
        std::vector<size_t> absorbed{l};
        auto const takeInput = [&](Dequantization const& dq, size_t slot, float& scale) {
            record.inputs[slot] = dq.source;
            types[slot] = dq.quantizedType;
            scale = dq.scale;
            absorbed.push_back(dq.layer);
        };
        if (x)
        {
            takeInput(*x, FusedNormalizationParams::kInput, params->inputScale);
        }
        if (residual)
        {
            takeInput(*residual, FusedNormalizationParams::kResidual, params->residualScale);
        }
        if (y)
        {
            record.outputs[0] = layer(y->layer).outputs[0];
            types[ySlot] = y->type;
            params->outputScale = y->scale;
            absorbed.push_back(y->layer);
        }
        std::sort(absorbed.begin(), absorbed.end());
        record.name = mGraph.namesOf(absorbed);
        record.params = std::move(params);
        setIoTypes(model(), record, std::move(types));
        mGraph.replace(absorbed, l, std::move(record));
    }

    //! Where normalization `l` took the DQ of a residual sum's Q -> DQ pair (ViT's s = Add(a, b), then Q -> DQ into
    //! the normalization, s itself read by the block's next sum): the sum and the Q join it, which normalizes s
    //! rounded through the pair's codes and writes s where other layers read it. The Q and the DQ have one scale; the
    //! Q reads s in the normalization's value type, and only the normalization reads the codes.
    void fuseRoundedSum(size_t l)
    {
        LayerRecord const& norm = layer(l);
        auto const* params = paramsOf<FusedNormalizationParams>(norm);
        if (params == nullptr || params->inputScale <= 0.0F || params->sumScale > 0.0F || norm.outputs.size() != 1
            || norm.inputs[FusedNormalizationParams::kPreBias] >= 0
            || norm.inputs[FusedNormalizationParams::kResidual] >= 0)
        {
            return;
        }
        int32_t const codes = norm.inputs[FusedNormalizationParams::kInput];
        std::optional<size_t> const q = mGraph.producer(codes);
        if (!q || mGraph.removed(*q) || paramsOf<network::QuantizeParams>(layer(*q)) == nullptr
            || mGraph.soleReaderOf(codes) != l || plan::perTensorScale(mGraph, layer(*q)) != params->inputScale
            || layer(*q).guards != norm.guards || slotType(model(), layer(*q), 0) != params->valueType)
        {
            return;
        }
        int32_t const s = layer(*q).inputs[0];
        std::optional<size_t> const add = mGraph.producer(s);
        LayerRecord const* sum = mGraph.elementWise(add, nvinfer1::ElementWiseOperation::kSUM);
        int32_t const axes = params->normalizedAxes;
        if (sum == nullptr || model().tensors[s].values || sum->guards != norm.guards
            || !computesIn(model(), *sum, norm.precision, params->valueType)
            || !operandRowsIn(model(), sum->inputs[0], s, axes) || !operandRowsIn(model(), sum->inputs[1], s, axes))
        {
            return;
        }
        // s is written where the normalization runs, after the sum and the Q: its other readers must come later.
        std::vector<size_t> const& readers = mGraph.readers(s);
        if (std::any_of(readers.begin(), readers.end(), [&](size_t r) { return r != *q && r < l; }))
        {
            return;
        }
        auto fused = std::make_shared<FusedNormalizationParams>(*params);
        fused->inputScale = 0.0F;
        fused->sumScale = params->inputScale;
        fused->sumCodeType = slotType(model(), norm, FusedNormalizationParams::kInput);
        LayerRecord record = norm;
        std::vector<DataType> types = plan::slotTypes(model(), norm);
        record.inputs[FusedNormalizationParams::kInput] = sum->inputs[0];
        record.inputs[FusedNormalizationParams::kResidual] = sum->inputs[1];
        types[FusedNormalizationParams::kInput] = slotType(model(), *sum, 0);
        types[FusedNormalizationParams::kResidual] = slotType(model(), *sum, 1);
        if (readers.size() > 1 || isObserved(model().tensors[s]))
        {
            record.outputs.push_back(s);
            types.push_back(slotType(model(), *sum, 2));
        }
        std::vector<size_t> absorbed{*add, *q, l};
        std::sort(absorbed.begin(), absorbed.end());
        record.name = mGraph.namesOf(absorbed);
        record.params = std::move(fused);
        setIoTypes(model(), record, std::move(types));
        mGraph.replace(absorbed, l, std::move(record));
    }

    PatternGraph mGraph;
};

} // namespace

void fuseNormalizationQuantizations(PlanModel& model)
{
    QuantizationFuser(model).run();
}

} // namespace kiln::cuda
