// The CUDA shuffle kernels called directly against the CPU reference, byte for byte: rows that keep the innermost axis
// (the attention heads' split and merge, in vectors of 16 bytes down to 1 as row lengths and alignment allow),
// transposes of the innermost axis through tiles (ragged edges, a batch of matrices), small extents that take the
// element-by-element kernel, extents of 1 that leave a copy, both transposes around a reshape, and every element size.
#include "kernel_comparison.h"

#include "backend/cpu/kernels/tensor/shuffle.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

Permutation permutation(std::vector<int32_t> const& order)
{
    Permutation p = kiln::network::ShuffleParams::identityPermutation();
    for (size_t i = 0; i < order.size(); ++i)
    {
        p.order[i] = order[i];
    }
    return p;
}

//! Elements whose bytes differ from one another, for any element size (a misplaced element shows).
HostTensor distinctElements(kiln::Shape const& shape, DataType type)
{
    HostTensor tensor = zeros(shape, type);
    for (size_t i = 0; i < tensor.bytes.size(); ++i)
    {
        tensor.bytes[i] = static_cast<uint8_t>((i * 37 + i / 251) & 0xFF);
    }
    return tensor;
}

void expectShuffleAgrees(kiln::network::ShuffleParams const& params, kiln::Shape const& shape, DataType type,
    size_t offset, std::string const& what)
{
    SCOPED_TRACE(what + " " + kiln::dataTypeName(type) + " offset " + std::to_string(offset));
    kiln::Shape const outputShape = kiln::cpu::shuffleOutputShape(shape, params);
    auto const [cpu, gpu]
        = runBothKernels(params, {Placed{distinctElements(shape, type), offset}}, {zeros(outputShape, type)}, offset);
    ASSERT_EQ(gpu.at(0).shape, cpu.at(0).shape);
    EXPECT_EQ(gpu.at(0).bytes, cpu.at(0).bytes);
}

kiln::network::ShuffleParams transposing(std::vector<int32_t> const& order)
{
    kiln::network::ShuffleParams params;
    params.firstTranspose = permutation(order);
    return params;
}

constexpr DataType kEverySize[]
    = {DataType::kINT8, DataType::kHALF, DataType::kBF16, DataType::kFLOAT, DataType::kINT32, DataType::kINT64};

TEST(CudaShuffleKernel, HeadSplitAndMergeMoveWholeRows)
{
    SKIP_WITHOUT_GPU();
    for (DataType type : kEverySize)
    {
        for (size_t offset : {0, 1})
        {
            expectShuffleAgrees(transposing({0, 2, 1, 3}), {2, 128, 12, 64}, type, offset, "head split");
            expectShuffleAgrees(transposing({0, 2, 1, 3}), {2, 12, 128, 64}, type, offset, "head merge");
            // Rows of 7, 6 and 5 elements: vectors narrower than 16 bytes, down to single elements.
            expectShuffleAgrees(transposing({0, 2, 1, 3}), {2, 5, 3, 7}, type, offset, "rows of 7");
            expectShuffleAgrees(transposing({2, 0, 1, 3}), {3, 5, 4, 6}, type, offset, "rows of 6");
            expectShuffleAgrees(transposing({1, 0, 2}), {9, 11, 5}, type, offset, "rows of 5");
        }
    }
}

TEST(CudaShuffleKernel, TransposesOfTheInnermostAxisGoThroughTiles)
{
    SKIP_WITHOUT_GPU();
    for (DataType type : kEverySize)
    {
        for (size_t offset : {0, 1})
        {
            // The keys' transpose [2, 128, 12, 64] -> [2, 12, 64, 128]: [2, 128, 768] by (0, 2, 1) once simplified.
            expectShuffleAgrees(transposing({0, 2, 3, 1}), {2, 128, 12, 64}, type, offset, "keys");
            // Ragged tiles, a batch axis on either side, a full reversal.
            expectShuffleAgrees(transposing({0, 2, 1}), {3, 37, 45}, type, offset, "ragged");
            expectShuffleAgrees(transposing({2, 1, 0}), {33, 3, 40}, type, offset, "reversal");
            expectShuffleAgrees(transposing({1, 3, 0, 2}), {17, 5, 19, 2}, type, offset, "four axes");
            expectShuffleAgrees(transposing({0, 3, 1, 2}), {2, 16, 9, 24}, type, offset, "channels first");
        }
    }
}

TEST(CudaShuffleKernel, SmallExtentsAndCopies)
{
    SKIP_WITHOUT_GPU();
    for (DataType type : {DataType::kHALF, DataType::kFLOAT, DataType::kINT64})
    {
        for (size_t offset : {0, 1})
        {
            // Innermost extents below a quarter tile: element by element.
            expectShuffleAgrees(transposing({1, 0}), {50, 3}, type, offset, "50 x 3");
            expectShuffleAgrees(transposing({2, 0, 1}), {4, 5, 3}, type, offset, "[4, 5, 3]");
            expectShuffleAgrees(transposing({1, 0}), {7, 300}, type, offset, "7 x 300");
            // Only extents of 1 move: a copy.
            expectShuffleAgrees(transposing({2, 1, 0, 3}), {1, 128, 1, 64}, type, offset, "ones");
        }
    }
}

TEST(CudaShuffleKernel, BothTransposesAroundAReshape)
{
    SKIP_WITHOUT_GPU();
    kiln::network::ShuffleParams split; // [2, 128, 768] -> [2, 128, 12, 64] -> [2, 12, 128, 64]: one permutation
    split.reshape = Dims{4, {2, 128, 12, 64}};
    split.secondTranspose = permutation({0, 2, 1, 3});
    kiln::network::ShuffleParams unchanged; // the reshape keeps the first transpose's extents: one permutation
    unchanged.firstTranspose = permutation({2, 0, 1});
    unchanged.reshape = Dims{3, {5, 3, 4}};
    unchanged.secondTranspose = permutation({2, 1, 0}); // [3, 4, 5] -> [4, 3, 5]: rows of 5
    kiln::network::ShuffleParams undone = unchanged;    // the second transpose undoes the first: a copy
    undone.secondTranspose = permutation({1, 2, 0});
    kiln::network::ShuffleParams regrouped; // a true reshape between two transposes: element by element
    regrouped.firstTranspose = permutation({1, 0, 2});
    regrouped.reshape = Dims{3, {12, 2, 10}};
    regrouped.secondTranspose = permutation({2, 0, 1});
    for (DataType type : {DataType::kHALF, DataType::kFLOAT})
    {
        for (size_t offset : {0, 1})
        {
            expectShuffleAgrees(split, {2, 128, 768}, type, offset, "head split after a reshape");
            expectShuffleAgrees(unchanged, {3, 4, 5}, type, offset, "two transposes");
            expectShuffleAgrees(undone, {3, 4, 5}, type, offset, "two transposes that cancel");
            expectShuffleAgrees(regrouped, {4, 6, 10}, type, offset, "a reshape between transposes");
        }
    }
}

} // namespace
