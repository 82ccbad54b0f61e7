#include "builder/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace kiln::builder
{

MemoryPlan planMemory(std::vector<BufferRequest> const& requests, int64_t alignment)
{
    MemoryPlan plan;
    plan.offsets.assign(requests.size(), 0);
    std::vector<size_t> order(requests.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(
        order.begin(), order.end(), [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });

    auto alignUp = [&](int64_t value) { return (value + alignment - 1) / alignment * alignment; };
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
        int64_t offset = 0;
        for (size_t other : conflicts)
        {
            if (offset + request.bytes <= plan.offsets[other])
            {
                break; // fits in the gap before this buffer
            }
            offset = std::max(offset, alignUp(plan.offsets[other] + requests[other].bytes));
        }
        plan.offsets[index] = offset;
        plan.totalBytes = std::max(plan.totalBytes, alignUp(offset + request.bytes));
        placed.push_back(index);
    }
    return plan;
}

} // namespace kiln::builder
