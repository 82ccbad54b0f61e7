// The CUDA backend's Normalization layer against the CPU reference: instance, layer and group normalization (one
// weight per channel and one per group), axes masks that are not contiguous, broadcast scale and bias, epsilon, a
// requested compute precision, groups of one element, groups far longer than a block, rows few and long enough to be
// cut between blocks, many short rows sharing warps, and data whose mean dwarfs its spread (where a careless reduction
// loses the deviations). FP32 and FP16 (the kFP16 flag).
#include "backend_comparison.h"

#include <cmath>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

struct Case
{
    std::string name;
    Dims input;
    uint32_t axes;
    Dims scale;
    Dims bias;
    int64_t nbGroups{1};
    float epsilon{1e-5F};
    float offset{0.0F}; //!< added to every input value
    DataType computePrecision{DataType::kFLOAT};
};

NetworkMaker normalizationOf(Case const& c)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, c.input);
        ITensor* scale = network.addInput("scale", DataType::kFLOAT, c.scale);
        ITensor* bias = network.addInput("bias", DataType::kFLOAT, c.bias);
        INormalizationLayer* layer = network.addNormalization(*x, *scale, *bias, c.axes);
        ASSERT_NE(layer, nullptr);
        layer->setNbGroups(c.nbGroups);
        layer->setEpsilon(c.epsilon);
        layer->setComputePrecision(c.computePrecision);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

//! `count` weights from `low` towards `high` (one weight is `low`).
std::vector<float> weightsOf(size_t count, float low, float high)
{
    return count == 1 ? std::vector<float>{low} : spread(count, low, high);
}

std::map<std::string, HostTensor> inputsOf(Case const& c)
{
    // Uneven values (not a ramp, whose groups would all look alike), different in every group.
    std::vector<float> x(volumeOf(c.input));
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = c.offset + 3.0F * std::sin(0.7F * static_cast<float>(i)) + 0.1F * static_cast<float>(i % 7);
    }
    return {{"x", fromFloats(shapeOf(c.input), x)},
        {"scale", fromFloats(shapeOf(c.scale), weightsOf(volumeOf(c.scale), 0.5F, 1.5F))},
        {"bias", fromFloats(shapeOf(c.bias), weightsOf(volumeOf(c.bias), -1.0F, 1.0F))}};
}

void expectAgreement(std::vector<Case> const& cases)
{
    for (Case const& c : cases)
    {
        std::map<std::string, HostTensor> const inputs = inputsOf(c);
        expectBackendsAgree(normalizationOf(c), inputs, false, c.name);
        expectBackendsAgree(normalizationOf(c), inputs, true, c.name + " fp16");
    }
}

constexpr uint32_t axis(int32_t a)
{
    return 1U << a;
}

TEST(CudaBackendNormalization, InstanceAndLayerNormalization)
{
    SKIP_WITHOUT_GPU();
    expectAgreement({
        {"instance 4-D", Dims{4, {2, 3, 5, 7}}, axis(2) | axis(3), Dims{4, {1, 3, 1, 1}}, Dims{4, {1, 3, 1, 1}}},
        {"instance 3-D", Dims{3, {2, 5, 13}}, axis(2), Dims{3, {1, 5, 1}}, Dims{3, {1, 5, 1}}},
        {"layer, last axis", Dims{3, {3, 4, 37}}, axis(2), Dims{3, {1, 1, 37}}, Dims{3, {1, 1, 37}}},
        {"layer, last two axes", Dims{3, {3, 4, 37}}, axis(1) | axis(2), Dims{3, {1, 4, 37}}, Dims{3, {1, 4, 37}}},
        {"every axis", Dims{3, {3, 5, 7}}, axis(0) | axis(1) | axis(2), Dims{3, {1, 1, 1}}, Dims{3, {3, 5, 7}}},
        {"scale and bias broadcast differently", Dims{3, {2, 9, 11}}, axis(1) | axis(2), Dims{3, {1, 1, 11}},
            Dims{3, {1, 9, 1}}},
    });
}

TEST(CudaBackendNormalization, GroupNormalization)
{
    SKIP_WITHOUT_GPU();
    expectAgreement({
        {"one weight per channel", Dims{4, {2, 6, 5, 3}}, axis(2) | axis(3), Dims{4, {1, 6, 1, 1}},
            Dims{4, {1, 6, 1, 1}}, 3},
        {"one weight per group", Dims{4, {2, 6, 5, 3}}, axis(2) | axis(3), Dims{4, {1, 3, 1, 1}}, Dims{4, {1, 3, 1, 1}},
            3},
        {"per-group scale, per-channel bias", Dims{4, {2, 6, 5, 3}}, axis(2) | axis(3), Dims{4, {1, 3, 1, 1}},
            Dims{4, {1, 6, 1, 1}}, 3},
        {"axis 1 in the mask", Dims{4, {2, 6, 5, 3}}, axis(1) | axis(2) | axis(3), Dims{4, {1, 6, 1, 1}},
            Dims{4, {1, 6, 1, 1}}, 2},
        {"as many groups as channels", Dims{4, {2, 4, 3, 3}}, axis(2) | axis(3), Dims{4, {1, 4, 1, 1}},
            Dims{4, {1, 4, 1, 1}}, 4},
        {"3-D", Dims{3, {3, 10, 7}}, axis(2), Dims{3, {1, 10, 1}}, Dims{3, {1, 10, 1}}, 5},
    });
}

