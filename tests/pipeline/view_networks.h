// Networks whose reshapes and slices become views (builder/view_layers.h), and what they compute worked out here
// from their definitions. The CPU tests (view_layers_test.cpp) and the CUDA ones (tests/cuda_backend/view_test.cpp)
// build the same networks, for a plan with views and for the reference kernels, which run every layer as written.
// Inputs are multiples of 1/4 in [-4, 4], so that every sum and product below is exact in FP32 and in FP16: each
// backend's result is then the value computed here, bit for bit.
#pragma once

#include <NvInfer.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace kiln::test::views
{

using namespace nvinfer1;

inline ITensor& named(ILayer* layer, char const* name)
{
    layer->setName(name);
    layer->getOutput(0)->setName(name);
    return *layer->getOutput(0);
}

inline void markOutput(INetworkDefinition& n, ITensor& tensor, char const* name)
{
    tensor.setName(name);
    n.markOutput(tensor);
}

inline ITensor& sum(INetworkDefinition& n, ITensor& a, ITensor& b, char const* name)
{
    return named(n.addElementWise(a, b, ElementWiseOperation::kSUM), name);
}

inline ITensor& product(INetworkDefinition& n, ITensor& a, ITensor& b, char const* name)
{
    return named(n.addElementWise(a, b, ElementWiseOperation::kPROD), name);
}

inline ITensor& reshaped(INetworkDefinition& n, ITensor& x, Dims const& dims, char const* name)
{
    IShuffleLayer* layer = n.addShuffle(x);
    layer->setReshapeDimensions(dims);
    return named(layer, name);
}

inline ITensor& int64s(INetworkDefinition& n, std::vector<int64_t> const& values)
{
    // The network keeps the weights' address: the values must outlive the build, so they are kept here.
    static std::vector<std::vector<int64_t>> kept;
    kept.push_back(values);
    Weights const weights{DataType::kINT64, kept.back().data(), static_cast<int64_t>(values.size())};
    return *n.addConstant(Dims{1, {static_cast<int64_t>(values.size())}}, weights)->getOutput(0);
}

inline ITensor& unsqueezed(INetworkDefinition& n, ITensor& x, int64_t axis, char const* name)
{
    return named(n.addUnsqueeze(x, int64s(n, {axis})), name);
}

inline ITensor& squeezed(INetworkDefinition& n, ITensor& x, int64_t axis, char const* name)
{
    return named(n.addSqueeze(x, int64s(n, {axis})), name);
}

//! Extents [from, from + count) of `x`'s shape, as a 1-D INT64 shape tensor.
inline ITensor& extents(INetworkDefinition& n, ITensor& x, int64_t from, int64_t count)
{
    ITensor& shape = *n.addShape(x)->getOutput(0);
    return *n.addSlice(shape, Dims{1, {from}}, Dims{1, {count}}, Dims{1, {1}})->getOutput(0);
}

inline ITensor& joined(INetworkDefinition& n, std::initializer_list<ITensor*> parts)
{
    std::vector<ITensor*> list(parts);
    return *n.addConcatenation(list.data(), static_cast<int32_t>(list.size()))->getOutput(0);
}

inline ITensor& shapeMath(INetworkDefinition& n, ITensor& a, ITensor& b, ElementWiseOperation op)
{
    return *n.addElementWise(a, b, op)->getOutput(0);
}

//! A stride-1 slice of `x` whose start and size are shape tensors.
inline ITensor& sliced(INetworkDefinition& n, ITensor& x, ITensor& start, ITensor& size, char const* name)
{
    int32_t const rank = x.getDimensions().nbDims;
    Dims zeros{rank, {}};
    Dims ones{rank, {}};
    for (int32_t axis = 0; axis < rank; ++axis)
    {
        ones.d[axis] = 1;
    }
    ISliceLayer* layer = n.addSlice(x, zeros, zeros, ones);
    layer->setInput(1, start);
    layer->setInput(2, size);
    return named(layer, name);
}

//! Views of a network input, chained: x [2, 3, 4] reshaped to r1 [6, 4], unsqueezed to r2 [1, 6, 4], squeezed back
//! to r3 [6, 4], and flattened (0 and -1) to flat [2, 12]. y = r3 + r1, w = flat * flat; z, x reshaped to [24], is
//! a network output, which stays a copy.
inline void inputViews(INetworkDefinition& n, DataType type = DataType::kFLOAT)
{
    ITensor& x = *n.addInput("x", type, Dims{3, {2, 3, 4}});
    ITensor& r1 = reshaped(n, x, Dims{2, {6, 4}}, "r1");
    ITensor& r2 = unsqueezed(n, r1, 0, "r2");
    ITensor& r3 = squeezed(n, r2, 0, "r3");
    ITensor& flat = reshaped(n, x, Dims{2, {0, -1}}, "flat");
    markOutput(n, sum(n, r3, r1, "add"), "y");
    markOutput(n, product(n, flat, flat, "square"), "w");
    markOutput(n, reshaped(n, x, Dims{1, {24}}, "z"), "z");
}

//! timm's ViT attention input: t = x + x for x [2, 4, 6] (batch, tokens, 3 * channels), reshaped to [2, 4, 3, 2],
//! transposed to qkv [3, 2, 4, 2] (a copy: it moves axes), unbound along axis 0 by slices [i:i+1] and squeezes.
//! y = q * k + v.
inline void unbindViews(INetworkDefinition& n, DataType type = DataType::kFLOAT)
{
    ITensor& x = *n.addInput("x", type, Dims{3, {2, 4, 6}});
    ITensor& t = sum(n, x, x, "t");
    ITensor& heads = reshaped(n, t, Dims{4, {2, 4, 3, 2}}, "heads");
    IShuffleLayer* transpose = n.addShuffle(heads);
    transpose->setFirstTranspose(Permutation{{2, 0, 1, 3}});
    ITensor& qkv = named(transpose, "qkv");
    std::vector<ITensor*> parts;
    char const* const names[] = {"q", "k", "v"};
    for (int64_t i = 0; i < 3; ++i)
    {
        ISliceLayer* slice = n.addSlice(qkv, Dims{4, {i, 0, 0, 0}}, Dims{4, {1, 2, 4, 2}}, Dims{4, {1, 1, 1, 1}});
        slice->setName((std::string(names[i]) + " slice").c_str());
        parts.push_back(&squeezed(n, *slice->getOutput(0), 0, names[i]));
    }
    markOutput(n, sum(n, product(n, *parts[0], *parts[1], "qk"), *parts[2], "qk + v"), "y");
}

//! unbindViews with each part taken as exports spell `qkv[i]`: a gather of one constant index (a scalar, so the
//! gathered axis goes) along the first axis; v's index counts from the end (-1). Computes what unbindViews does.
inline void gatheredUnbindViews(INetworkDefinition& n, DataType type = DataType::kFLOAT)
{
    ITensor& x = *n.addInput("x", type, Dims{3, {2, 4, 6}});
    ITensor& t = sum(n, x, x, "t");
    IShuffleLayer* transpose = n.addShuffle(reshaped(n, t, Dims{4, {2, 4, 3, 2}}, "heads"));
    transpose->setFirstTranspose(Permutation{{2, 0, 1, 3}});
    ITensor& qkv = named(transpose, "qkv");
    std::vector<ITensor*> parts;
    char const* const names[] = {"q", "k", "v"};
    for (int64_t i : {0, 1, -1})
    {
        // The network keeps the weights' address: the values must outlive the build, so they are kept here.
        static int32_t const kIndices[] = {0, 1, -1};
        Weights const index{DataType::kINT32, &kIndices[i < 0 ? 2 : i], 1};
        ITensor& indices = *n.addConstant(Dims{0, {}}, index)->getOutput(0);
        parts.push_back(&named(n.addGather(qkv, indices, 0), names[parts.size()]));
    }
    markOutput(n, sum(n, product(n, *parts[0], *parts[1], "qk"), *parts[2], "qk + v"), "y");
}

//! What unbindViews computes for x (row-major [2, 4, 6]): y [2, 4, 2].
inline std::vector<float> unbindExpected(std::vector<float> const& x)
{
    std::vector<float> y(16);
    for (int64_t b = 0; b < 2; ++b)
    {
        for (int64_t token = 0; token < 4; ++token)
        {
            for (int64_t c = 0; c < 2; ++c)
            {
                auto const at
                    = [&](int64_t part) { return x[static_cast<size_t>((b * 4 + token) * 6 + part * 2 + c)]; };
                float const q = at(0) + at(0);
                float const k = at(1) + at(1);
                float const v = at(2) + at(2);
                y[static_cast<size_t>((b * 4 + token) * 2 + c)] = q * k + v;
            }
        }
    }
    return y;
}

//! A view read after every other reader of its input: a = x + x (x [4, 4]) and v = a as [16]. r = relu(a) reads the
//! viewed tensor while v is live (a layer whose kernel could run in place), s = r as [16], u = s + v. Then b = a * a is
//! a's last other reader, c = transpose(b) is written after it (where a's bytes would be free without v), d = c as
//! [16], y = d + v.
inline void lifetimeViews(INetworkDefinition& n)
{
    ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims{2, {4, 4}});
    ITensor& a = sum(n, x, x, "a");
    ITensor& v = reshaped(n, a, Dims{1, {16}}, "v");
    ITensor& r = named(n.addActivation(a, ActivationType::kRELU), "r");
    ITensor& s = reshaped(n, r, Dims{1, {16}}, "s");
    markOutput(n, sum(n, s, v, "s + v"), "u");
    ITensor& b = product(n, a, a, "b");
    IShuffleLayer* transpose = n.addShuffle(b);
    transpose->setFirstTranspose(Permutation{{1, 0}});
    ITensor& c = named(transpose, "c");
    ITensor& d = reshaped(n, c, Dims{1, {16}}, "d");
    markOutput(n, sum(n, d, v, "d + v"), "y");
}

