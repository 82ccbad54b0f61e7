#include "plan/passes/gelu_fusion.h"

#include "core/tensor_view.h"
#include "network/layers/activation.h"
#include "network/layers/constant.h"
#include "network/layers/elementwise.h"
#include "network/layers/unary.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

namespace kiln::plan
{
namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::LayerType;

//! The layers of one GELU, in the order they run, and the tensor it applies to.
struct Gelu
{
    int32_t x{-1};
    std::vector<size_t> layers; //!< the last one writes the GELU's output
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kGELU_ERF};
};

class Fuser
{
public:
    explicit Fuser(PlanModel& model)
        : mModel(model)
        , mReaders(readersOf(model))
        , mProducers(producersOf(model))
        , mRemoved(model.layers.size(), false)
    {
    }

    void run()
    {
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            std::optional<Gelu> const gelu = geluAround(l);
            if (!gelu)
            {
                continue;
            }
            LayerRecord record = fused(*gelu);
            std::vector<int32_t> scalars;
            for (size_t member : gelu->layers)
            {
                for (int32_t t : mModel.layers[member].inputs)
                {
                    std::erase(mReaders[t], member);
                    scalars.push_back(t);
                }
                mRemoved[member] = true;
            }
            mModel.layers[gelu->layers.back()] = std::move(record);
            mRemoved[gelu->layers.back()] = false;
            mReaders[gelu->x].push_back(gelu->layers.back());
            for (int32_t t : scalars)
            {
                dropUnread(t);
            }
        }
        eraseLayers(mModel, mRemoved);
    }

