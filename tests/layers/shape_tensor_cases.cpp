// The shape-tensor cases both backends run (shape_tensor_cases.h), and the runner. Runs are [a, b] = [2, 3], [4, 7]
// and [3, 1]: the shapes change from run to run, and each run's expectations are worked out by hand beside it.
#include "shape_tensor_cases.h"

#include <cstring>
#include <numeric>

namespace kiln::test::shape_tensors
{
namespace
{

using EW = ElementWiseOperation;

//! 0, 1, ..., count - 1: a reshape keeps them in order.
std::vector<double> countTo(size_t count)
{
    std::vector<double> values(count);
    std::iota(values.begin(), values.end(), 0.0);
    return values;
}

size_t volumeOf(std::vector<int64_t> const& shape)
{
    return std::accumulate(shape.begin(), shape.end(), size_t{1},
        [](size_t product, int64_t extent) { return product * static_cast<size_t>(extent); });
}

Case elementwiseArithmetic()
{
    return Case{"ElementWiseArithmetic",
        [](INetworkDefinition& n, ITensor& ab) {
            shapeOutput(n, binary(n, ab, ints(n, {3, 2}), EW::kSUM), "sum");
            shapeOutput(n, binary(n, ab, ints(n, {1, 1}), EW::kSUB), "difference");
            shapeOutput(n, binary(n, ab, ints(n, {2, 1}), EW::kPROD), "product");
            shapeOutput(n, binary(n, ab, ints(n, {3, 3}), EW::kMIN), "least");
            shapeOutput(n, binary(n, ab, ints(n, {3, 3}), EW::kMAX), "greatest");
        },
        {at(2, 3,
             {{"sum", {5, 5}}, {"difference", {1, 2}}, {"product", {4, 3}}, {"least", {2, 3}}, {"greatest", {3, 3}}}),
            at(4, 7,
                {{"sum", {7, 9}}, {"difference", {3, 6}}, {"product", {8, 7}}, {"least", {3, 3}},
                    {"greatest", {4, 7}}}),
            // b - 1 = 0: a fill with an empty extent
            at(3, 1,
                {{"sum", {6, 3}}, {"difference", {2, 0}}, {"product", {6, 1}}, {"least", {3, 1}},
                    {"greatest", {3, 3}}})}};
}

// kDIV rounds integer quotients toward zero, kFLOOR_DIV down: they differ on negative inexact quotients, which
// (1 - [a, b]) / 2 makes. The quotients plus [a, b] are the shapes.
Case elementwiseDivision()
{
    return Case{"ElementWiseDivision",
        [](INetworkDefinition& n, ITensor& ab) {
            ITensor& negative = binary(n, ints(n, {1, 1}), ab, EW::kSUB);
            ITensor& truncated = binary(n, negative, ints(n, {2, 2}), EW::kDIV);
            ITensor& floored = binary(n, negative, ints(n, {2, 2}), EW::kFLOOR_DIV);
            output(n, truncated, "truncated");
            output(n, floored, "floored");
            shapeOutput(n, binary(n, truncated, ab, EW::kSUM), "truncated_plus_ab");
            shapeOutput(n, binary(n, floored, ab, EW::kSUM), "floored_plus_ab");
            shapeOutput(n, binary(n, ints(n, {7, 7}), ab, EW::kDIV), "ratio"); // by the shape values
        },
        {at(2, 3, {{"truncated_plus_ab", {2, 2}}, {"floored_plus_ab", {1, 2}}, {"ratio", {3, 2}}},
             {vector("truncated", {0, -1}), vector("floored", {-1, -1})}), // -1/2, -2/2
            at(4, 7, {{"truncated_plus_ab", {3, 4}}, {"floored_plus_ab", {2, 4}}, {"ratio", {1, 1}}},
                {vector("truncated", {-1, -3}), vector("floored", {-2, -3})}), // -3/2, -6/2
            at(3, 1, {{"truncated_plus_ab", {2, 1}}, {"floored_plus_ab", {2, 1}}, {"ratio", {2, 7}}},
                {vector("truncated", {-1, 0}), vector("floored", {-1, 0})})}}; // -2/2, 0/2
}

//! 1 + a BOOL shape tensor (0 or 1) as INT32: a shape of 1s and 2s.
ITensor& onePlus(INetworkDefinition& n, ITensor& flags)
{
    return binary(n, cast(n, flags, DataType::kINT32), ints(n, {1, 1}), EW::kSUM);
}

// Comparisons make BOOL shape tensors (exporters pick shape entries with them); each against [3, 3].
Case comparisons()
{
    return Case{"Comparisons",
        [](INetworkDefinition& n, ITensor& ab) {
            char const* const names[] = {"equal", "less", "greater"};
            EW const ops[] = {EW::kEQUAL, EW::kLESS, EW::kGREATER};
            for (int32_t i = 0; i < 3; ++i)
            {
                ITensor& flags = binary(n, ab, ints(n, {3, 3}), ops[i]);
                output(n, flags, names[i]);
                shapeOutput(n, onePlus(n, flags), (std::string(names[i]) + "_shape").c_str());
            }
        },
        {at(2, 3, {{"equal_shape", {1, 2}}, {"less_shape", {2, 1}}, {"greater_shape", {1, 1}}},
             {vector("equal", {0, 1}), vector("less", {1, 0}), vector("greater", {0, 0})}),
            at(4, 7, {{"equal_shape", {1, 1}}, {"less_shape", {1, 1}}, {"greater_shape", {2, 2}}},
                {vector("equal", {0, 0}), vector("less", {0, 0}), vector("greater", {1, 1})}),
            at(3, 1, {{"equal_shape", {2, 1}}, {"less_shape", {1, 2}}, {"greater_shape", {1, 1}}},
                {vector("equal", {1, 0}), vector("less", {0, 1}), vector("greater", {0, 0})})}};
}

// ABS and NEG of integer shape values, NOT of a comparison's.
Case unary()
{
    return Case{"Unary",
        [](INetworkDefinition& n, ITensor& ab) {
            ITensor& distance
                = *made(n.addUnary(binary(n, ab, ints(n, {3, 3}), EW::kSUB), UnaryOperation::kABS)).getOutput(0);
            ITensor& negated = *made(n.addUnary(ab, UnaryOperation::kNEG)).getOutput(0);
            ITensor& different
                = *made(n.addUnary(binary(n, ab, ints(n, {3, 3}), EW::kEQUAL), UnaryOperation::kNOT)).getOutput(0);
            output(n, distance, "distance");
            output(n, negated, "negated");
            output(n, different, "different");
            shapeOutput(n, binary(n, distance, ints(n, {1, 1}), EW::kSUM), "distance_plus_one");
            shapeOutput(n, binary(n, negated, ints(n, {9, 9}), EW::kSUM), "nine_minus_ab");
            shapeOutput(n, onePlus(n, different), "different_shape");
        },
        {at(2, 3, {{"distance_plus_one", {2, 1}}, {"nine_minus_ab", {7, 6}}, {"different_shape", {2, 1}}},
             {vector("distance", {1, 0}), vector("negated", {-2, -3}), vector("different", {1, 0})}),
            at(4, 7, {{"distance_plus_one", {2, 5}}, {"nine_minus_ab", {5, 2}}, {"different_shape", {2, 2}}},
                {vector("distance", {1, 4}), vector("negated", {-4, -7}), vector("different", {1, 1})}),
            at(3, 1, {{"distance_plus_one", {1, 3}}, {"nine_minus_ab", {6, 8}}, {"different_shape", {1, 2}}},
                {vector("distance", {0, 2}), vector("negated", {-3, -1}), vector("different", {0, 1})})}};
}

// INT32 -> INT64 -> FLOAT -> INT32 (the symbolic source is already an INT64 -> INT32 cast): whole numbers survive.
Case casts()
{
    return Case{"Cast",
        [](INetworkDefinition& n, ITensor& ab) {
            ITensor& wide = cast(n, ab, DataType::kINT64);
            ITensor& real = cast(n, wide, DataType::kFLOAT);
            shapeOutput(n, wide, "wide");
            output(n, real, "real");
            shapeOutput(n, cast(n, real, DataType::kINT32), "back");
        },
        {at(2, 3, {{"wide", {2, 3}}, {"back", {2, 3}}}, {vector("real", {2, 3})}),
            at(4, 7, {{"wide", {4, 7}}, {"back", {4, 7}}}, {vector("real", {4, 7})}),
            at(3, 1, {{"wide", {3, 1}}, {"back", {3, 1}}}, {vector("real", {3, 1})})}};
}

// Where [a, b] < 3, 5; else the entry itself.
Case select()
{
    return Case{"Select",
        [](INetworkDefinition& n, ITensor& ab) {
            ITensor& small = binary(n, ab, ints(n, {3, 3}), EW::kLESS);
            shapeOutput(n, *made(n.addSelect(small, ints(n, {5, 5}), ab)).getOutput(0), "raised");
        },
        {at(2, 3, {{"raised", {5, 3}}}), at(4, 7, {{"raised", {4, 7}}}), at(3, 1, {{"raised", {3, 5}}})}};
}

// An INT32 kLINSPACE of two elements from a shape value and a shape delta: [a, a + b].
Case linspaceFill()
{
    return Case{"LinspaceFill",
        [](INetworkDefinition& n, ITensor& ab) {
            IFillLayer& fill = made(n.addFill(Dims{1, {2}}, FillOperation::kLINSPACE, DataType::kINT32));
            fill.setInput(0, ints(n, {2}));
            fill.setInput(1, entry(n, ab, 0));
            fill.setInput(2, entries(n, ab, {1}));
            shapeOutput(n, *fill.getOutput(0), "range");
        },
        {at(2, 3, {{"range", {2, 5}}}), at(4, 7, {{"range", {4, 11}}}), at(3, 1, {{"range", {3, 4}}})}};
}

// What exporters write for x.expand(a, -1): ones = ConstantOfShape(Shape(target)) (a fill of 1s shaped by a shape
// tensor), then Where(Equal(target, ones * -1), ones, target) replaces the -1 of target = [a, -1] with 1.
Case constantOfShape()
{
    return Case{"ConstantOfShape",
        [](INetworkDefinition& n, ITensor& ab) {
            ITensor& target = concatenated(n, {&entries(n, ab, {0}), &ints(n, {-1})});
            IFillLayer& fill = made(n.addFill(Dims{1, {1}}, FillOperation::kLINSPACE, DataType::kINT32));
            fill.setInput(0, *made(n.addShape(target)).getOutput(0));
            fill.setAlpha(1.0);
            fill.setBeta(0.0);
            ITensor& ones = *fill.getOutput(0);
            ITensor& isMinusOne = binary(n, target, binary(n, ones, ints(n, {-1}), EW::kPROD), EW::kEQUAL);
            shapeOutput(n, ones, "ones");
            shapeOutput(n, *made(n.addSelect(isMinusOne, ones, target)).getOutput(0), "expanded");
        },
        {at(2, 3, {{"ones", {1, 1}}, {"expanded", {2, 1}}}), at(4, 7, {{"ones", {1, 1}}, {"expanded", {4, 1}}}),
            at(3, 1, {{"ones", {1, 1}}, {"expanded", {3, 1}}})}};
}

// Entries [1, 0, 1] of [a, b], and entry 1 alone as a 0-D shape tensor.
Case gather()
{
    return Case{"Gather",
        [](INetworkDefinition& n, ITensor& ab) {
            shapeOutput(n, entries(n, ab, {1, 0, 1}), "picked");
            output(n, entry(n, ab, 1), "second");
        },
        {at(2, 3, {{"picked", {3, 2, 3}}}, {scalar("second", 3)}),
            at(4, 7, {{"picked", {7, 4, 7}}}, {scalar("second", 7)}),
            at(3, 1, {{"picked", {1, 3, 1}}}, {scalar("second", 1)})}};
}

// [a, b] reversed (a step of -1), every second entry of [a, b, 6, 5], and a slice of 0..15 whose start (a - 1) and
// size (b) are shape tensors.
Case slice()
{
    return Case{"Slice",
        [](INetworkDefinition& n, ITensor& ab) {
            shapeOutput(n, *made(n.addSlice(ab, Dims{1, {1}}, Dims{1, {2}}, Dims{1, {-1}})).getOutput(0), "reversed");
            ITensor& four = concatenated(n, {&ab, &ints(n, {6, 5})});
            shapeOutput(n, *made(n.addSlice(four, Dims{1, {1}}, Dims{1, {2}}, Dims{1, {2}})).getOutput(0), "odd");
            std::vector<float> count(16);
            std::iota(count.begin(), count.end(), 0.0F);
            ISliceLayer& window = made(n.addSlice(floats(n, count), Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}));
            window.setInput(1, binary(n, entries(n, ab, {0}), ints(n, {1}), EW::kSUB));
            window.setInput(2, entries(n, ab, {1}));
            output(n, *window.getOutput(0), "window");
        },
        {at(2, 3, {{"reversed", {3, 2}}, {"odd", {3, 5}}}, {vector("window", {1, 2, 3})}),
            at(4, 7, {{"reversed", {7, 4}}, {"odd", {7, 5}}}, {vector("window", {3, 4, 5, 6, 7, 8, 9})}),
            at(3, 1, {{"reversed", {1, 3}}, {"odd", {1, 5}}}, {vector("window", {2})})}};
}

Case concatenation()
{
    return Case{"Concatenation",
        [](INetworkDefinition& n, ITensor& ab) {
            shapeOutput(n, concatenated(n, {&ab, &ints(n, {2}), &entries(n, ab, {0})}), "joined");
        },
        {at(2, 3, {{"joined", {2, 3, 2, 2}}}), at(4, 7, {{"joined", {4, 7, 2, 4}}}),
            at(3, 1, {{"joined", {3, 1, 2, 3}}})}};
}

// Squeeze b to 0-D and unsqueeze it back; [[a, b], [1, 2]] transposed and flattened; and a reshape of 0..23 to
// [a, -1] through IShuffleLayer's shape input.
Case shuffle()
{
    return Case{"Shuffle",
        [](INetworkDefinition& n, ITensor& ab) {
            ITensor& squeezed = reshaped(n, entries(n, ab, {1}), Dims{0, {}});
            output(n, squeezed, "squeezed");
            ITensor& unsqueezed = reshaped(n, squeezed, Dims{1, {1}});
            shapeOutput(n, concatenated(n, {&unsqueezed, &entries(n, ab, {0})}), "swapped");
            ITensor& matrix = reshaped(n, concatenated(n, {&ab, &ints(n, {1, 2})}), Dims{2, {2, 2}});
            IShuffleLayer& transpose = made(n.addShuffle(matrix));
            transpose.setFirstTranspose(Permutation{{1, 0}});
            transpose.setReshapeDimensions(Dims{1, {4}});
            shapeOutput(n, *transpose.getOutput(0), "transposed");
            std::vector<float> count(24);
            std::iota(count.begin(), count.end(), 0.0F);
            IShuffleLayer& reshape = made(n.addShuffle(floats(n, count)));
            reshape.setInput(1, concatenated(n, {&entries(n, ab, {0}), &ints(n, {-1})}));
            output(n, *reshape.getOutput(0), "reshaped");
        },
        {at(2, 3, {{"swapped", {3, 2}}, {"transposed", {2, 1, 3, 2}}},
             {scalar("squeezed", 3), Check{"reshaped", {2, 12}, countTo(24)}}),
            at(4, 7, {{"swapped", {7, 4}}, {"transposed", {4, 1, 7, 2}}},
                {scalar("squeezed", 7), Check{"reshaped", {4, 6}, countTo(24)}}),
            at(3, 1, {{"swapped", {1, 3}}, {"transposed", {3, 1, 1, 2}}},
                {scalar("squeezed", 1), Check{"reshaped", {3, 8}, countTo(24)}})}};
}

ITensor& reduced(INetworkDefinition& n, ITensor& input, ReduceOperation op, bool keep)
{
    return *made(n.addReduce(input, op, 1U, keep)).getOutput(0);
}

// Sums, products, maxima and minima of [a, b]: 0-D, or [1] with the reduced axis kept.
Case reduce()
{
    return Case{"Reduce",
        [](INetworkDefinition& n, ITensor& ab) {
            ITensor& sum = reduced(n, ab, ReduceOperation::kSUM, false);
            output(n, sum, "sum");
            shapeOutput(n, reduced(n, ab, ReduceOperation::kPROD, true), "product");
            ITensor& greatest = reduced(n, ab, ReduceOperation::kMAX, true);
            ITensor& least = reduced(n, ab, ReduceOperation::kMIN, true);
            shapeOutput(n, concatenated(n, {&reshaped(n, sum, Dims{1, {1}}), &greatest, &least}), "extents");
        },
        {at(2, 3, {{"product", {6}}, {"extents", {5, 3, 2}}}, {scalar("sum", 5)}),
            at(4, 7, {{"product", {28}}, {"extents", {11, 7, 4}}}, {scalar("sum", 11)}),
            at(3, 1, {{"product", {3}}, {"extents", {4, 3, 1}}}, {scalar("sum", 4)})}};
}

// One-hot of the 0-D index a - 2 over depth 3, with values [off, on] = [1, 4]; a = 1 makes the index -1, which
// counts from the end.
Case oneHot()
{
    return Case{"OneHot",
        [](INetworkDefinition& n, ITensor& ab) {
            ITensor& index = binary(n, entry(n, ab, 0), ints(n, {2}, true), EW::kSUB);
            IOneHotLayer& layer = made(n.addOneHot(index, ints(n, {1, 4}), ints(n, {3}, true), -1));
            shapeOutput(n, *layer.getOutput(0), "hot");
        },
        {at(2, 3, {{"hot", {4, 1, 1}}}), at(4, 7, {{"hot", {1, 1, 4}}}), at(3, 1, {{"hot", {1, 4, 1}}}),
            at(1, 2, {{"hot", {1, 1, 4}}})}};
}

// Building and running.

Dims dims2(int32_t a, int32_t b)
{
    return Dims{2, {a, b}};
}

//! [a, b] as INT32: Cast(Shape(x)) or the shape-tensor input "s".
ITensor& sourceOf(INetworkDefinition& network, Source source)
{
    if (source == Source::kSYMBOLIC)
    {
        ITensor* x = network.addInput("x", DataType::kFLOAT, dims2(-1, -1));
        return cast(network, *made(network.addShape(*x)).getOutput(0), DataType::kINT32);
    }
    return *network.addInput("s", DataType::kINT32, Dims{1, {2}});
}

//! What adds `c`'s network, with [a, b] from `source`.
std::function<void(INetworkDefinition&)> networkOf(Case const& c, Source source)
{
    return [&c, source](INetworkDefinition& network) { c.make(network, sourceOf(network, source)); };
}

//! Every element of `bytes` (of `type`) as a double.
std::vector<double> valuesOf(std::vector<uint8_t> const& bytes, DataType type, size_t count)
{
    std::vector<double> values;
    for (size_t i = 0; i < count; ++i)
    {
        uint8_t const* at = bytes.data() + i * kiln::elementSize(type);
        int32_t i32 = 0;
        int64_t i64 = 0;
        float f32 = 0;
        switch (type)
        {
        case DataType::kINT32:
            std::memcpy(&i32, at, 4);
            values.push_back(i32);
            break;
        case DataType::kINT64:
            std::memcpy(&i64, at, 8);
            values.push_back(static_cast<double>(i64));
            break;
        case DataType::kFLOAT:
            std::memcpy(&f32, at, 4);
            values.push_back(f32);
            break;
        case DataType::kBOOL: values.push_back(*at != 0 ? 1.0 : 0.0); break;
        default: ADD_FAILURE() << "an output of an unexpected type"; return values;
        }
    }
    return values;
}

using Buffer = std::unique_ptr<void, std::function<void(void*)>>;

//! One run in `context`: [a, b] set as x's shape or written to the shape input's memory `shapeValues`, every output
//! given a buffer of its shape, then each checked.
void runOnce(ICudaEngine const& engine, IExecutionContext& context, RecordingLogger const& logger, Run const& run,
    Buffers const& buffers, int32_t* shapeValues)
{
    std::vector<Buffer> held;
    auto const bufferFor = [&](char const* name, size_t bytes) {
        held.emplace_back(buffers.allocate(std::max<size_t>(bytes, 1)), buffers.release);
        EXPECT_TRUE(context.setTensorAddress(name, held.back().get()));
        return held.back().get();
    };
    if (shapeValues != nullptr)
    {
        shapeValues[0] = run.a; // read by every enqueue: the address was set once
        shapeValues[1] = run.b;
    }
    else
    {
        ASSERT_TRUE(context.setInputShape("x", dims2(run.a, run.b)));
        std::vector<float> x(static_cast<size_t>(run.a * run.b));
        std::iota(x.begin(), x.end(), 0.0F);
        buffers.upload(bufferFor("x", x.size() * sizeof(float)), x.data(), x.size() * sizeof(float));
    }
    ASSERT_EQ(static_cast<size_t>(engine.getNbIOTensors()), run.checks.size() + 1) << "a check for every output";
    std::vector<void*> addresses;
    for (Check const& check : run.checks)
    {
        Dims const dims = context.getTensorShape(check.name.c_str());
        ASSERT_EQ(std::vector<int64_t>(dims.d, dims.d + std::max(dims.nbDims, 0)), check.shape) << check.name;
        size_t const count = volumeOf(check.shape);
        DataType const type = engine.getTensorDataType(check.name.c_str());
        addresses.push_back(bufferFor(check.name.c_str(), count * kiln::elementSize(type)));
    }
    ASSERT_TRUE(context.enqueueV3(nullptr)) << logger.errors();
    for (size_t i = 0; i < run.checks.size(); ++i)
    {
        Check const& check = run.checks[i];
        DataType const type = engine.getTensorDataType(check.name.c_str());
        size_t const count = volumeOf(check.shape);
        std::vector<uint8_t> bytes(count * kiln::elementSize(type));
        buffers.download(bytes.data(), addresses[i], bytes.size());
        EXPECT_EQ(valuesOf(bytes, type, count), check.values) << check.name;
    }
}

} // namespace

