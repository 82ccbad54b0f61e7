#include "plan/passes/quantized_matrix_multiply_fusion.h"

#include "core/data_type.h"
#include "core/tensor_view.h"
#include "network/fused/quantized_matrix_multiply.h"
#include "network/layers/constant.h"
#include "network/layers/matrix_multiply.h"
#include "plan/passes/int8_weights.h"
#include "plan/passes/quantized_patterns.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

namespace kiln::plan
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::MatrixOperation;

//! The product's weights as the fused layer holds them: INT8 or FP8 [N, K], one scale per column.
struct QuantizedWeights
{
    network::WeightsBuffer values;
    std::vector<float> scales;
};

//! The layers after the product that the fused layer may take, in order, the bias where there is a sum and the
//! columns' factors where there is a product by constants.
struct Chain
{
    size_t product;
    Dequantization input;
    QuantizedWeights weights;
    std::vector<size_t> after;     //!< [sum] [scaling] [activation] [quantization], those present
    std::vector<float> bias;       //!< the sum's constant row, where there is a sum
    std::optional<size_t> scaling; //!< the product by `factors`, where there is one
    std::vector<float> factors;    //!< [N]: each column's factor, positive
};

//! `byColumn` ([N, K]), held in `storedIn`, on `type`'s grid with one scale per column where it has one, else with
//! one for all (repeated per column).
std::optional<QuantizedWeights> recoverWeights(
    std::vector<float> const& byColumn, int64_t n, DataType type, DataType storedIn)
{
    for (int64_t channels : {n, int64_t{1}})
    {
        std::optional<QuantizedWeights> weights;
        if (type == DataType::kINT8)
        {
            if (std::optional<Int8Weights> int8 = recoverInt8Weights(byColumn, channels, storedIn))
            {
                weights = QuantizedWeights{int8WeightsBuffer(int8->values), std::move(int8->scales)};
            }
        }
        else if (std::optional<Fp8Weights> fp8 = recoverFp8Weights(byColumn, channels, storedIn))
        {
            weights = QuantizedWeights{fp8WeightsBuffer(fp8->values), std::move(fp8->scales)};
        }
        if (weights)
        {
            float const first = weights->scales[0];
            weights->scales.resize(static_cast<size_t>(n), first);
            return weights;
        }
    }
    return std::nullopt;
}

//! Each of `values` times the factor of its column.
std::vector<float> scaledBy(std::vector<float> values, std::vector<float> const& factors)
{
    for (size_t n = 0; n < values.size(); ++n)
    {
        values[n] *= factors[n];
    }
    return values;
}

//! The values of a fixed constant layer that writes tensor `t` directly, with the tensor's extents and the
//! floating-point type the constant holds them in (FP16 where an FP16 build folded them).
struct ConstantValues
{
    std::vector<float> values;
    std::vector<int64_t> dims;
    DataType type;
};

class QuantizedMatrixMultiplyFuser
{
public:
    QuantizedMatrixMultiplyFuser(PlanModel& model, QuantizedMatrixMultiplyFusionRules const& rules)
        : mGraph(model)
        , mRules(rules)
    {
    }

    size_t run()
    {
        size_t fused = 0;
        for (size_t l = 0; l < mGraph.size(); ++l)
        {
            std::optional<Chain> const chain = chainFrom(l);
            fused += chain && fuseLongestAccepted(*chain) ? 1 : 0;
        }
        mGraph.commit();
        return fused;
    }

private:
    LayerRecord const& layer(size_t l) const
    {
        return mGraph.layer(l);
    }

    std::optional<ConstantValues> constantValues(int32_t t) const
    {
        std::optional<size_t> const p = mGraph.producer(t);
        network::ConstantParams const* constant = p ? fixedConstant(layer(*p)) : nullptr;
        if (constant == nullptr)
        {
            return std::nullopt;
        }
        std::optional<std::vector<int64_t>> dims = constantDims(mGraph.model(), t);
        if (!isFloatType(constant->weights.type()) || !dims || volume(*dims) != constant->weights.count())
        {
            return std::nullopt;
        }
        return ConstantValues{constant->weights.toFloat(), std::move(*dims), constant->weights.type()};
    }

