// What the execution context needs to run one layer, prepared ahead of the runs: the layer's work and the views of
// its tensors, which the executor takes as they are. The views' shapes are rewritten when the context's shapes
// change and their addresses when the tensors' addresses do, so that a run in steady state only walks the list.
#pragma once

#include "core/tensor_view.h"

#include <NvInferRuntimeBase.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

namespace kiln::runtime
{

//! The number of elements of a tensor of `dims`.
inline int64_t elementsOf(nvinfer1::Dims const& dims)
{
    return std::accumulate(dims.d, dims.d + dims.nbDims, int64_t{1}, std::multiplies<>());
}

//! The shape a tensor view takes for `dims`.
inline Shape toShape(nvinfer1::Dims const& dims)
{
    return Shape(dims.d, dims.d + dims.nbDims);
}

struct PreparedLayer
{
    enum class Work : uint8_t
    {
        kRUN,            //!< the executor runs it
        kBOUND_CONSTANT, //!< a constant whose output is its weights: nothing to do
        kSHAPE_VALUES,   //!< computes shape tensors only, evaluated on the host by a backend that does so
        kHOST_VALUES,    //!< the same, where no layer reads them in memory: nothing to write (values are expressions)
        kSELECT_BRANCH,  //!< a conditional's output: the taken branch is copied into it
        kVIEW,           //!< its output is a view of its input's memory (plan::isView): nothing to do
        kLOOP_BOUNDARY,  //!< a loop's boundary layer: the context runs it with its loop (execution_context_loops.cpp)
    };
    Work work{Work::kRUN};
    bool guarded{false};       //!< runs only if its conditionals' guards hold
    bool learnsSizes{false};   //!< writes size tensors, whose values the run reads after it
    bool stagesOutputs{false}; //!< writes a data-dependent output staged in activation memory
    //! A tensor it reads or writes whose shape could not be computed for this run (a conditional's branch, where
    //! running it is an error); -1 when every shape is known.
    int32_t unknownShape{-1};
    std::vector<ConstTensorView> inputs; //!< by input slot; an empty view for an absent optional input
    std::vector<TensorView> outputs;     //!< shaped by the outputs' capacities
};

//! A view layer's output (plan::TensorRecord::viewOf), an alias of the memory of the tensor it views: where it
//! starts there for the current shapes. Its address follows that tensor's.
struct PreparedAlias
{
    int32_t tensor{-1};     //!< the view
    uint32_t layer{0};      //!< the layer that makes it
    int64_t offsetBytes{0}; //!< from the viewed tensor's address
};

//! Where a prepared view of a tensor is: layer, slot, and whether the slot is an output.
struct ViewSlot
{
    uint32_t layer{0};
    uint32_t slot{0};
    bool output{false};
};

} // namespace kiln::runtime
