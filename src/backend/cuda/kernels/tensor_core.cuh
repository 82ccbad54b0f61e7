// The tensor cores' warp-wide operations as Kiln's kernels use them (attention.cu, attention_fp32_tensor_cores.cu,
// small_channel_convolution.cu, int8_convolution.cu): mma.sync m16n8k16 on FP16 and m16n8k8 on TF32 with FP32
// accumulators, m16n8k32 on INT8 with INT32 ones, ldmatrix to load their operands from shared memory, and cp.async to
// fill shared memory without waiting. Fragment layouts are PTX's: in a 16x16 a fragment, lane l holds rows l / 4 and l
// / 4 + 8 at columns 2 (l % 4), 2 (l % 4) + 1 and the same 8 columns on.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

namespace kiln::cuda
{

//! Two halves as the 32-bit register an mma operand takes: `low` is the element of the lower column.
__device__ inline uint32_t packHalves(float low, float high)
{
    __half2 const pair = __floats2half2_rn(low, high);
    return *reinterpret_cast<uint32_t const*>(&pair);
}

__device__ inline uint32_t loadPair(__half const* shared)
{
    return *reinterpret_cast<uint32_t const*>(shared);
}

//! d += a . b for one 16x8 tile: a 16x16 (row-major fragment), b 16x8 (column-major fragment), FP32 accumulators.
__device__ inline void mma16816(float (&d)[4], uint32_t const (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

//! d += a . b for one 16x8 tile: a 16x8, b 8x8, TF32 operands (FP32 bit patterns whose low 13 bits mma ignores), FP32
//! accumulators. Lane l holds a's rows l / 4 (a[0], a[2]) and l / 4 + 8 (a[1], a[3]) at columns l % 4 (a[0], a[1]) and
//! l % 4 + 4, and b's column l / 4 at rows l % 4 (b0) and l % 4 + 4 (b1); d as mma16816's.
__device__ inline void mma1688(float (&d)[4], uint32_t const (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

//! d += a . b for one 16x8 tile of INT8 products: a 16x32 (row-major fragment), b 32x8 (column-major fragment), exact
//! INT32 accumulators. Each register holds four INT8 values, so the fragments are the FP16 ones' bytes: lane l holds
//! a's rows l / 4 and l / 4 + 8 at bytes 4 (l % 4) to 4 (l % 4) + 3 and 16 bytes on, and ldmatrix loads them alike.
__device__ inline void mma16832(int32_t (&d)[4], uint32_t const (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

//! The four 8x8 matrices at rows `rowAddress` (each lane gives one row: lanes 8m..8m+7 the rows of matrix m),
//! transposed, as mma's column-major b fragments.
__device__ inline void loadTransposed(uint32_t (&r)[4], __half const* rowAddress)
{
    auto const address = static_cast<uint32_t>(__cvta_generic_to_shared(rowAddress));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

//! The four 8x8 matrices at rows `rowAddress` (each lane gives one row: lanes 8m..8m+7 the rows of matrix m), as
//! they lie: lane l receives row l / 4, columns 2 (l % 4) and the next, of each, which is mma's column-major b
//! fragment of a matrix whose rows are b's columns.
__device__ inline void loadMatrices(uint32_t (&r)[4], void const* rowAddress)
{
    auto const address = static_cast<uint32_t>(__cvta_generic_to_shared(rowAddress));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

//! Copies 16 bytes from global to shared memory without waiting; `bytes` 0 writes zeros instead.
__device__ inline void copyAsync(void* shared, void const* global, uint32_t bytes)
{
    auto const address = static_cast<uint32_t>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global), "r"(bytes));
}

//! Copies 4 bytes from global to shared memory without waiting (both aligned to 4); `bytes` 0 writes zeros instead.
__device__ inline void copyAsyncWord(void* shared, void const* global, uint32_t bytes)
{
    auto const address = static_cast<uint32_t>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address), "l"(global), "r"(bytes));
}

__device__ inline void commitCopies()
{
    asm volatile("cp.async.commit_group;\n" ::);
}

//! Waits until at most `kPending` of this thread's committed copy groups are still in flight.
template <int kPending>
__device__ inline void awaitCopies()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

} // namespace kiln::cuda
