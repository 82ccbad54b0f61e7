// Which network inputs are shape tensors, by TensorRT's rule: an input is a shape tensor where it is needed as one,
// that is where some tensor's dimensions depend on its values. An INT32 or INT64 input of at most 8 values gets value
// symbols (NetworkFacts::inputValueSymbols) in case it is one; one that only feeds data (a gather's indices) has them
// too, but stays an ordinary input: the profile needs no values for it and layers read it where its data lives. The
// builder decides so for the plan, and ITensor::isShapeTensor answers so for the network's inputs.
#pragma once

#include <unordered_set>
#include <vector>

namespace kiln::network
{

struct NetworkFacts;
class Tensor;

//! The inputs among `facts.inputValueSymbols` whose values the dimensions of some tensor of `tensors` depend on.
std::unordered_set<Tensor const*> shapeTensorInputs(
    NetworkFacts const& facts, std::vector<Tensor const*> const& tensors);

} // namespace kiln::network
