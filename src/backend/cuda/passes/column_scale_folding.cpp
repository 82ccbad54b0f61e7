#include "backend/cuda/passes/column_scale_folding.h"

#include "device_common/half.h"
#include "network/layers/constant.h"
#include "network/layers/elementwise.h"
#include "network/layers/matrix_multiply.h"
#include "plan/plan_graph.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace kiln::cuda
{
using plan::LayerRecord;
using plan::PlanModel;

namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::MatrixOperation;

//! A product by a column scale and the layers it folds into.
struct Fold
{
    size_t scaling;             //!< the element-wise product
    size_t scale;               //!< the constant layer of its scale
    size_t product;             //!< the matrix multiply
    size_t weights;             //!< the constant layer of its second operand
    std::optional<size_t> sum;  //!< the bias addition between them
    std::optional<size_t> bias; //!< the constant layer of its bias
    size_t biasSlot{0};         //!< which of the addition's inputs the bias is
    int64_t columns{0};
};

class Folder
{
public:
    explicit Folder(PlanModel& model)
        : mModel(model)
        , mReaders(readersOf(model))
        , mProducers(producersOf(model))
    {
    }

    //! Reads the model's readers and producers again, after a fold.
    void refresh()
    {
        mReaders = readersOf(mModel);
        mProducers = producersOf(mModel);
    }

    std::optional<Fold> foldAt(size_t l) const
    {
        LayerRecord const& layer = mModel.layers[l];
        if (!isElementWise(layer, ElementWiseOperation::kPROD))
        {
            return std::nullopt;
        }
        for (size_t side = 0; side < 2; ++side)
        {
            int32_t const scaled = layer.inputs[side];
            int32_t const scaleTensor = layer.inputs[1 - side];
            std::optional<size_t> const scale = fixedConstantOf(scaleTensor);
            std::optional<int64_t> const columns = columnsOf(scaleTensor);
            std::optional<size_t> const before = internalProducer(scaled, l);
            if (!scale || !columns || !before || mModel.tensors[scaled].type != mModel.tensors[layer.outputs[0]].type)
            {
                continue;
            }
            Fold fold{l, *scale, 0, 0, std::nullopt, std::nullopt, 0, *columns};
            if (std::optional<Fold> const withBias = throughBias(fold, *before))
            {
                return withBias;
            }
            if (std::optional<Fold> const direct = intoProduct(fold, *before))
            {
                return direct;
            }
        }
        return std::nullopt;
    }

private:
    static bool isElementWise(LayerRecord const& layer, ElementWiseOperation operation)
    {
        auto const* params = paramsOf<network::ElementWiseParams>(layer);
        return params != nullptr && params->operation == operation && layer.inputs.size() == 2
            && layer.outputs.size() == 1 && layer.inputs[0] >= 0 && layer.inputs[1] >= 0 && !layer.epilogue.any();
    }

    //! The layer that writes `t`, where `reader` alone reads it and the application does not see it.
    std::optional<size_t> internalProducer(int32_t t, size_t reader) const
    {
        std::vector<size_t> const& readers = mReaders[static_cast<size_t>(t)];
        if (mProducers[t] < 0 || readers.size() != 1 || readers[0] != reader || isObserved(mModel.tensors[t]))
        {
            return std::nullopt;
        }
        return static_cast<size_t>(mProducers[t]);
    }

    //! The fixed FP32 or FP16 constant layer that writes `t`, which the application does not see. Other layers may
    //! read it too: a fold scales a copy of its own where they do (an export with random weights shares equal
    //! biases, and the builder merges equal constants).
    std::optional<size_t> fixedConstantOf(int32_t t) const
    {
        std::optional<size_t> const producer = mProducers[t] >= 0 && !isObserved(mModel.tensors[t])
            ? std::optional<size_t>(mProducers[t])
            : std::nullopt;
        network::ConstantParams const* constant = producer ? fixedConstant(mModel.layers[*producer]) : nullptr;
        if (constant == nullptr
            || (constant->weights.type() != nvinfer1::DataType::kFLOAT
                && constant->weights.type() != nvinfer1::DataType::kHALF))
        {
            return std::nullopt;
        }
        return producer;
    }

    //! The extent of `t`'s last axis, where every other is 1.
    std::optional<int64_t> columnsOf(int32_t t) const
    {
        std::optional<std::vector<int64_t>> const dims = constantDims(mModel, t);
        if (!dims || dims->empty())
        {
            return std::nullopt;
        }
        for (size_t axis = 0; axis + 1 < dims->size(); ++axis)
        {
            if ((*dims)[axis] != 1)
            {
                return std::nullopt;
            }
        }
        return dims->back();
    }

    std::optional<Fold> throughBias(Fold fold, size_t sum) const
    {
        LayerRecord const& layer = mModel.layers[sum];
        if (!isElementWise(layer, ElementWiseOperation::kSUM))
        {
            return std::nullopt;
        }
        for (size_t side = 0; side < 2; ++side)
        {
            std::optional<size_t> const bias = fixedConstantOf(layer.inputs[1 - side]);
            std::optional<size_t> const product = internalProducer(layer.inputs[side], sum);
            if (bias && product && columnsOf(layer.inputs[1 - side]) == fold.columns)
            {
                fold.sum = sum;
                fold.bias = bias;
                fold.biasSlot = 1 - side;
                return intoProduct(fold, *product);
            }
        }
        return std::nullopt;
    }

    std::optional<Fold> intoProduct(Fold fold, size_t product) const
    {
        LayerRecord const& layer = mModel.layers[product];
        auto const* params = paramsOf<network::MatrixMultiplyParams>(layer);
        if (params == nullptr || layer.inputs.size() != 2 || layer.inputs[1] < 0 || layer.epilogue.any()
            || params->op1 == MatrixOperation::kVECTOR)
        {
            return std::nullopt;
        }
        std::optional<size_t> const weights = fixedConstantOf(layer.inputs[1]);
        std::optional<std::vector<int64_t>> const dims = constantDims(mModel, layer.inputs[1]);
        if (!weights || !dims || dims->size() < 2)
        {
            return std::nullopt;
        }
        // The weights' columns: their last axis, or the one before it where the product transposes them.
        size_t const columnAxis = dims->size() - (params->op1 == MatrixOperation::kTRANSPOSE ? 2 : 1);
        if ((*dims)[columnAxis] != fold.columns)
        {
            return std::nullopt;
        }
        fold.product = product;
        fold.weights = *weights;
        return fold;
    }

    PlanModel& mModel;
    std::vector<std::vector<size_t>> mReaders;
    std::vector<int64_t> mProducers;
};

//! A constant's FP32 or FP16 values, as floats.
std::vector<float> valuesOf(network::ConstantParams const& constant)
{
    auto const count = static_cast<size_t>(constant.weights.count());
    if (constant.weights.type() == nvinfer1::DataType::kHALF)
    {
        auto const* bits = static_cast<uint16_t const*>(constant.weights.data());
        std::vector<float> values(count);
        for (size_t i = 0; i < count; ++i)
        {
            values[i] = halfBitsToFloat(bits[i]);
        }
        return values;
    }
    auto const* from = static_cast<float const*>(constant.weights.data());
    return std::vector<float>(from, from + count);
}

//! The constant layer `layer`'s values, each multiplied by scale[columnOf(i)] in FP32 and stored in their type.
template <typename ColumnOf>
void scaleColumns(LayerRecord& layer, std::vector<float> const& scale, ColumnOf columnOf)
{
    auto const& params = *paramsOf<network::ConstantParams>(layer);
    std::vector<float> values = valuesOf(params);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] *= scale[columnOf(i)];
    }
    auto scaled = std::make_shared<network::ConstantParams>(params);
    auto const count = static_cast<int64_t>(values.size());
    if (params.weights.type() == nvinfer1::DataType::kHALF)
    {
        std::vector<uint16_t> bits(values.size());
        for (size_t i = 0; i < values.size(); ++i)
        {
            bits[i] = floatToHalfBits(values[i]);
        }
        scaled->weights = network::WeightsBuffer(nvinfer1::Weights{nvinfer1::DataType::kHALF, bits.data(), count});
    }
    else
    {
        scaled->weights = network::WeightsBuffer(nvinfer1::Weights{nvinfer1::DataType::kFLOAT, values.data(), count});
    }
    layer.params = std::move(scaled);
}

