// Places activation tensors in one block of memory, letting tensors whose
// lifetimes do not overlap share bytes.
#pragma once

#include "plan/plan_model.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::builder
{

struct BufferRequest
{
    int64_t bytes{0};
    int32_t firstStep{0}; //!< the step that writes it
    int32_t lastStep{0};  //!< the last step that reads it
};

struct MemoryPlan
{
    std::vector<int64_t> offsets; //!< one per request
    int64_t totalBytes{0};
};

//! Every buffer is aligned to `alignment` bytes. Greedy: largest buffers first,
//! each at the lowest offset that does not collide with a placed buffer alive at
//! the same time. Lifetimes are closed: a buffer last read at step s and one first
//! written at s never share bytes, so no layer writes over what it reads (a layer
//! that adds its residual in place is given the residual's request: builder/residual_buffers.h). Views
//! (builder/view_layers.h) rely on it: a viewed buffer's lifetime covers its views' readers, and nothing else writes it
//! meanwhile. None when the buffers' offsets or the total size overflow int64 (or a size is negative).
std::optional<MemoryPlan> planMemory(
    std::vector<BufferRequest> const& requests, int64_t alignment = plan::kArenaAlignment);

} // namespace kiln::builder
