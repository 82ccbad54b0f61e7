// The arithmetic of the recurrent cells (network/fused/recurrent_sequence.h) over one batch row's units, in FP32 and
// in loops the compiler vectorises (vector_clones.h): what the recurrent sequence kernel does between the gates'
// activations, which vector_functions.h computes. Each operation rounds as the reference's float formulas do, but
// for the fused multiply-adds that AVX2 and AVX-512 may contract a product and a sum into.
#pragma once

#include <cstdint>

namespace kiln::cpu::fast
{

//! a[j] += x[j]: a gate's input added to its recurrence product.
void addInput(float* a, float const* x, int64_t count);

//! a[j] = x[j] + r[j] * (a[j] + bias[j]): GRU's h gate from its recurrence product `a`, its input, the reset gate
//! and the recurrence bias (null: none).
void addResetProduct(float* a, float const* x, float const* r, float const* bias, int64_t count);

//! h[j] = n[j] + z[j] * (previous[j] - n[j]): GRU's next hidden state. `h` may not be `previous`.
void interpolateState(float* h, float const* n, float const* z, float const* previous, int64_t count);

//! c[j] = forget[j] * c[j] + in[j] * candidate[j]: LSTM's next cell state, in place.
void updateCellState(float* c, float const* forget, float const* in, float const* candidate, int64_t count);

//! d[j] = a[j] * b[j]: LSTM's next hidden state from its output gate and its cell state's output function.
void multiply(float* d, float const* a, float const* b, int64_t count);

} // namespace kiln::cpu::fast