TEST(CudaBackendNormalization, MasksEpsilonAndPrecision)
{
    SKIP_WITHOUT_GPU();
    expectAgreement({
        {"axes 0 and 2", Dims{4, {4, 3, 5, 2}}, axis(0) | axis(2), Dims{4, {4, 1, 5, 1}}, Dims{4, {4, 1, 5, 1}}},
        {"axes 1 and 3", Dims{4, {4, 3, 5, 2}}, axis(1) | axis(3), Dims{4, {1, 3, 1, 2}}, Dims{4, {1, 1, 1, 1}}},
        {"groups of one element", Dims{4, {2, 3, 1, 1}}, axis(2) | axis(3), Dims{4, {1, 3, 1, 1}},
            Dims{4, {1, 3, 1, 1}}},
        {"large epsilon", Dims{3, {2, 3, 17}}, axis(2), Dims{3, {1, 1, 17}}, Dims{3, {1, 1, 17}}, 1, 0.5F},
        {"half compute precision asked", Dims{3, {2, 3, 17}}, axis(2), Dims{3, {1, 1, 17}}, Dims{3, {1, 1, 17}}, 1,
            1e-5F, 0.0F, DataType::kHALF},
    });
}

TEST(CudaBackendNormalization, GroupsLongerThanABlock)
{
    SKIP_WITHOUT_GPU();
    expectAgreement({
        {"layer over 5000", Dims{2, {2, 5000}}, axis(1), Dims{2, {1, 5000}}, Dims{2, {1, 5000}}},
        {"layer over 3 x 3000", Dims{3, {2, 3, 3000}}, axis(1) | axis(2), Dims{3, {1, 3, 3000}}, Dims{3, {1, 3, 3000}}},
        {"instance over 97 x 101", Dims{4, {1, 2, 97, 101}}, axis(2) | axis(3), Dims{4, {1, 2, 1, 1}},
            Dims{4, {1, 2, 1, 1}}},
        {"group over 4 x 40 x 41", Dims{4, {2, 8, 40, 41}}, axis(2) | axis(3), Dims{4, {1, 8, 1, 1}},
            Dims{4, {1, 8, 1, 1}}, 2},
        {"first axis over 3001", Dims{2, {3001, 3}}, axis(0), Dims{2, {3001, 1}}, Dims{2, {1, 3}}},
    });
}

TEST(CudaBackendNormalization, FewLongRowsCutIntoChunks)
{
    SKIP_WITHOUT_GPU();
    // Rows too long for a block and too few to fill the GPU are cut into chunks, a block each: PoolFormer's group
    // normalization of one group, as exported (a row per image of 64 x 56 x 56), a row that no chunk length divides,
    // and one whose mean dwarfs its spread.
    expectAgreement({
        {"one group of 64 x 56 x 56", Dims{3, {2, 1, 64 * 56 * 56}}, axis(2), Dims{3, {1, 1, 1}}, Dims{3, {1, 1, 1}}},
        {"three rows of 70001", Dims{2, {3, 70001}}, axis(1), Dims{2, {1, 70001}}, Dims{2, {1, 70001}}},
        {"offset rows of 50000", Dims{2, {2, 50000}}, axis(1), Dims{2, {1, 1}}, Dims{2, {1, 1}}, 1, 1e-5F, 1000.0F},
    });
}

TEST(CudaBackendNormalization, ManyShortRowsSeveralToAWarp)
{
    SKIP_WITHOUT_GPU();
    // Rows enough to fill the GPU (2048 or more) of a warp's packs or fewer share warps, a power of two of lanes each:
    // 3 values (4 lanes, elements one by one), 8 (2 FP32 packs, 1 FP16 pack), 40 (10 and 5 packs, 16 and 8 lanes), 96
    // (ConvNeXt's first stage: 24 and 12 packs), 4 x 24 over two axes; row counts that leave the last warp part-filled.
    expectAgreement({
        {"2049 rows of 3", Dims{2, {2049, 3}}, axis(1), Dims{2, {1, 3}}, Dims{2, {1, 3}}},
        {"3001 rows of 8", Dims{2, {3001, 8}}, axis(1), Dims{2, {1, 8}}, Dims{2, {1, 8}}},
        {"2050 rows of 40", Dims{2, {2050, 40}}, axis(1), Dims{2, {1, 40}}, Dims{2, {1, 40}}},
        {"4097 rows of 96", Dims{3, {17, 241, 96}}, axis(2), Dims{3, {1, 1, 96}}, Dims{3, {1, 1, 96}}},
        {"2051 rows of 4 x 24", Dims{3, {2051, 4, 24}}, axis(1) | axis(2), Dims{3, {1, 4, 24}}, Dims{3, {1, 4, 24}}},
        {"offset rows of 96", Dims{2, {2053, 96}}, axis(1), Dims{2, {1, 96}}, Dims{2, {1, 96}}, 1, 1e-5F, 1000.0F},
    });
}

TEST(CudaBackendNormalization, MeanFarFromZero)
{
    SKIP_WITHOUT_GPU();
    // Values 1000 +- 3: a float sum of thousands of them loses the deviations' digits; the GPU must not.
    expectAgreement({
        {"offset layer", Dims{2, {2, 4096}}, axis(1), Dims{2, {1, 4096}}, Dims{2, {1, 4096}}, 1, 1e-5F, 1000.0F},
        {"offset group", Dims{4, {1, 4, 30, 50}}, axis(2) | axis(3), Dims{4, {1, 4, 1, 1}}, Dims{4, {1, 4, 1, 1}}, 2,
            1e-5F, 1000.0F},
    });
}

} // namespace