    //! The product's right operand as `type` weights [N, K] with one scale per column, where a constant holds it as
    //! one matrix ([1, ..., 1, K, N], or [1, ..., 1, N, K] for kTRANSPOSE) of values exactly on the type's grid: one
    //! scale per column (Model Optimizer's weights), or one for the whole matrix.
    std::optional<QuantizedWeights> quantizedWeights(int32_t t, MatrixOperation op, DataType type) const
    {
        std::optional<ConstantValues> const constant = constantValues(t);
        if (!constant || constant->dims.size() < 2
            || !std::all_of(constant->dims.begin(), constant->dims.end() - 2, [](int64_t e) { return e == 1; }))
        {
            return std::nullopt;
        }
        bool const transposed = op == MatrixOperation::kTRANSPOSE;
        int64_t const rows = constant->dims[constant->dims.size() - 2];
        int64_t const cols = constant->dims.back();
        int64_t const n = transposed ? rows : cols;
        int64_t const k = transposed ? cols : rows;
        std::vector<float> byColumn(constant->values.size());
        for (int64_t column = 0; column < n; ++column)
        {
            for (int64_t i = 0; i < k; ++i)
            {
                byColumn[column * k + i] = constant->values[transposed ? column * k + i : i * n + column];
            }
        }
        return recoverWeights(byColumn, n, type, constant->type);
    }

    //! The constant row of `columns` values ([1, ..., 1, N] or [N]) that tensor `t` holds.
    std::optional<std::vector<float>> constantRow(int32_t t, int64_t columns) const
    {
        std::optional<ConstantValues> const constant = constantValues(t);
        bool const row = constant && !constant->dims.empty() && constant->dims.back() == columns
            && std::all_of(constant->dims.begin(), constant->dims.end() - 1, [](int64_t e) { return e == 1; });
        return row ? std::optional<std::vector<float>>(constant->values) : std::nullopt;
    }

    //! The positive factors by which tensor `t` scales `columns` columns: one constant for all of them (Whisper's
    //! queries' scaling), or a constant row of one per column (ConvNeXt's layer scale).
    std::optional<std::vector<float>> columnFactors(int32_t t, int64_t columns) const
    {
        std::optional<std::vector<float>> factors = constantRow(t, columns);
        if (!factors)
        {
            std::optional<float> const factor = mGraph.scalar(t);
            if (!factor)
            {
                return std::nullopt;
            }
            factors = std::vector<float>(static_cast<size_t>(columns), *factor);
        }
        bool const positive
            = std::all_of(factors->begin(), factors->end(), [](float f) { return std::isfinite(f) && f > 0.0F; });
        return positive ? factors : std::nullopt;
    }

    //! Matrix multiply `l` with a dequantized INT8 (or FP8) left operand and constant weights on the right on the same
    //! type's grid, as FP32 or as the chain's 16-bit type holds them. Chains of any floating-point type fuse: the fused
    //! layer computes as in FP32 (fusedRecord).
    std::optional<Chain> productFrom(size_t l) const
    {
        LayerRecord const& product = layer(l);
        auto const* params = paramsOf<network::MatrixMultiplyParams>(product);
        std::optional<DataType> const type = chainType(mGraph, product);
        if (mGraph.removed(l) || params == nullptr || product.inputs.size() != 2 || product.inputs[0] < 0
            || product.inputs[1] < 0 || product.outputs.size() != 1 || product.epilogue.any()
            || params->op0 != MatrixOperation::kNONE || params->op1 == MatrixOperation::kVECTOR
            || !linearThroughout(mGraph.model(), product) || !type
            || mGraph.model().tensors[product.inputs[0]].dims.size() < 2)
        {
            return std::nullopt;
        }
        std::optional<Dequantization> const input = dequantizationOf(mGraph, product.inputs[0]);
        if (!input || layer(input->layer).guards != product.guards)
        {
            return std::nullopt;
        }
        std::optional<QuantizedWeights> weights
            = quantizedWeights(product.inputs[1], params->op1, input->quantizedType);
        if (!weights)
        {
            return std::nullopt;
        }
        std::vector<float> ones(weights->scales.size(), 1.0F);
        return Chain{l, *input, std::move(*weights), {}, {}, std::nullopt, std::move(ones)};
    }

    std::optional<Chain> chainFrom(size_t l) const
    {
        std::optional<Chain> chain = productFrom(l);
        if (!chain)
        {
            return std::nullopt;
        }
        int32_t const product = layer(l).outputs[0];
        auto const columns = static_cast<int64_t>(chain->weights.scales.size());
        int32_t written = product; // the chain's result so far
        std::optional<size_t> next = mGraph.soleReader(l);
        if (joinsInFloat(mGraph, next, l) && isSum(layer(*next))
            && sameShape(mGraph.model(), layer(*next).outputs[0], product))
        {
            std::optional<std::vector<float>> bias
                = constantRow(PatternGraph::otherOperand(layer(*next), product), columns);
            if (bias)
            {
                chain->after.push_back(*next);
                chain->bias = std::move(*bias);
                written = layer(*next).outputs[0];
                next = mGraph.soleReader(*next);
            }
        }
        // A product by positive constants, one for all columns or one per column (Whisper's attention scales its
        // queries so, right after their projection; ConvNeXt its blocks' branches): the columns' scales and the bias
        // take the factors, and the activation and quantization after it may join.
        LayerRecord const* scaling
            = joinsInFloat(mGraph, next, l) ? mGraph.elementWise(next, nvinfer1::ElementWiseOperation::kPROD) : nullptr;
        if (scaling != nullptr && sameShape(mGraph.model(), scaling->outputs[0], product))
        {
            std::optional<std::vector<float>> factors
                = columnFactors(PatternGraph::otherOperand(*scaling, written), columns);
            if (factors)
            {
                chain->after.push_back(*next);
                chain->scaling = *next;
                chain->factors = std::move(*factors);
                next = mGraph.soleReader(*next);
            }
        }
        auto const* activation = joinsInFloat(mGraph, next, l) ? paramsOf<network::ActivationParams>(layer(*next))
                                                               : nullptr;
        if (activation != nullptr && mRules.fusesActivation(*activation))
        {
            chain->after.push_back(*next);
            next = mGraph.soleReader(*next);
        }
        if (isQuantization(mGraph, next, l, chain->input.quantizedType))
        {
            chain->after.push_back(*next);
        }
        return chain;
    }

