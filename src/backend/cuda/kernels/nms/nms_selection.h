// The greedy selection of INMSLayer on the GPU, for every class list at once: candidate k of a list is selected when no
// candidate selected before it suppresses it, until the list reaches maxOutputBoxesPerClass. It takes each list a
// chunk of candidates at a time, so that the whole GPU works on a list of tens of thousands of boxes:
//  1. each candidate of the chunk is tested against the boxes the list selected in earlier chunks, by many blocks;
//  2. a bit mask says, for each pair i < j of the chunk, whether candidate i suppresses candidate j;
//  3. one warp per list walks the chunk in order, each lane holding 64 bits of what is suppressed: a candidate not
//     suppressed is selected, and its row of the mask is OR-ed in.
// The masks take at most a fixed budget of memory: lists are taken in passes where many lists would exceed it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kiln::cuda::nms
{

struct Problem;
struct ClassLists;

//! How a selection is split, and the scratch it needs.
struct SelectionPlan
{
    int32_t chunk{64};       //!< candidates a list takes at a time: a power of two from 64 to 2048
    int32_t chunks{0};       //!< chunks a list of the most candidates takes
    int32_t listsPerPass{1}; //!< lists whose masks are in memory at once
    size_t suppressedBytes{0};
    size_t maskBytes{0};

    size_t scratchBytes() const;
};

//! The plan for `classLists` lists of at most `boxCount` candidates each.
SelectionPlan planSelection(int32_t classLists, int32_t boxCount);

//! Selects in every list of `lists` (fills selectedBoxes and selectedCounts), in `scratch` of plan.scratchBytes().
void selectGreedily(Problem const& p, ClassLists const& lists, int32_t classLists, SelectionPlan const& plan,
    void* scratch, cudaStream_t stream);

} // namespace kiln::cuda::nms
