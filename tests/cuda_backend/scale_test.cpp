// The CUDA backend's Scale layer against the CPU reference: uniform, per-channel and per-element weights, every
// combination of shift, scale and power, channel axes 1 and 2, FP32 and FP16.
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

TEST(CudaBackendScale, EveryModeAndWeightCombination)
{
    SKIP_WITHOUT_GPU();
    std::vector<int64_t> const shape{2, 3, 4, 5};
    // Some shifted values turn negative, so fractional powers give NaN there too: both backends must agree on it.
    HostTensor const x = fromFloats(shape, spread(120, 0.1F, 3.0F));
    for (ScaleMode mode : {ScaleMode::kUNIFORM, ScaleMode::kCHANNEL, ScaleMode::kELEMENTWISE})
    {
        for (int32_t channelAxis : {1, 2})
        {
            int64_t count = 1;
            if (mode == ScaleMode::kCHANNEL)
            {
                count = shape[static_cast<size_t>(channelAxis)];
            }
            else if (mode == ScaleMode::kELEMENTWISE)
            {
                for (size_t d = static_cast<size_t>(channelAxis); d < shape.size(); ++d)
                {
                    count *= shape[d];
                }
            }
            auto const shifts
                = std::make_shared<std::vector<float>>(spread(static_cast<size_t>(count) + 1, -1.0F, 1.0F));
            auto const scales
                = std::make_shared<std::vector<float>>(spread(static_cast<size_t>(count) + 1, 0.5F, 2.0F));
            auto const powers
                = std::make_shared<std::vector<float>>(spread(static_cast<size_t>(count) + 1, 0.5F, 2.0F));
            for (int32_t present = 1; present < 8; ++present) // bit 0 shift, bit 1 scale, bit 2 power
            {
                NetworkMaker const maker = [=](INetworkDefinition& network) {
                    ITensor* input = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 4, 5}});
                    auto weights = [count](std::vector<float> const& values, bool given) {
                        return given ? Weights{DataType::kFLOAT, values.data(), count}
                                     : Weights{DataType::kFLOAT, nullptr, 0};
                    };
                    IScaleLayer* layer = network.addScaleNd(*input, mode, weights(*shifts, present & 1),
                        weights(*scales, present & 2), weights(*powers, present & 4), channelAxis);
                    layer->getOutput(0)->setName("y");
                    network.markOutput(*layer->getOutput(0));
                };
                std::string const what = "mode " + std::to_string(static_cast<int32_t>(mode)) + " axis "
                    + std::to_string(channelAxis) + " weights " + std::to_string(present);
                expectBackendsAgree(maker, {{"x", x}}, false, what);
                expectBackendsAgree(maker, {{"x", x}}, true, what + " fp16");
            }
        }
    }
}

} // namespace
