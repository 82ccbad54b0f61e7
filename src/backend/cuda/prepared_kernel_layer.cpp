#include "backend/cuda/prepared_kernel_layer.h"

namespace kiln::cuda
{
namespace
{

template <typename View>
bool sameViews(std::vector<View> const& taken, std::vector<View> const& given)
{
    if (taken.size() != given.size())
    {
        return false;
    }
    for (size_t i = 0; i < taken.size(); ++i)
    {
        View const& a = taken[i];
        View const& b = given[i];
        if (a.data != b.data || a.type != b.type || a.format != b.format || a.shape != b.shape)
        {
            return false;
        }
    }
    return true;
}

} // namespace

bool ViewSnapshot::matches(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs) const
{
    return mValid && sameViews(mInputs, inputs) && sameViews(mOutputs, outputs);
}

void ViewSnapshot::take(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    // Element-wise assignment into vectors of the same length: each shape is copied into the memory it had.
    mInputs = inputs;
    mOutputs = outputs;
    mValid = true;
}

void PreparedKernelLayer::run(
    std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, cudaStream_t stream)
{
    if (!mViews.matches(inputs, outputs))
    {
        mViews.forget(); // a prepare that throws leaves the layer unprepared
        prepare(inputs, outputs);
        mViews.take(inputs, outputs);
    }
    launch(stream);
}

} // namespace kiln::cuda