//! What lifetimeViews computes for x (row-major [4, 4]): u, then y.
inline std::pair<std::vector<float>, std::vector<float>> lifetimeExpected(std::vector<float> const& x)
{
    std::vector<float> u(16);
    std::vector<float> y(16);
    for (size_t i = 0; i < 4; ++i)
    {
        for (size_t j = 0; j < 4; ++j)
        {
            float const a = x[i * 4 + j] + x[i * 4 + j];
            float const transposed = (x[j * 4 + i] + x[j * 4 + i]) * (x[j * 4 + i] + x[j * 4 + i]);
            u[i * 4 + j] = (a > 0.0F ? a : 0.0F) + a;
            y[i * 4 + j] = transposed + a;
        }
    }
    return {u, y};
}

//! x [n, 4] for a dynamic n: t = x + x split in halves by slices whose start and size are computed from t's shape,
//! first = t[0 : n/2] and second = t[n/2 : n] (so second's offset depends on the run's n). y1 = first + first,
//! y2 = second * second.
inline void halvesViews(INetworkDefinition& n)
{
    ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
    ITensor& t = sum(n, x, x, "t");
    ITensor& rows = extents(n, t, 0, 1);
    ITensor& half = shapeMath(n, rows, int64s(n, {2}), ElementWiseOperation::kFLOOR_DIV);
    ITensor& rest = shapeMath(n, rows, half, ElementWiseOperation::kSUB);
    ITensor& first = sliced(n, t, int64s(n, {0, 0}), joined(n, {&half, &int64s(n, {4})}), "first");
    ITensor& second = sliced(n, t, joined(n, {&half, &int64s(n, {0})}), joined(n, {&rest, &int64s(n, {4})}), "second");
    markOutput(n, sum(n, first, first, "first + first"), "y1");
    markOutput(n, product(n, second, second, "second * second"), "y2");
}

