// Matrix multiply (kNONE, kTRANSPOSE and kVECTOR operands, batch axes that broadcast) through oneDNN's matmul,
// reading each operand where it lies (a transpose is a stride, not a copy), with the epilogue the builder fused into
// it (a bias along the last axis, an activation) as the primitive's bias and eltwise post-op (whose ReLU and clip,
// unlike the reference, turn NaN into 0).
//
// The output is cut into tiles that the shapes alone decide (per matrix of the batch, blocks of rows and columns),
// each computed by one thread with a primitive of its shape. oneDNN's own threading would split the inner sum of a
// small product among the threads, so that its results would change with the thread count.
#include "backend/cpu/fast/in_parallel.h"
#include "backend/cpu/fast/kernels.h"
#include "backend/cpu/fast/linear.h"

#include "backend/cpu/kernels/epilogue.h"
#include "backend/cpu/kernels/tensor/matrix_multiply.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"
#include "plan/plan_graph.h"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <unordered_map>

namespace kiln::cpu::fast
{
namespace
{

using dnnl::memory;
using nvinfer1::MatrixOperation;

//! A tile's rows and columns at most: enough work to repay a primitive call, small enough to share among threads.
constexpr int64_t kTileRows = 64;
constexpr int64_t kTileColumns = 256;

//! A primitive for the tiles of one shape.
struct TileKind
{
    int64_t rows;
    int64_t cols;
    dnnl::matmul primitive;
    memory::desc left;
    memory::desc right;
    memory::desc bias; //!< empty where the layer has none
    memory::desc output;
    //! The primitive's scratch memory, which each thread gives it from its own buffer: oneDNN shares the library's
    //! scratchpad between threads (it is built without DNNL_ENABLE_CONCURRENT_EXEC), and its AVX-512 kernels use it.
    memory::desc scratchpad;
};

//! One tile: where its operands, output and bias start (elements from the tensors' starts), and its kind.
struct Tile
{
    int64_t left;
    int64_t right;
    int64_t output;
    int64_t bias;
    size_t kind;
};

class MatrixMultiplyKernel final : public Kernel
{
public:
    MatrixMultiplyKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<network::MatrixMultiplyParams>(layer))
        , mEpilogue(layer.epilogue)
        , mBias(mEpilogue.bias.toFloat())
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        if (mLinear)
        {
            mLinear->run(inputs, outputs);
            return;
        }
        TensorView const& output = outputs.at(0);
        if (output.count() == 0)
        {
            return;
        }
        Prepared& prepared = mCache.get(inputs, mState.resolvedThreads(), [&] { return prepare(inputs); });
        if (prepared.tiles.empty())
        {
            // An empty inner sum: the product is 0, and the epilogue still applies.
            std::fill_n(static_cast<float*>(output.data), output.count(), 0.0F);
            applyEpilogue(mEpilogue, inputs, output);
            return;
        }
        void const* right = mConstantRight.data != nullptr ? mConstantRight.data : inputs[1].data;
        Pointers const pointers{static_cast<float const*>(inputs[0].data), static_cast<float const*>(right),
            static_cast<float*>(output.data)};
        inParallel(prepared.tiles.size(), [&](size_t t) {
            std::vector<std::byte>& scratchpad = prepared.scratchpads.at(static_cast<size_t>(omp_get_thread_num()));
            runTile(prepared.kinds[prepared.tiles[t].kind], prepared.tiles[t], pointers, scratchpad.data());
        });
    }

    //! Constant weights (the second input) go to a linear kernel where it runs them, else are read from the plan.
    bool takeConstantInput(size_t input, ConstTensorView const& values) override
    {
        if (input != 1)
        {
            return false;
        }
        if (linearRuns(mParams.op0, mParams.op1, values))
        {
            mLinear = makeLinear(mState, mEpilogue, values, mParams.op1);
        }
        mConstantRight = values;
        return true;
    }

private:
    struct Prepared
    {
        std::vector<TileKind> kinds;
        std::vector<Tile> tiles;                         //!< empty where the inner extent is 0
        std::vector<std::vector<std::byte>> scratchpads; //!< by OpenMP thread: scratch for any kind's primitive
    };

    struct Pointers
    {
        float const* left;
        float const* right;
        float* output;
    };

    //! On the calling thread alone: oneDNN runs a primitive on one thread inside a parallel region.
    void runTile(TileKind const& kind, Tile const& tile, Pointers const& pointers, std::byte* scratchpad) const
    {
        dnnl::engine const& engine = mState.engine;
        // oneDNN's memory objects are not const-aware; sources are only read.
        std::unordered_map<int, memory> arguments{
            {DNNL_ARG_SRC, memory(kind.left, engine, const_cast<float*>(pointers.left + tile.left))},
            {DNNL_ARG_WEIGHTS, memory(kind.right, engine, const_cast<float*>(pointers.right + tile.right))},
            {DNNL_ARG_DST, memory(kind.output, engine, pointers.output + tile.output)}};
        if (!mBias.empty())
        {
            arguments.emplace(DNNL_ARG_BIAS, memory(kind.bias, engine, const_cast<float*>(mBias.data() + tile.bias)));
        }
        if (kind.scratchpad.get_size() > 0)
        {
            arguments.emplace(DNNL_ARG_SCRATCHPAD, memory(kind.scratchpad, engine, scratchpad));
        }
        dnnl::stream stream(engine);
        kind.primitive.execute(stream, arguments);
        stream.wait();
    }

