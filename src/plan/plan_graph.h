// What backends' build passes ask of a recorded plan: a layer's parameters, whether it is a
// ReLU or a sum, whether two tensors have one shape, and who reads a tensor; and the edits
// they make to a layer's I/O types and formats.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace kiln::network
{
struct ConstantParams;
} // namespace kiln::network

namespace kiln::plan
{

//! The record's parameters as `Params`, or nullptr when it is a layer of another kind.
template <typename Params>
Params const* paramsOf(LayerRecord const& record)
{
    return dynamic_cast<Params const*>(record.params.get());
}

//! Whether `record` adds its last input to its output as a residual: a fused epilogue's (Epilogue::addsResidual) or a
//! quantized convolution's own.
bool addsResidualInput(LayerRecord const& record);

bool isRelu(LayerRecord const& record);
bool isSum(LayerRecord const& record);

//! Whether two expression nodes stand for the same value: the same node, or equal constants.
bool sameExpr(PlanModel const& model, int32_t a, int32_t b);
//! Whether tensors `a` and `b` have the same dimensions (as expressions, so also where they are not constants).
bool sameShape(PlanModel const& model, int32_t a, int32_t b);

//! By expression node of `model`'s table: whether its value depends on a size tensor (known only once the layer
//! writing it has run). The table lists operands before the operations that use them.
std::vector<bool> sizeDependentNodes(PlanModel const& model);

//! The expression node of constant `value` in `model`'s table, appended where the table has none.
int32_t constantNode(PlanModel& model, int64_t value);

//! Tensor `t`'s extent along `axis` where it is a build-time constant (and the tensor has that axis).
std::optional<int64_t> constantExtent(PlanModel const& model, int32_t t, size_t axis);

//! Tensor `t`'s extents where every one is a build-time constant.
std::optional<std::vector<int64_t>> constantDims(PlanModel const& model, int32_t t);

//! The value of tensor `t` where it holds one element that a constant holds, directly or through shuffles of one
//! input; `producer(u)` gives the layer writing tensor u (none for inputs, or where a pass no longer counts it).
std::optional<float> scalarConstant(
    PlanModel const& model, int32_t t, std::function<std::optional<size_t>(int32_t)> const& producer);

//! Where network input `t` stands among the inputs, in ioTensors order (the order of ProfileRecord::inputs); -1 for
//! a tensor that is not a network input.
int32_t inputPosition(PlanModel const& model, int32_t t);

//! By expression node: its value where no run can change it. Constants, and extents of network inputs that every
//! optimization profile pins to one value (min == max, the same in each: trtexec's --shapes, or any application that
//! builds for one shape), and what is computed from those alone. An engine built so runs only at those extents, so
//! shape arithmetic on them (an export's Shape, Gather, Range of its dynamic axes) may be done while building.
std::vector<std::optional<int64_t>> valuesNoRunChanges(PlanModel const& model);

//! Whether expression nodes `a` and `b` are equal at every run: the same expression (sameExpr), or the same value
//! where no run changes either (`known`: valuesNoRunChanges(model)).
bool equalEveryRun(PlanModel const& model, std::vector<std::optional<int64_t>> const& known, int32_t a, int32_t b);
//! Whether tensors `a` and `b` have the same extents at every run (equalEveryRun along each axis): an export's shape
//! arithmetic (ResNeSt's reshapes by Shape(x), PoolFormer's back to Shape(x)) gives other expressions of the same
//! extents, where the profile fixes them.
bool sameShapeEveryRun(PlanModel const& model, std::vector<std::optional<int64_t>> const& known, int32_t a, int32_t b);

//! By tensor: the indices of the layers that read it.
std::vector<std::vector<size_t>> readersOf(PlanModel const& model);

//! By tensor: the index of the layer that writes it, or -1 (network inputs).
std::vector<int64_t> producersOf(PlanModel const& model);

//! The layer that alone reads tensor `t`, when it is an internal activation (not a network output, not a shape
//! tensor, not a constant's values); `readers` is readersOf(model).
std::optional<size_t> soleReaderOf(PlanModel const& model, std::vector<std::vector<size_t>> const& readers, int32_t t);
//! The same for layer `l`'s only output; none where it has several.
std::optional<size_t> soleReader(PlanModel const& model, std::vector<std::vector<size_t>> const& readers, size_t l);

//! The two layers of a self-gated activation x * f(x) of tensor `x`, as networks write SiLU (x * sigmoid(x)) and
//! hard-swish (x * hard_sigmoid(x)): an activation layer reading x, and the element-wise product of x by that
//! layer's output, which reads it alone.
struct SelfGated
{
    size_t activation;
    size_t product;
};

//! The self-gated activation of tensor `x` where those two layers are x's only readers and x is an internal
//! activation (as for soleReader); `readers` is readersOf(model).
std::optional<SelfGated> selfGatedOf(
    PlanModel const& model, std::vector<std::vector<size_t>> const& readers, int32_t x);

//! Whether `record` computes in `precision` and reads and writes only `type`.
bool computesIn(PlanModel const& model, LayerRecord const& record, std::optional<nvinfer1::DataType> precision,
    nvinfer1::DataType type);

//! Every slot's type of `record` (slotType: inputs, then outputs) as it reads and writes them now, FLOAT for an
//! optional input not given: a list for setIoTypes to take once some are changed.
std::vector<nvinfer1::DataType> slotTypes(PlanModel const& model, LayerRecord const& record);
//! `types` (one per slot: inputs, then outputs) as the record's I/O types, or none where each is its tensor's own.
void setIoTypes(PlanModel const& model, LayerRecord& record, std::vector<nvinfer1::DataType> types);
//! The same for I/O formats.
void setIoFormats(PlanModel const& model, LayerRecord& record, std::vector<nvinfer1::TensorFormat> formats);

//! Whether `layer` is a constant whose output can be its weights themselves: not a network output, and stored in
//! the weights' own type (backend::Implementation::bindsConstants).
bool outputsItsWeights(PlanModel const& model, LayerRecord const& layer);

//! Whether `record`'s parameters hold weights a refitter may replace (network::WeightsBuffer::refit). Passes leave
//! such weights as they are: they fold them into no other weights or constants and match no values in them.
bool holdsRefittableWeights(LayerRecord const& record);

//! `record`'s parameters where it is a constant whose values passes may compute with (its weights are not
//! refittable); nullptr otherwise.
network::ConstantParams const* fixedConstant(LayerRecord const& record);

//! Constant layer `constant`, which input `slot` of layer `reader` reads, for a pass to change for that reader alone
//! (`readers` is readersOf(model)): nullopt where nothing else reads it, so that the pass changes it in place; else a
//! copy writing a new tensor, which that input reads from now on. The copy is named after the reader; the caller puts
//! it in the layer list, before the reader.
std::optional<LayerRecord> constantOwnedBy(
    PlanModel& model, std::vector<std::vector<size_t>> const& readers, size_t constant, size_t reader, size_t slot);

//! Removes the layers marked in `absorbed` (by layer index) from the model's layer list, keeping the others' order.
void eraseLayers(PlanModel& model, std::vector<bool> const& absorbed);

//! For a pass that removes layer `l`: marks it in `removed`, takes it from `readers` (readersOf) of its inputs past the
//! first, and marks each constant layer (`producers`: producersOf) that wrote one of those and that nothing else reads
//! now, where the application does not see its output (a reshape's dimensions, a slice's bounds, old weights).
void removeWithItsConstants(PlanModel const& model, size_t l, std::vector<std::vector<size_t>>& readers,
    std::vector<int64_t> const& producers, std::vector<bool>& removed);

//! What a pass that rewrites a plan's layers in one sweep works from and builds up: the graph as the sweep found it
//! (values no run changes, each tensor's readers, kept up to date by remove, and its producer), the layers it removes,
//! and those it inserts just before or just after a layer.
struct LayerRewrite
{
    explicit LayerRewrite(PlanModel const& model);

