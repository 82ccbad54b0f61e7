// IShuffleLayer (ONNX Transpose, Reshape, Flatten, Squeeze, Unsqueeze, DepthToSpace, SpaceToDepth).
//
// first transpose -> reshape -> second transpose. A permutation lists, for each output dim, the input
// dim it takes: out.shape[i] = in.shape[order[i]] (as numpy.transpose and ONNX Transpose); a layer's
// permutations apply through as many entries as the tensors they permute have dims. Shape inference
// resolves the reshape (placeholders, -1, a shape-tensor input) into the output's shape, so the kernel
// reads the reshape's result from there.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/shuffle.h"

#include <cstdint>
#include <vector>

namespace kiln::cpu
{

//! TensorRT's reshape rules: with zeroIsPlaceholder a 0 copies the input extent at the same index; one
//! -1 is inferred from the volume. Throws std::invalid_argument with the reason when that is impossible.
Shape resolveReshapeDimensions(Shape const& input, Shape const& reshapeDimensions, bool zeroIsPlaceholder);

//! Applies `order` to a shape; throws unless it is a permutation of the shape's dims. An empty order is the
//! identity.
Shape transposeShape(Shape const& input, std::vector<int32_t> const& order);

//! The output shape of a shuffle with a static reshape (params.reshape; none: no reshape).
Shape shuffleOutputShape(Shape const& input, network::ShuffleParams const& params);

//! Byte copy: every byte-addressable type.
void transpose(ConstTensorView const& input, TensorView const& output, std::vector<int32_t> const& order);

//! The output's shape, undone by the second transpose, is the reshape's result; it must hold as many
//! elements as the input.
void shuffle(ConstTensorView const& input, TensorView const& output, network::ShuffleParams const& params);

} // namespace kiln::cpu