private:
    //! Layer `l` where it is an element-wise `operation` of one output, not yet absorbed.
    LayerRecord const* elementWise(std::optional<size_t> l, ElementWiseOperation operation) const
    {
        if (!l || mRemoved[*l])
        {
            return nullptr;
        }
        auto const* params = paramsOf<network::ElementWiseParams>(mModel.layers[*l]);
        return params != nullptr && params->operation == operation && mModel.layers[*l].inputs.size() == 2
                && mModel.layers[*l].outputs.size() == 1
            ? &mModel.layers[*l]
            : nullptr;
    }

    //! The operand of a binary layer other than `t`; -1 where both are `t`.
    static int32_t otherOperand(LayerRecord const& layer, int32_t t)
    {
        return layer.inputs[0] == t ? (layer.inputs[1] == t ? -1 : layer.inputs[1]) : layer.inputs[0];
    }

    //! The value of tensor `t` where it is one element that a constant holds, directly or through shuffles.
    std::optional<float> scalar(int32_t t) const
    {
        if (t < 0)
        {
            return std::nullopt;
        }
        std::optional<std::vector<int64_t>> const dims = constantDims(mModel, t);
        if (!dims || volume(*dims) != 1)
        {
            return std::nullopt;
        }
        for (int64_t p = mProducers[t]; p >= 0; p = mProducers[mModel.layers[p].inputs[0]])
        {
            LayerRecord const& producer = mModel.layers[p];
            if (auto const* constant = fixedConstant(producer))
            {
                std::vector<float> const values = constant->weights.toFloat();
                return values.size() == 1 ? std::optional<float>(values[0]) : std::nullopt;
            }
            if (producer.type != LayerType::kSHUFFLE || producer.inputs.size() != 1 || producer.inputs[0] < 0)
            {
                return std::nullopt;
            }
        }
        return std::nullopt;
    }

    //! Whether tensor `t` is a scalar constant holding `value` as closely as the constant's type holds it (an FP16
    //! plan stores sqrt(2) as 1.4140625).
    bool isScalar(int32_t t, double value) const
    {
        std::optional<float> const held = scalar(t);
        if (!held)
        {
            return false;
        }
        nvinfer1::DataType const type = mModel.tensors[t].type;
        double const precision = type == nvinfer1::DataType::kHALF ? 0x1p-11
            : type == nvinfer1::DataType::kBF16                    ? 0x1p-8
                                                                   : 1e-6;
        return std::fabs(*held - value) <= precision * value;
    }

    //! Whether layer `l` is x * 0.5 (or 0.5 * x).
    bool halves(int64_t l, int32_t x) const
    {
        return l >= 0 && elementWise(static_cast<size_t>(l), ElementWiseOperation::kPROD) != nullptr
            && timesScalar(static_cast<size_t>(l), 0.5) == x;
    }

    //! x / sqrt(2), or x * (1 / sqrt(2)), read by erf layer `erf` alone: x, with its layer appended to `layers`.
    std::optional<int32_t> scaledInput(size_t erf, std::vector<size_t>& layers) const
    {
        int32_t const d = mModel.layers[erf].inputs[0];
        std::optional<size_t> const divide = soleFeeder(d, erf, ElementWiseOperation::kDIV);
        std::optional<size_t> const product = soleFeeder(d, erf, ElementWiseOperation::kPROD);
        std::optional<size_t> const scaling = divide ? divide : product;
        int32_t const x = divide && isScalar(mModel.layers[*divide].inputs[1], std::numbers::sqrt2)
            ? mModel.layers[*divide].inputs[0]
            : (product ? timesScalar(*product, 1.0 / std::numbers::sqrt2) : -1);
        if (x < 0)
        {
            return std::nullopt;
        }
        layers.push_back(*scaling);
        return x;
    }

    //! The layer writing tensor `t` where it is an element-wise `operation` of `t`'s sole reader `reader`.
    std::optional<size_t> soleFeeder(int32_t t, size_t reader, ElementWiseOperation operation) const
    {
        if (t < 0 || mProducers[t] < 0)
        {
            return std::nullopt;
        }
        auto const p = static_cast<size_t>(mProducers[t]);
        return soleReader(mModel, mReaders, p) == reader && elementWise(p, operation) != nullptr
            ? std::optional<size_t>(p)
            : std::nullopt;
    }

    //! The operand of binary layer `l` other than a scalar constant holding `value`; -1 where there is none.
    int32_t timesScalar(size_t l, double value) const
    {
        LayerRecord const& layer = mModel.layers[l];
        for (int32_t operand : {0, 1})
        {
            if (isScalar(layer.inputs[1 - operand], value))
            {
                return layer.inputs[operand];
            }
        }
        return -1;
    }

    //! sqrt(2 / pi) * (x + 0.044715 * x^3), read by tanh layer `tanh` alone, each layer read by the next alone
    //! (GPT-2's export): x, with the four layers appended to `layers` in the order they run.
    std::optional<int32_t> cubicInput(size_t tanh, std::vector<size_t>& layers) const
    {
        std::optional<size_t> const scaled
            = soleFeeder(mModel.layers[tanh].inputs[0], tanh, ElementWiseOperation::kPROD);
        std::optional<size_t> const sum = scaled
            ? soleFeeder(timesScalar(*scaled, std::sqrt(2.0 / std::numbers::pi)), *scaled, ElementWiseOperation::kSUM)
            : std::nullopt;
        if (!sum)
        {
            return std::nullopt;
        }
        for (int32_t operand : {0, 1})
        {
            int32_t const x = mModel.layers[*sum].inputs[operand];
            std::optional<size_t> const cubic
                = soleFeeder(mModel.layers[*sum].inputs[1 - operand], *sum, ElementWiseOperation::kPROD);
            std::optional<size_t> const power
                = cubic ? soleFeeder(timesScalar(*cubic, 0.044715), *cubic, ElementWiseOperation::kPOW) : std::nullopt;
            if (power && mModel.layers[*power].inputs[0] == x && isScalar(mModel.layers[*power].inputs[1], 3.0))
            {
                layers.insert(layers.end(), {*power, *cubic, *sum, *scaled});
                return x;
            }
        }
        return std::nullopt;
    }

    //! The GELU whose erf (x * 0.5 * (1 + erf(x / sqrt(2)))) or tanh (x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x +
    //! 0.044715 * x^3)))) is layer `l`.
    std::optional<Gelu> geluAround(size_t l) const
    {
        if (mRemoved[l])
        {
            return std::nullopt;
        }
        Gelu gelu;
        std::optional<int32_t> x;
        auto const* unary = paramsOf<network::UnaryParams>(mModel.layers[l]);
        auto const* activation = paramsOf<network::ActivationParams>(mModel.layers[l]);
        if (unary != nullptr && unary->operation == nvinfer1::UnaryOperation::kERF)
        {
            x = scaledInput(l, gelu.layers);
        }
        else if (activation != nullptr && activation->activation == nvinfer1::ActivationType::kTANH
            && mModel.layers[l].inputs.size() == 1)
        {
            x = cubicInput(l, gelu.layers);
            gelu.activation = nvinfer1::ActivationType::kGELU_TANH;
        }
        if (!x)
        {
            return std::nullopt;
        }
        gelu.x = *x;
        gelu.layers.push_back(l);
        std::optional<size_t> const onePlus = soleReader(mModel, mReaders, l);
        LayerRecord const* sum = elementWise(onePlus, ElementWiseOperation::kSUM);
        if (sum == nullptr || !isScalar(otherOperand(*sum, mModel.layers[l].outputs[0]), 1.0))
        {
            return std::nullopt;
        }
        gelu.layers.push_back(*onePlus);
        std::optional<size_t> const times = soleReader(mModel, mReaders, *onePlus);
        LayerRecord const* product = elementWise(times, ElementWiseOperation::kPROD);
        if (product == nullptr)
        {
            return std::nullopt;
        }
        int32_t const other = otherOperand(*product, sum->outputs[0]);
        int64_t const half = other >= 0 ? mProducers[other] : -1;
        std::optional<size_t> last;
        if (other == gelu.x || isScalar(other, 0.5))
        {
            // (x * (1 + f)) * 0.5, or x * ((1 + f) * 0.5).
            std::optional<size_t> const next = soleReader(mModel, mReaders, *times);
            LayerRecord const* outer = elementWise(next, ElementWiseOperation::kPROD);
            int32_t const rest = outer != nullptr ? otherOperand(*outer, product->outputs[0]) : -1;
            last = outer != nullptr && (other == gelu.x ? isScalar(rest, 0.5) : rest == gelu.x) ? next : std::nullopt;
            gelu.layers.push_back(*times);
        }
        else if (halves(half, gelu.x) && soleReader(mModel, mReaders, static_cast<size_t>(half)) == times)
        {
            // (x * 0.5) * (1 + f).
            gelu.layers.push_back(static_cast<size_t>(half));
            last = times;
        }
        if (!last)
        {
            return std::nullopt;
        }
        gelu.layers.push_back(*last);
        return computesAlike(gelu) ? std::optional<Gelu>(gelu) : std::nullopt;
    }

    //! The type the GELU's first layer reads x in (an FP16 plan reads an FP32 network input in FP16).
    nvinfer1::DataType readType(Gelu const& gelu) const
    {
        LayerRecord const& first = mModel.layers[gelu.layers.front()];
        auto const slot = std::find(first.inputs.begin(), first.inputs.end(), gelu.x) - first.inputs.begin();
        return slotType(mModel, first, static_cast<size_t>(slot));
    }

    //! Whether the GELU's layers compute in one precision on one type, and its output has x's shape.
    bool computesAlike(Gelu const& gelu) const
    {
        LayerRecord const& first = mModel.layers[gelu.layers.front()];
        nvinfer1::DataType const type = readType(gelu);
        for (size_t l : gelu.layers)
        {
            LayerRecord const& layer = mModel.layers[l];
            if (!computesIn(mModel, layer, first.precision, type) || layer.guards != first.guards
                || !linearThroughout(mModel, layer))
            {
                return false;
            }
        }
        return sameShape(mModel, mModel.layers[gelu.layers.back()].outputs[0], gelu.x);
    }

    LayerRecord fused(Gelu const& gelu) const
    {
        LayerRecord const& first = mModel.layers[gelu.layers.front()];
        auto params = std::make_shared<network::ActivationParams>();
        params->activation = gelu.activation;
        LayerRecord record;
        record.type = LayerType::kACTIVATION;
        record.params = std::move(params);
        record.precision = first.precision;
        record.inputs = {gelu.x};
        record.outputs = mModel.layers[gelu.layers.back()].outputs;
        record.guards = first.guards;
        for (size_t l : gelu.layers)
        {
            record.name += (record.name.empty() ? "" : " + ") + mModel.layers[l].name;
        }
        nvinfer1::DataType const type = readType(gelu);
        setIoTypes(mModel, record, {type, type});
        return record;
    }

    //! Removes the layers that made tensor `t` (a constant, and shuffles of it) while nothing reads what they make.
    void dropUnread(int32_t t)
    {
        while (t >= 0 && mProducers[t] >= 0 && mReaders[t].empty() && !isObserved(mModel.tensors[t]))
        {
            auto const p = static_cast<size_t>(mProducers[t]);
            LayerRecord const& producer = mModel.layers[p];
            bool const shuffle = producer.type == LayerType::kSHUFFLE && producer.inputs.size() == 1;
            if (mRemoved[p] || (producer.type != LayerType::kCONSTANT && !shuffle))
            {
                return;
            }
            mRemoved[p] = true;
            t = shuffle ? producer.inputs[0] : -1;
            if (t >= 0)
            {
                std::erase(mReaders[t], p);
            }
        }
    }

    PlanModel& mModel;
    std::vector<std::vector<size_t>> mReaders; //!< by tensor: the layers that read it, kept current while fusing
    std::vector<int64_t> mProducers;           //!< by tensor: the layer that writes it, or -1
    std::vector<bool> mRemoved;                //!< by layer: absorbed into a GELU, or no longer needed
};

} // namespace

void fuseGelu(PlanModel& model)
{
    Fuser(model).run();
}

} // namespace kiln::plan
