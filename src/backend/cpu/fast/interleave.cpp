#include "backend/cpu/fast/interleave.h"

#include "backend/cpu/fast/vector_clones.h"

namespace kiln::cpu::fast
{
namespace
{

template <typename T>
KILN_ELEMENT void interleaveLoop(T const* first, T const* second, T* out, int64_t pairs)
{
    for (int64_t i = 0; i < pairs; ++i)
    {
        out[2 * i] = first[i];
        out[2 * i + 1] = second[i];
    }
}

} // namespace

KILN_VECTOR_CLONES void interleavePairs(float const* first, float const* second, float* out, int64_t pairs)
{
    interleaveLoop(first, second, out, pairs);
}

KILN_VECTOR_CLONES void interleavePairs(int8_t const* first, int8_t const* second, int8_t* out, int64_t pairs)
{
    interleaveLoop(first, second, out, pairs);
}

} // namespace kiln::cpu::fast