    //! Tries the chain's prefixes, longest first: fuses the first the backend runs.
    bool fuseLongestAccepted(Chain const& chain)
    {
        for (size_t taken = chain.after.size() + 1; taken-- > 0;)
        {
            // An unquantized output that the chain holds in FP16 is written in FP16 where the backend's kernel can,
            // else in FP32, converted for its readers.
            for (bool const halfOutput : {true, false})
            {
                auto [record, absorbed] = fusedRecord(chain, taken, halfOutput);
                if (runsWithFloatOutput(mGraph, record, mRules.runsQuantized))
                {
                    size_t const at = absorbed.back();
                    mGraph.replace(absorbed, at, std::move(record));
                    return true;
                }
                if (record.precision != DataType::kHALF)
                {
                    break; // no FP16 output was asked for: the FP32 record is this one
                }
            }
        }
        return false;
    }

    std::pair<LayerRecord, std::vector<size_t>> fusedRecord(Chain const& chain, size_t taken, bool halfOutput) const
    {
        LayerRecord const& product = layer(chain.product);
        auto params = std::make_shared<network::QuantizedMatrixMultiplyParams>();
        params->columns = static_cast<int64_t>(chain.weights.scales.size());
        params->weights = chain.weights.values;
        params->inputScale = chain.input.scale;
        // (x W^T + b) c = x (c W)^T + c b, c a factor per column: the product by c lives on in the scales and the bias.
        std::vector<float> factors(chain.factors.size(), 1.0F);
        bool biased = false;
        std::vector<size_t> absorbed;
        if (readOnlyBy(mGraph, chain.input, chain.product))
        {
            absorbed.push_back(chain.input.layer);
        }
        absorbed.push_back(chain.product);
        for (size_t i = 0; i < taken && i < chain.after.size(); ++i)
        {
            size_t const l = chain.after[i];
            absorbed.push_back(l);
            if (isSum(layer(l)))
            {
                biased = true;
            }
            else if (l == chain.scaling)
            {
                factors = chain.factors;
            }
            else if (auto const* activation = paramsOf<network::ActivationParams>(layer(l)))
            {
                takeActivation(*params, *activation);
            }
            else
            {
                params->outputScale = *perTensorScale(mGraph, layer(l));
            }
        }
        params->weightScales = floatWeightsBuffer(scaledBy(chain.weights.scales, factors));
        if (biased)
        {
            params->bias = floatWeightsBuffer(scaledBy(chain.bias, factors));
        }
        // The sums' scales, the bias and the activation are FP32. With halfOutput, an unquantized output stored as
        // FP16 (FP16 builds) is written so; otherwise it is FP32, which a reader of FP16 converts.
        int32_t const output = layer(absorbed.back()).outputs[0];
        bool const writesHalf = halfOutput && params->outputScale == 0.0F
            && mGraph.model().tensors[output].type == DataType::kHALF;
        params->floatType = writesHalf ? DataType::kHALF : DataType::kFLOAT;
        LayerRecord record = fusedChainRecord(
            mGraph, network::kQuantizedMatrixMultiplyLayerType, product, {chain.input.source}, absorbed, params);
        record.precision = params->floatType;
        return {std::move(record), std::move(absorbed)};
    }

    PatternGraph mGraph;
    QuantizedMatrixMultiplyFusionRules const& mRules;
};

} // namespace

size_t fuseQuantizedMatrixMultiplies(PlanModel& model, QuantizedMatrixMultiplyFusionRules const& rules)
{
    size_t const fused = QuantizedMatrixMultiplyFuser(model, rules).run();
    if (fused > 0)
    {
        dropUnreadDequantizations(model);
    }
    return fused;
}

} // namespace kiln::plan
