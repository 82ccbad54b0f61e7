// The fast path's quantize and dequantize layers of one scale (fast/quantization.cpp) against the reference kernels:
// the same bits, for values within rounding of a half-way point between two INT8 steps, saturating ones, infinities,
// NaN and -0.
#include "fast_path_comparison.h"
#include "qdq_builder.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

TEST(FastQuantization, QuantizeAndDequantizeGiveTheReferencesBits)
{
    Shape const shape{1, 4, 32, 33};
    auto maker = [&](INetworkDefinition& network) {
        Builder build(network);
        ITensor& y = build.pair(build.input("x", shape), {0.1F}, "x");
        y.setName("y");
        network.markOutput(y);
    };
    // Steps of 0.05 by a scale of 0.1 put every other value within rounding of a tie (x / 0.1 lands on either side
    // of it), from far below the codes' range to far above; every ninth value is one of the specials.
    float const infinity = std::numeric_limits<float>::infinity();
    std::vector<float> const specials{std::numeric_limits<float>::quiet_NaN(), infinity, -infinity, 1e30F, -1e30F,
        -0.0F, 12.75F, -12.85F, 12.749999F, -12.850001F};
    std::vector<float> values(static_cast<size_t>(volume(shape)));
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = i % 9 == 0 ? specials[(i / 9) % specials.size()] : static_cast<float>(i % 4000) * 0.05F - 100.0F;
    }
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", fromFloats(shape, values)}}}, Tolerance(0.0));
    EXPECT_EQ(layersNamed(layers, {"q x", "dq x"}), (std::map<std::string, bool>{{"q x", true}, {"dq x", true}}));
}

} // namespace
} // namespace kiln::test