    //! The index in `kinds` of the primitive for tiles of rows x cols, made where it is the first.
    size_t kindOf(
        std::vector<TileKind>& kinds, MatrixOperand const& a, MatrixOperand const& b, int64_t rows, int64_t cols) const
    {
        auto const found = std::find_if(
            kinds.begin(), kinds.end(), [&](TileKind const& kind) { return kind.rows == rows && kind.cols == cols; });
        if (found != kinds.end())
        {
            return static_cast<size_t>(found - kinds.begin());
        }
        TileKind kind{rows, cols, {}, matrixDesc(rows, a.cols, a.rowStride, a.colStride),
            matrixDesc(b.rows, cols, b.rowStride, b.colStride), {}, matrixDesc(rows, cols, b.cols, 1), {}};
        if (!mBias.empty())
        {
            kind.bias = linearDesc({1, cols});
        }
        dnnl::matmul::desc const description(kind.left, kind.right, kind.bias, kind.output);
        dnnl::primitive_attr attributes = activationAttributes(mEpilogue);
        attributes.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        dnnl::matmul::primitive_desc const chosen(description, attributes, mState.engine);
        kind.scratchpad = chosen.scratchpad_desc();
        kind.primitive = dnnl::matmul(chosen);
        kinds.push_back(std::move(kind));
        return kinds.size() - 1;
    }

    Prepared prepare(LayerInputs const& inputs) const
    {
        MatrixOperand const a = describeMatrixOperand(inputs[0].shape, mParams.op0, true);
        MatrixOperand const b = describeMatrixOperand(inputs[1].shape, mParams.op1, false);
        Shape const batch = tensor_detail::broadcastShapes(a.batch, b.batch, "matrix multiply");
        Prepared prepared;
        if (a.cols == 0)
        {
            return prepared;
        }
        Shape const leftStrides = tensor_detail::broadcastStrides(a.batch, batch, "matrix multiply");
        Shape const rightStrides = tensor_detail::broadcastStrides(b.batch, batch, "matrix multiply");
        int64_t const rows = a.rows;
        int64_t const cols = b.cols;
        int64_t const matrices = volume(batch);
        for (int64_t m = 0; m < matrices; ++m)
        {
            // Where matrix m of the batch starts in each operand: 0 along the axes where it broadcasts.
            int64_t left = 0;
            int64_t right = 0;
            int64_t rest = m;
            for (size_t axis = batch.size(); axis-- > 0;)
            {
                int64_t const index = rest % batch[axis];
                rest /= batch[axis];
                left += index * leftStrides[axis] * a.rows * a.cols;
                right += index * rightStrides[axis] * b.rows * b.cols;
            }
            for (int64_t row = 0; row < rows; row += kTileRows)
            {
                for (int64_t col = 0; col < cols; col += kTileColumns)
                {
                    size_t const kind = kindOf(
                        prepared.kinds, a, b, std::min(kTileRows, rows - row), std::min(kTileColumns, cols - col));
                    prepared.tiles.push_back(Tile{
                        left + row * a.rowStride, right + col * b.colStride, (m * rows + row) * cols + col, col, kind});
                }
            }
        }
        size_t scratchpadBytes = 0;
        for (TileKind const& kind : prepared.kinds)
        {
            scratchpadBytes = std::max(scratchpadBytes, kind.scratchpad.get_size());
        }
        // run() sets the thread count before it prepares, so the parallel regions have at most this many threads.
        prepared.scratchpads.assign(static_cast<size_t>(std::max(omp_get_max_threads(), mState.resolvedThreads())),
            std::vector<std::byte>(scratchpadBytes));
        return prepared;
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    network::MatrixMultiplyParams const& mParams;
    plan::Epilogue const mEpilogue;
    std::vector<float> const mBias;
    ConstTensorView mConstantRight;  //!< the second input's values where they are constant (the plan's)
    std::unique_ptr<Kernel> mLinear; //!< runs the layer instead, where the second input is constant weights
    PreparedCache<Prepared> mCache;
};

} // namespace

bool supportsMatrixMultiply(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::MatrixMultiplyParams>(layer);
    if (params == nullptr || layer.inputs.size() != 2 || layer.inputs[0] < 0 || layer.inputs[1] < 0
        || layer.outputs.size() != 1)
    {
        return false;
    }
    plan::Epilogue const& epilogue = layer.epilogue;
    bool const vector = params->op0 == MatrixOperation::kVECTOR || params->op1 == MatrixOperation::kVECTOR;
    // The bias of an epilogue is along the output's last axis, which a vector operand takes away; one row of it
    // (the kernel adds no row per block of the output).
    size_t const rank = model.tensors[layer.outputs[0]].dims.size();
    bool const oneBiasRow = rank > 0
        && plan::constantExtent(model, layer.outputs[0], rank - 1) == epilogue.bias.count();
    bool const biasRuns = epilogue.bias.empty()
        || (epilogue.bias.type() == nvinfer1::DataType::kFLOAT && !vector && oneBiasRow);
    return !epilogue.addsResidual && biasRuns && appliesActivation(epilogue);
}

std::unique_ptr<Kernel> makeMatrixMultiply(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<MatrixMultiplyKernel>(state, layer);
}

} // namespace kiln::cpu::fast