std::vector<Case> allCases()
{
    return {elementwiseArithmetic(), elementwiseDivision(), comparisons(), unary(), casts(), select(), linspaceFill(),
        constantOfShape(), gather(), slice(), concatenation(), shuffle(), reduce(), oneHot()};
}

Buffers hostBuffers()
{
    return Buffers{[](size_t bytes) { return static_cast<void*>(new uint8_t[bytes]); },
        [](void* data) { delete[] static_cast<uint8_t*>(data); },
        [](void* to, void const* from, size_t bytes) { std::memcpy(to, from, bytes); },
        [](void* to, void const* from, size_t bytes) { std::memcpy(to, from, bytes); }};
}

std::unique_ptr<IHostMemory> buildPlan(
    RecordingLogger& logger, kiln::Backend backend, std::function<void(INetworkDefinition&)> const& make)
{
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    try
    {
        make(*network);
    }
    catch (std::runtime_error const& e)
    {
        ADD_FAILURE() << e.what() << ": " << logger.errors();
        return nullptr;
    }
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, backend);
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    int32_t const bounds[3][2] = {{1, 1}, {2, 3}, {8, 8}};
    OptProfileSelector const selectors[]
        = {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX};
    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        std::string const name = network->getInput(i)->getName();
        for (int32_t s = 0; s < 3; ++s)
        {
            if (name == "x")
            {
                profile->setDimensions("x", selectors[s], dims2(bounds[s][0], bounds[s][1]));
            }
            else if (name == "s")
            {
                profile->setShapeValues("s", selectors[s], bounds[s], 2);
            }
        }
    }
    config->addOptimizationProfile(profile);
    return std::unique_ptr<IHostMemory>(builder->buildSerializedNetwork(*network, *config));
}

