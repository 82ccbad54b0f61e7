// --compare=cpu and --compareLayers: the model built again for the CPU backend in FP32 (the
// reference) runs on the same inputs, and every output (with --compareLayers, every layer's
// outputs, as Polygraphy marks them) is compared with what the run under test produced.
#pragma once

#include "host_tensor.h"
#include "options.h"

#include <vector>

namespace kiln::cli
{

//! outputs: the run under test's outputs (used when not comparing layers). Prints the comparison;
//! returns false if the reference cannot be built or run, or if anything is outside the tolerance.
bool compareWithReference(
    Options const& options, std::vector<HostTensor> const& inputs, std::vector<HostTensor> const& outputs);

} // namespace kiln::cli