//! The constant layer that `reader` reads at input `slot`, to be scaled: the layer itself where nothing else reads its
//! output, else a copy (added to `copies`, to run before `reader`) that `reader` then reads.
LayerRecord& ownConstant(PlanModel& model, std::vector<std::vector<size_t>> const& readers, size_t constant,
    size_t reader, size_t slot, std::vector<std::pair<size_t, LayerRecord>>& copies)
{
    std::optional<LayerRecord> copy = constantOwnedBy(model, readers, constant, reader, slot);
    if (!copy)
    {
        return model.layers[constant];
    }
    copies.emplace_back(reader, std::move(*copy));
    return copies.back().second;
}

void apply(PlanModel& model, Fold const& fold)
{
    std::vector<std::vector<size_t>> const readers = readersOf(model);
    std::vector<float> const scale = valuesOf(*paramsOf<network::ConstantParams>(model.layers[fold.scale]));
    auto const columns = static_cast<size_t>(fold.columns);
    bool const transposed = paramsOf<network::MatrixMultiplyParams>(model.layers[fold.product])->op1
        == MatrixOperation::kTRANSPOSE;
    auto const depth = static_cast<size_t>(constantDims(model, model.layers[fold.product].inputs[1])->back());
    std::vector<std::pair<size_t, LayerRecord>> copies; // reserved: references into it stay valid
    copies.reserve(2);
    LayerRecord& weights = ownConstant(model, readers, fold.weights, fold.product, 1, copies);
    if (transposed)
    {
        // The weights are [columns, depth]: each row is a column of the product.
        scaleColumns(weights, scale, [&](size_t i) { return (i / depth) % columns; });
    }
    else
    {
        scaleColumns(weights, scale, [&](size_t i) { return i % columns; });
    }
    if (fold.bias)
    {
        LayerRecord& bias = ownConstant(model, readers, *fold.bias, *fold.sum, fold.biasSlot, copies);
        scaleColumns(bias, scale, [&](size_t i) { return i % columns; });
    }
    // The last layer kept writes what the product by the scale wrote; the scale's constant goes where nothing else
    // reads it.
    model.layers[fold.sum ? *fold.sum : fold.product].outputs[0] = model.layers[fold.scaling].outputs[0];
    int32_t const scaleTensor = model.layers[fold.scale].outputs[0];
    std::vector<LayerRecord> layers;
    layers.reserve(model.layers.size() + copies.size());
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        for (auto& [before, copy] : copies)
        {
            if (before == l)
            {
                layers.push_back(std::move(copy));
            }
        }
        bool const unreadScale = l == fold.scale && readers[static_cast<size_t>(scaleTensor)].size() == 1;
        if (l != fold.scaling && !unreadScale)
        {
            layers.push_back(std::move(model.layers[l]));
        }
    }
    model.layers = std::move(layers);
}

} // namespace

size_t foldColumnScalesIntoProducts(PlanModel& model)
{
    size_t folded = 0;
    Folder folder(model);
    for (size_t l = 0; l < model.layers.size();)
    {
        std::optional<Fold> const fold = folder.foldAt(l);
        if (!fold)
        {
            ++l;
            continue;
        }
        apply(model, *fold);
        folder.refresh();
        ++folded;
        l = 0; // layers came and went before l: look again from the start (a fold leaves nothing to fold there)
    }
    return folded;
}

} // namespace kiln::cuda
