#include "backend/cpu/fast/recurrent_cells.h"

#include "backend/cpu/fast/vector_clones.h"

namespace kiln::cpu::fast
{

KILN_VECTOR_CLONES void addInput(float* a, float const* x, int64_t count)
{
#pragma omp simd
    for (int64_t j = 0; j < count; ++j)
    {
        a[j] += x[j];
    }
}

KILN_VECTOR_CLONES void addResetProduct(float* a, float const* x, float const* r, float const* bias, int64_t count)
{
    if (bias == nullptr)
    {
#pragma omp simd
        for (int64_t j = 0; j < count; ++j)
        {
            a[j] = x[j] + r[j] * a[j];
        }
        return;
    }
#pragma omp simd
    for (int64_t j = 0; j < count; ++j)
    {
        a[j] = x[j] + r[j] * (a[j] + bias[j]);
    }
}

KILN_VECTOR_CLONES void interpolateState(float* h, float const* n, float const* z, float const* previous, int64_t count)
{
#pragma omp simd
    for (int64_t j = 0; j < count; ++j)
    {
        h[j] = n[j] + z[j] * (previous[j] - n[j]);
    }
}

KILN_VECTOR_CLONES void updateCellState(
    float* c, float const* forget, float const* in, float const* candidate, int64_t count)
{
#pragma omp simd
    for (int64_t j = 0; j < count; ++j)
    {
        c[j] = forget[j] * c[j] + in[j] * candidate[j];
    }
}

KILN_VECTOR_CLONES void multiply(float* d, float const* a, float const* b, int64_t count)
{
#pragma omp simd
    for (int64_t j = 0; j < count; ++j)
    {
        d[j] = a[j] * b[j];
    }
}

} // namespace kiln::cpu::fast
