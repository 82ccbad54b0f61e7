// What the kernels of INMSLayer on the GPU (nms.cu, nms_selection.cu) share: the problem as they read it, and the
// per-class candidate lists the sorts build.
#pragma once

#include "backend/cuda/kernels/device_access.cuh"
#include "backend/shared/nms_box.h"

#include <cstdint>

namespace kiln::cuda::nms
{

using nms_detail::Box;

//! What every kernel of the layer reads.
struct Problem
{
    void const* boxes;
    void const* scores;
    device::DataType type;
    int32_t batch;
    int32_t boxCount;
    int32_t classes;
    bool perClass;
    bool centerSizes;
    int32_t const* maxOutputBoxesPerClass;
    float const* iouThreshold;   //!< null: 0
    float const* scoreThreshold; //!< null: 0

    __device__ int32_t items() const
    {
        return batch * classes * boxCount;
    }
    //! Box n of batch item b, as class c reads it.
    __device__ Box box(int32_t b, int32_t c, int32_t n) const
    {
        int64_t const item = static_cast<int64_t>(b) * boxCount + n;
        int64_t const first = 4 * (perClass ? item * classes + c : item);
        return nms_detail::makeBox(device::loadFloat(boxes, type, first), device::loadFloat(boxes, type, first + 1),
            device::loadFloat(boxes, type, first + 2), device::loadFloat(boxes, type, first + 3), centerSizes);
    }
};

//! The candidates of each class list s = batch item * classes + class, in the order the greedy selection considers
//! them, and what the selection writes.
struct ClassLists
{
    int32_t const* sorted; //!< the candidates' positions f, each list's together in order, from offsets[s] on
    int32_t const* counts;
    int32_t const* offsets;
    int32_t* selectedBoxes;  //!< list s's selected box indices from offsets[s] on
    int32_t* selectedCounts; //!< per list

    //! Candidate k of list s, as a box index.
    __device__ int32_t boxOf(Problem const& p, int32_t s, int32_t k) const
    {
        return sorted[offsets[s] + k] % p.boxCount;
    }
};

} // namespace kiln::cuda::nms
