// The builder's algorithm choice for CUDA matrix multiplies: cuBLASLt's first heuristic choices for each product are
// timed on the GPU at its inputs' shapes in the first profile's kOPT (or found in the timing cache), whole and with K
// split, and the rank and split of the fastest are stored in the plan. Without a timing, a context runs the heuristic's
// first choice, as it always may. A product's constant weights that nothing else reads are timed transposed too, and
// stored so where that is faster.
#pragma once

#include "backend/cuda/passes/timed_tuning.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "core/tensor_view.h"
#include "network/layers/matrix_multiply.h"
#include "plan/plan_model.h"

#include <functional>
#include <string>

namespace kiln::cuda
{

//! The builder's stopwatch for cuBLASLt's algorithms (ProductTimer in product_timing.h on the GPU; tests stand in).
class ProductAlgorithmTimer
{
public:
    struct Result
    {
        AlgorithmChoice choice; //!< AlgorithmChoice::gemm(rank, splits)
        float milliseconds{0};
    };
    virtual ~ProductAlgorithmTimer() = default;
    //! The fastest of the heuristic's first choices for the product `params` describes, with the fused `epilogue`,
    //! of inputs shaped `input0` and `input1` in `type`. Throws std::runtime_error (or std::invalid_argument) saying
    //! why none can be timed.
    virtual Result fastest(network::MatrixMultiplyParams const& params, plan::Epilogue const& epilogue,
        Shape const& input0, Shape const& input1, nvinfer1::DataType type)
        = 0;
};

using ProductTuning = TimedTuning<ProductAlgorithmTimer>;

//! Sets the algorithm rank of every matrix multiply in `model` (its backend choice), and stores transposed the
//! weights of those that time faster so (the constant's values and dimensions, and the product's op1, change
//! together); `optShape(t)` is tensor t's shape at the first profile's kOPT, for the first `networkTensors` tensors.
//! A product that cannot be timed keeps the heuristic's first choice: one that reads a tensor a pass added (merged
//! products' stacked weights), whose shape the builder did not evaluate, and one cuBLASLt cannot time. Returns false
//! with `error` naming the layer only when the cache lacks a configuration under errorOnCacheMiss.
bool tuneProducts(plan::PlanModel& model, std::function<Shape(int32_t)> const& optShape, int32_t networkTensors,
    ProductTuning const& tuning, std::string& error);

} // namespace kiln::cuda
