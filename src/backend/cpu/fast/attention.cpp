// Attention (network/fused/attention.h) on the fast path, FP32 without roundings: softmax(q k^T s + mask) v, the
// queries of each problem of the batch taken a block of rows at a time, each block by one thread. The block's scores
// against every key are one oneDNN matmul into that thread's buffer, small enough to stay in its cache; they are
// scaled, masked and normalized there, and a second matmul multiplies them by the values into the output. The unfused
// layers wrote every score to memory and read them back twice (Whisper's encoder: 6 x 1500 x 1500 scores, 54 MB a
// layer).
//
// Against the reference (kernels/nn/attention.cpp, in double): the products are FP32 sums in oneDNN's order, the
// exponentials within vector_functions.h's bounds, a row's sum in FP32. NaN and infinities give what the reference
// gives: a NaN score, or a row whose every score is -infinity, makes the row's probabilities NaN (0 where
// zeroNaNProbabilities). Problems without keys or depth run on the reference kernel.
#include "backend/cpu/fast/in_parallel.h"
#include "backend/cpu/fast/kernels.h"
#include "backend/cpu/fast/vector_functions.h"
#include "backend/cpu/layer_kernels.h"
#include "backend/shared/attention_geometry.h"
#include "network/fused/attention.h"
#include "plan/plan_graph.h"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <vector>

namespace kiln::cpu::fast
{
namespace
{

using backend::AttentionGeometry;
using dnnl::memory;

//! The most scores a block holds: 2^19 floats, 2 MB. Blocks of many queries keep oneDNN's products efficient (its
//! kernels for a few rows by many keys run far below the processor's peak); their scores then leave the second-level
//! cache but not the third. Whisper's encoder (1500 keys, two threads) took 115 ms with blocks of 40 queries (scores
//! of 240 KB), 99 ms with 384 and 768, against 112 ms unfused.
constexpr int64_t kBlockScores = int64_t{1} << 19;

//! Rows of queries a block takes of `queries` against `keys` keys in each of `batches` problems: as many as
//! kBlockScores allows, a multiple of 8 up to 512, and few enough that each of `threads` threads gets a block.
int64_t blockRowsFor(int64_t queries, int64_t keys, int64_t batches, int64_t threads)
{
    int64_t const spread = (queries * batches + threads - 1) / threads;
    int64_t const rows = std::min(kBlockScores / std::max<int64_t>(keys, 1), spread);
    return std::min(std::clamp<int64_t>(rows / 8 * 8, 8, 512), queries);
}

//! One oneDNN matmul between fixed layouts, run on the calling thread with scratch memory it is given.
class Product
{
public:
    Product(memory::desc const& left, memory::desc const& right, memory::desc const& output, dnnl::engine const& engine)
        : mLeft(left)
        , mRight(right)
        , mOutput(output)
    {
        dnnl::primitive_attr attributes;
        attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::matmul::primitive_desc const chosen(dnnl::matmul::desc(left, right, output), attributes, engine);
        mScratchpad = chosen.scratchpad_desc();
        mPrimitive = dnnl::matmul(chosen);
    }

    size_t scratchpadBytes() const
    {
        return mScratchpad.get_size();
    }