    //! Removes layer `l` of `model` with the constants only it read (removeWithItsConstants).
    void remove(PlanModel const& model, size_t l);
    //! Rebuilds `model`'s layer list in order: each layer's `before`, the layer unless removed, its `after`.
    void apply(PlanModel& model);

    std::vector<std::optional<int64_t>> const known;
    std::vector<std::vector<size_t>> readers;
    std::vector<int64_t> const producers;
    std::vector<bool> removed;
    std::vector<std::vector<LayerRecord>> before; //!< by layer: what runs just before it
    std::vector<std::vector<LayerRecord>> after;  //!< by layer: what runs just after it (in its place, if removed)
};

//! Whether `record` reads and writes every tensor row-major (kLINEAR), as it and its tensors are stored.
bool linearThroughout(PlanModel const& model, LayerRecord const& record);

//! Shuffle `layer`'s permutation where it only transposes (no reshape, no shape input; one input, one output): its
//! output's axis i is its input's axis order[i], both transposes taken together. None for any other layer.
std::optional<nvinfer1::Permutation> transposeOf(PlanModel const& model, LayerRecord const& layer);

//! Whether shuffle `layer`, reading its input stored in `inputFormat` and writing its output stored in
//! `outputFormat` (kLINEAR or kHWC), leaves every element where it lies in memory: with each side's axis order
//! (storedAxisOrder) folded into its transposes, they move only axes of extent 1. Then the output's bytes are the
//! input's: a reshape, or channels moved last out of a kHWC tensor into a linear one, or back.
bool shuffleKeepsStoredOrder(PlanModel const& model, LayerRecord const& layer, nvinfer1::TensorFormat inputFormat,
    nvinfer1::TensorFormat outputFormat);

} // namespace kiln::plan
