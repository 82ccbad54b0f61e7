// What the passes that recognise a pattern of layers (normalization_fusion.h) ask of a plan while they rewrite it:
// who writes and who reads each tensor, kept current as layers are replaced; the layer kinds a pattern is made of;
// the one-element constants it compares against; and the replacement of several layers by one, which also removes
// the constants that only the replaced layers read.
#pragma once

#include "plan/plan_graph.h"
#include "plan/plan_model.h"

#include <NvInfer.h>

#include <optional>
#include <string>
#include <vector>

namespace kiln::plan
{

class PatternGraph
{
public:
    explicit PatternGraph(PlanModel& model);

    PlanModel const& model() const
    {
        return mModel;
    }
    size_t size() const
    {
        return mModel.layers.size();
    }
    LayerRecord const& layer(size_t l) const
    {
        return mModel.layers[l];
    }
    bool removed(size_t l) const
    {
        return mRemoved[l];
    }
    //! The layer that writes tensor `t` (none for network inputs and absent inputs).
    std::optional<size_t> producer(int32_t t) const;
    //! The layers that read tensor `t`.
    std::vector<size_t> const& readers(int32_t t) const
    {
        return mReaders[t];
    }
    //! The layer that alone reads layer `l`'s one output, an internal activation (plan::soleReader).
    std::optional<size_t> soleReader(size_t l) const;
    //! The layer that alone reads tensor `t`, an internal activation (plan::soleReaderOf).
    std::optional<size_t> soleReaderOf(int32_t t) const;
    //! The self-gated activation of tensor `t` (plan::selfGatedOf), where neither of its layers is absorbed yet.
    std::optional<SelfGated> selfGated(int32_t t) const;

    //! Layer `l` (where given and not yet absorbed) when it is an element-wise `operation` of two inputs and one
    //! output.
    LayerRecord const* elementWise(std::optional<size_t> l, nvinfer1::ElementWiseOperation operation) const;
    //! Layer `l` when it is the unary `operation` of one output.
    LayerRecord const* unary(std::optional<size_t> l, nvinfer1::UnaryOperation operation) const;
    //! The operand of binary layer `layer` other than `t`; -1 where `t` is not one of them.
    static int32_t otherOperand(LayerRecord const& layer, int32_t t);

    //! The value of tensor `t` where it holds one element that a constant holds, directly or through shuffles.
    std::optional<float> scalar(int32_t t) const;
    //! Whether tensor `t` is one constant element within 1e-6 (relative) of `value`.
    bool isScalar(int32_t t, double value) const;

    //! Whether `layers` compute alike, so that one layer can stand for them: under the same guards, on row-major
    //! floating-point slots, in one precision (casts, which have none, aside).
    bool alike(std::vector<size_t> const& layers) const;
    //! The layers' names in plan order, joined by " + ": the name of the layer that replaces them.
    std::string namesOf(std::vector<size_t> layers) const;

    //! Replaces the layers `absorbed` by `record`, which runs where layer `at` (one of them) ran. Constants and
    //! shuffles of them that only absorbed layers read leave the plan too.
    void replace(std::vector<size_t> const& absorbed, size_t at, LayerRecord record);

    //! Stores tensor `t` as `type` from now on, its size with it; each layer reading it reads it converted into the
    //! type it read before (its I/O types). Retyping it back undoes that.
    void retype(int32_t t, nvinfer1::DataType type);

    //! Removes the replaced layers from the plan's list; the graph is not used after.
    void commit();

private:
    void dropUnread(int32_t t);

    PlanModel& mModel;
    std::vector<std::vector<size_t>> mReaders; //!< by tensor: the layers that read it
    std::vector<int64_t> mProducers;           //!< by tensor: the layer that writes it, or -1
    std::vector<bool> mRemoved;                //!< by layer: absorbed, or no longer needed
};

} // namespace kiln::plan
