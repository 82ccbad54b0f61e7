// Two runs of values interleaved, out[2i] = first[i] and out[2i + 1] = second[i]: a channel shuffle of two groups
// gathered from channels-last data (gather.cpp), where each position's channels alternate between the two halves of
// the join. In loops the compiler vectorises for the processor it runs on (vector_clones.h).
#pragma once

#include <cstdint>

namespace kiln::cpu::fast
{

void interleavePairs(float const* first, float const* second, float* out, int64_t pairs);
void interleavePairs(int8_t const* first, int8_t const* second, int8_t* out, int64_t pairs);

} // namespace kiln::cpu::fast
