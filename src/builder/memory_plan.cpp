#include "builder/memory_plan.h"

#include "core/checked_size.h"

#include <algorithm>
#include <numeric>

namespace kiln::builder
{
namespace
{

//! value rounded up to a multiple of alignment; none when that overflows.
std::optional<int64_t> alignUp(std::optional<int64_t> value, int64_t alignment)
{
    std::optional<int64_t> const padded = value ? checkedAdd(*value, alignment - 1) : std::nullopt;
    return padded ? std::optional<int64_t>(*padded / alignment * alignment) : std::nullopt;
}

} // namespace

std::optional<MemoryPlan> planMemory(std::vector<BufferRequest> const& requests, int64_t alignment)
{
    MemoryPlan plan;
    plan.offsets.assign(requests.size(), 0);
    std::vector<size_t> order(requests.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(
        order.begin(), order.end(), [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });

    std::vector<size_t> placed;
    for (size_t index : order)
    {
        BufferRequest const& request = requests[index];
        // Buffers alive at the same time as this one, by offset.
        std::vector<size_t> conflicts;
        for (size_t other : placed)
        {
            BufferRequest const& o = requests[other];
            if (o.firstStep <= request.lastStep && request.firstStep <= o.lastStep)
            {
                conflicts.push_back(other);
            }
        }
        std::sort(
            conflicts.begin(), conflicts.end(), [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
        // Sizes come from the model's extents: offsets and the total are summed without wrapping, and a layout
        // that does not fit int64 is no layout.
        int64_t offset = 0;
        for (size_t other : conflicts)
        {
            std::optional<int64_t> const end = checkedAdd(offset, request.bytes);
            if (end && *end <= plan.offsets[other])
            {
                break; // fits in the gap before this buffer
            }
            std::optional<int64_t> const after
                = alignUp(checkedAdd(plan.offsets[other], requests[other].bytes), alignment);
            if (!after)
            {
                return std::nullopt;
            }
            offset = std::max(offset, *after);
        }
        std::optional<int64_t> const total = alignUp(checkedAdd(offset, request.bytes), alignment);
        if (!total)
        {
            return std::nullopt;
        }
        plan.offsets[index] = offset;
        plan.totalBytes = std::max(plan.totalBytes, *total);
        placed.push_back(index);
    }
    return plan;
}

} // namespace kiln::builder