    void run(dnnl::engine const& engine, float const* left, float const* right, float* output, std::byte* scratch) const
    {
        // oneDNN's memory objects are not const-aware; the sources are only read.
        std::unordered_map<int, memory> arguments{{DNNL_ARG_SRC, memory(mLeft, engine, const_cast<float*>(left))},
            {DNNL_ARG_WEIGHTS, memory(mRight, engine, const_cast<float*>(right))},
            {DNNL_ARG_DST, memory(mOutput, engine, output)}};
        if (mScratchpad.get_size() > 0)
        {
            arguments.emplace(DNNL_ARG_SCRATCHPAD, memory(mScratchpad, engine, scratch));
        }
        dnnl::stream stream(engine);
        mPrimitive.execute(stream, arguments);
        stream.wait();
    }

private:
    memory::desc mLeft;
    memory::desc mRight;
    memory::desc mOutput;
    memory::desc mScratchpad;
    dnnl::matmul mPrimitive;
};

//! The two products of a block of `rows` queries: its scores (queries times keys), and the probabilities times the
//! values into the output.
struct BlockProducts
{
    int64_t rows;
    Product scores;
    Product weighted;
};

BlockProducts blockProducts(AttentionGeometry const& g, int64_t rows, dnnl::engine const& engine)
{
    AttentionGeometry::Operand const& q = g.queryLayout;
    AttentionGeometry::Operand const& k = g.keyLayout;
    AttentionGeometry::Operand const& v = g.valueLayout;
    AttentionGeometry::Operand const& o = g.outputLayout;
    memory::desc const scores = matrixDesc(rows, g.keys, g.keys, 1);
    // The keys' matrix read transposed: element (d, j) of k^T is key j's element d.
    return BlockProducts{rows,
        Product(
            matrixDesc(rows, g.depth, q.row, q.column), matrixDesc(g.depth, g.keys, k.column, k.row), scores, engine),
        Product(scores, matrixDesc(g.keys, g.valueDepth, v.row, v.column),
            matrixDesc(rows, g.valueDepth, o.row, o.column), engine)};
}

class AttentionKernel final : public Kernel
{
public:
    AttentionKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<network::AttentionParams>(layer))
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        bool const masked = inputs.size() > 3 && inputs[3].data != nullptr;
        AttentionGeometry const g = backend::attentionGeometry(
            {inputs[0].shape, inputs[1].shape, inputs[2].shape, masked ? &inputs[3].shape : nullptr, output.shape},
            mParams);
        if (output.count() == 0)
        {
            return;
        }
        if (g.keys == 0 || g.depth == 0)
        {
            cpu::run(mParams, inputs, outputs);
            return;
        }
        Prepared& prepared = mCache.get(inputs, mState.resolvedThreads(), [&] { return prepare(g); });
        int64_t const blocksPerProblem = (g.queries + prepared.rows - 1) / prepared.rows;
        Operands const operands{static_cast<float const*>(inputs[0].data), static_cast<float const*>(inputs[1].data),
            static_cast<float const*>(inputs[2].data), masked ? static_cast<float const*>(inputs[3].data) : nullptr,
            static_cast<float*>(output.data)};
        inParallel(static_cast<size_t>(g.batches * blocksPerProblem), [&](size_t item) {
            auto const thread = static_cast<size_t>(omp_get_thread_num());
            int64_t const b = static_cast<int64_t>(item) / blocksPerProblem;
            int64_t const firstRow = static_cast<int64_t>(item) % blocksPerProblem * prepared.rows;
            BlockProducts const& products = prepared.blocks[firstRow + prepared.rows <= g.queries ? 0 : 1];
            runBlock(g, products, operands, b, firstRow, prepared.scores.at(thread).data(),
                prepared.scratchpads.at(thread).data());
        });
    }

private:
    struct Prepared
    {
        int64_t rows{0};                                 //!< queries a full block takes
        std::vector<BlockProducts> blocks;               //!< a full block's products; the last block's where shorter
        std::vector<std::vector<float>> scores;          //!< by OpenMP thread: a block's scores
        std::vector<std::vector<std::byte>> scratchpads; //!< by OpenMP thread: scratch for any of the products
    };

    struct Operands
    {
        float const* query;
        float const* keys;
        float const* values;
        float const* mask; //!< null where the layer has none
        float* output;
    };

    Prepared prepare(AttentionGeometry const& g) const
    {
        Prepared prepared;
        prepared.rows = blockRowsFor(g.queries, g.keys, g.batches, mState.resolvedThreads());
        prepared.blocks.push_back(blockProducts(g, prepared.rows, mState.engine));
        if (int64_t const last = g.queries % prepared.rows; last != 0)
        {
            prepared.blocks.push_back(blockProducts(g, last, mState.engine));
        }
        size_t scratchpadBytes = 0;
        for (BlockProducts const& products : prepared.blocks)
        {
            scratchpadBytes
                = std::max({scratchpadBytes, products.scores.scratchpadBytes(), products.weighted.scratchpadBytes()});
        }
        // run() sets the thread count before it prepares, so the parallel regions have at most this many threads.
        auto const threads = static_cast<size_t>(std::max(omp_get_max_threads(), mState.resolvedThreads()));
        prepared.scores.assign(threads, std::vector<float>(static_cast<size_t>(prepared.rows * g.keys)));
        prepared.scratchpads.assign(threads, std::vector<std::byte>(scratchpadBytes));
        return prepared;
    }

    //! Problem `b`'s queries from `firstRow` on, products.rows of them, into the output; `scores` holds their scores.
    void runBlock(AttentionGeometry const& g, BlockProducts const& products, Operands const& operands, int64_t b,
        int64_t firstRow, float* scores, std::byte* scratchpad) const
    {
        dnnl::engine const& engine = mState.engine;
        products.scores.run(engine, operands.query + g.offset(g.queryLayout, b) + firstRow * g.queryLayout.row,
            operands.keys + g.offset(g.keyLayout, b), scores, scratchpad);
        for (int64_t r = 0; r < products.rows; ++r)
        {
            float const* mask = operands.mask == nullptr
                ? nullptr
                : operands.mask + g.offset(g.maskLayout, b) + (firstRow + r) * g.maskLayout.row;
            softmaxOfScores(
                scores + r * g.keys, g.keys, mParams.scale, mask, g.maskLayout.column, mParams.zeroNaNProbabilities);
        }
        products.weighted.run(engine, scores, operands.values + g.offset(g.valueLayout, b),
            operands.output + g.offset(g.outputLayout, b) + firstRow * g.outputLayout.row, scratchpad);
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    network::AttentionParams const& mParams;
    PreparedCache<Prepared> mCache;
};

} // namespace

bool supportsAttention(plan::PlanModel const& /*model*/, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::AttentionParams>(layer);
    return params != nullptr && !params->rounds() && layer.inputs.size() >= 3 && layer.inputs.size() <= 4
        && layer.inputs[0] >= 0 && layer.inputs[1] >= 0 && layer.inputs[2] >= 0 && layer.outputs.size() == 1
        && !layer.epilogue.any();
}

std::unique_ptr<Kernel> makeAttention(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<AttentionKernel>(state, layer);
}

} // namespace kiln::cpu::fast