std::unique_ptr<ICudaEngine> buildEngine(RecordingLogger& logger, std::unique_ptr<IRuntime>& runtime,
    kiln::Backend backend, std::function<void(INetworkDefinition&)> const& make)
{
    std::unique_ptr<IHostMemory> const plan = buildPlan(logger, backend, make);
    if (plan == nullptr)
    {
        return nullptr;
    }
    runtime.reset(createInferRuntime(logger));
    return std::unique_ptr<ICudaEngine>(runtime->deserializeCudaEngine(plan->data(), plan->size()));
}

void buildsFor(Case const& c, Source source, kiln::Backend backend)
{
    RecordingLogger logger;
    EXPECT_NE(buildPlan(logger, backend, networkOf(c, source)), nullptr) << logger.errors();
}

void runCase(Case const& c, Source source, kiln::Backend backend, Buffers const& buffers)
{
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    std::unique_ptr<ICudaEngine> engine = buildEngine(logger, runtime, backend, networkOf(c, source));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << logger.errors();
    // Shape-tensor inputs live in host memory on every backend, as in TensorRT.
    int32_t shapeValues[2] = {0, 0};
    if (source == Source::kRUN_TIME)
    {
        ASSERT_TRUE(engine->isShapeInferenceIO("s"));
        ASSERT_TRUE(context->setInputTensorAddress("s", shapeValues));
    }
    for (Run const& run : c.runs)
    {
        SCOPED_TRACE("[a, b] = [" + std::to_string(run.a) + ", " + std::to_string(run.b) + "]");
        runOnce(*engine, *context, logger, run, buffers, source == Source::kRUN_TIME ? shapeValues : nullptr);
    }
}

} // namespace kiln::test::shape_tensors
