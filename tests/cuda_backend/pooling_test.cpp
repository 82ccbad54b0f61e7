// The CUDA backend's Pooling layer against the CPU reference: max, average with and without padding counted, and
// the max-average blend, over 2-D and 3-D windows with strides, explicit padding (rounding down and up) and both
// SAME modes, NaN in the input, FP32 and FP16.
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

struct Window
{
    std::string name;
    Dims input;
    Dims window;
    Dims stride;
    Dims pre;
    Dims post;
    PaddingMode mode;
};

NetworkMaker poolingOf(Window const& w, PoolingType type, bool excludePadding)
{
    return [w, type, excludePadding](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, w.input);
        IPoolingLayer* layer = network.addPoolingNd(*x, type, w.window);
        layer->setStrideNd(w.stride);
        layer->setPrePadding(w.pre);
        layer->setPostPadding(w.post);
        layer->setPaddingMode(w.mode);
        layer->setAverageCountExcludesPadding(excludePadding);
        layer->setBlendFactor(0.3F);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

TEST(CudaBackendPooling, EveryTypeAndPaddingModeAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::vector<Window> const windows{
        {"2-D 3x3 stride 2 pad 1", Dims{4, {2, 3, 9, 10}}, Dims{2, {3, 3}}, Dims{2, {2, 2}}, Dims{2, {1, 1}},
            Dims{2, {1, 1}}, PaddingMode::kEXPLICIT_ROUND_DOWN},
        {"2-D 2x3 round up", Dims{4, {1, 2, 7, 8}}, Dims{2, {2, 3}}, Dims{2, {2, 2}}, Dims{2, {0, 1}}, Dims{2, {0, 0}},
            PaddingMode::kEXPLICIT_ROUND_UP},
        {"2-D same upper", Dims{4, {1, 2, 7, 6}}, Dims{2, {4, 3}}, Dims{2, {2, 1}}, Dims{2, {0, 0}}, Dims{2, {0, 0}},
            PaddingMode::kSAME_UPPER},
        {"2-D same lower", Dims{4, {1, 2, 7, 6}}, Dims{2, {4, 3}}, Dims{2, {3, 2}}, Dims{2, {0, 0}}, Dims{2, {0, 0}},
            PaddingMode::kSAME_LOWER},
        {"3-D 2x3x2", Dims{5, {1, 2, 4, 6, 5}}, Dims{3, {2, 3, 2}}, Dims{3, {1, 2, 2}}, Dims{3, {1, 0, 1}},
            Dims{3, {0, 1, 1}}, PaddingMode::kEXPLICIT_ROUND_DOWN},
        {"global 2-D", Dims{4, {2, 3, 5, 7}}, Dims{2, {5, 7}}, Dims{2, {1, 1}}, Dims{2, {0, 0}}, Dims{2, {0, 0}},
            PaddingMode::kEXPLICIT_ROUND_DOWN},
    };
    for (Window const& w : windows)
    {
        int64_t count = 1;
        std::vector<int64_t> shape;
        for (int32_t d = 0; d < w.input.nbDims; ++d)
        {
            count *= w.input.d[d];
            shape.push_back(w.input.d[d]);
        }
        // A descending-then-ascending ramp so maxima fall at different window positions.
        std::vector<float> values = spread(static_cast<size_t>(count), -5.0F, 5.0F);
        for (size_t i = 0; i < values.size(); i += 3)
        {
            values[i] = -values[i];
        }
        HostTensor const x = fromFloats(shape, values);
        for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE, PoolingType::kMAX_AVERAGE_BLEND})
        {
            for (bool exclude : {true, false})
            {
                for (bool fp16 : {false, true})
                {
                    expectBackendsAgree(poolingOf(w, type, exclude), {{"x", x}}, fp16,
                        w.name + " type " + std::to_string(static_cast<int32_t>(type)) + (exclude ? " excl" : " incl")
                            + (fp16 ? " fp16" : ""));
                }
            }
        }
    }
}

TEST(CudaBackendPooling, NanPropagatesThroughMaxAndAverage)
{
    SKIP_WITHOUT_GPU();
    std::vector<float> values = spread(16, -2.0F, 2.0F);
    values[5] = NAN;
    Window const w{"nan", Dims{4, {1, 1, 4, 4}}, Dims{2, {2, 2}}, Dims{2, {1, 1}}, Dims{2, {0, 0}}, Dims{2, {0, 0}},
        PaddingMode::kEXPLICIT_ROUND_DOWN};
    for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE, PoolingType::kMAX_AVERAGE_BLEND})
    {
        expectBackendsAgree(poolingOf(w, type, true), {{"x", fromFloats({1, 1, 4, 4}, values)}}, false,
            "nan type " + std::to_string(static_cast<int32_t>(type)));
    }
}

} // namespace