//! x [3, b, 4] for a dynamic b: t = x + x unbound along axis 0 by slices [i:i+1] whose size takes b from t's shape
//! (so their offsets i * b * 4 depend on the run's b), reshaped to [b, 4]; y = (p0 + p1) * p2.
inline void dynamicUnbindViews(INetworkDefinition& n)
{
    ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims{3, {3, -1, 4}});
    ITensor& t = sum(n, x, x, "t");
    ITensor& size = joined(n, {&int64s(n, {1}), &extents(n, t, 1, 2)});
    std::vector<ITensor*> parts;
    char const* const names[] = {"p0", "p1", "p2"};
    for (int64_t i = 0; i < 3; ++i)
    {
        ITensor& part = sliced(n, t, int64s(n, {i, 0, 0}), size, names[i]);
        IShuffleLayer* reshape = n.addShuffle(part);
        reshape->setInput(1, extents(n, t, 1, 2));
        parts.push_back(&named(reshape, (std::string(names[i]) + " rows").c_str()));
    }
    markOutput(n, product(n, sum(n, *parts[0], *parts[1], "p0 + p1"), *parts[2], "(p0 + p1) * p2"), "y");
}

//! Quarters of [-4, 4]: `count` values that differ from their neighbours and take both signs.
inline std::vector<float> quarters(size_t count, int64_t phase = 0)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = static_cast<float>((static_cast<int64_t>(i * 7) + phase * 5) % 33 - 16) * 0.25F;
    }
    return values;
}

} // namespace kiln::test::views
