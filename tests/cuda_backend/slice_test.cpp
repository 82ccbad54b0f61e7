// The CUDA backend's Slice layer against the CPU reference: static start/size/stride with positive, negative and
// zero strides in every SampleMode, a fill value from a tensor, start and stride from tensors (read on the device),
// INT32 and FP16 data, and an empty output inside a network; slices that copy runs of their input (inside it, a step
// of one along the innermost axis) in vectors of every width their alignment allows; channels-last (kHWC) slices, as
// a channels-last region runs them, with start and stride from parameters or device tensors.
#include "backend_comparison.h"
#include "kernel_comparison.h"

#include "network/layers/slice.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

struct Case
{
    std::string name;
    Dims start;
    Dims size;
    Dims stride;
    SampleMode mode;
};

NetworkMaker sliceOf(Case const& c, DataType type, Dims const& input = Dims{3, {3, 4, 5}})
{
    return [c, type, input](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, input);
        // The network checks kSTRICT_BOUNDS when the layer is added: add an in-bounds slice, then set the mode first.
        ISliceLayer* layer = network.addSlice(*x, Dims{3, {0, 0, 0}}, Dims{3, {1, 1, 1}}, Dims{3, {1, 1, 1}});
        layer->setMode(c.mode);
        layer->setStart(c.start);
        layer->setStride(c.stride); // before the size, so that each step stays within a kSTRICT_BOUNDS input
        layer->setSize(c.size);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

TEST(CudaBackendSlice, EverySampleModeAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::vector<Case> const cases{
        {"strict", Dims{3, {1, 0, 1}}, Dims{3, {2, 2, 3}}, Dims{3, {1, 2, 1}}, SampleMode::kSTRICT_BOUNDS},
        {"strict reversed", Dims{3, {2, 3, 4}}, Dims{3, {3, 4, 5}}, Dims{3, {-1, -1, -1}}, SampleMode::kSTRICT_BOUNDS},
        {"strict repeated", Dims{3, {1, 2, 0}}, Dims{3, {2, 3, 5}}, Dims{3, {0, 0, 1}}, SampleMode::kSTRICT_BOUNDS},
        {"wrap", Dims{3, {-2, 1, 3}}, Dims{3, {7, 9, 11}}, Dims{3, {1, 2, -1}}, SampleMode::kWRAP},
        {"clamp", Dims{3, {-2, -1, 3}}, Dims{3, {7, 9, 6}}, Dims{3, {1, 1, 1}}, SampleMode::kCLAMP},
        {"fill", Dims{3, {-1, 2, -2}}, Dims{3, {5, 4, 9}}, Dims{3, {1, 1, 1}}, SampleMode::kFILL},
        {"reflect", Dims{3, {-4, -5, 2}}, Dims{3, {11, 13, 12}}, Dims{3, {1, 1, -1}}, SampleMode::kREFLECT},
    };
    std::vector<int32_t> ints(60);
    for (int32_t i = 0; i < 60; ++i)
    {
        ints[static_cast<size_t>(i)] = 3 * i - 50;
    }
    HostTensor const floats = fromFloats({3, 4, 5}, spread(60, -3.0F, 4.0F));
    HostTensor const integers = fromElements({3, 4, 5}, ints, DataType::kINT32);
    for (Case const& c : cases)
    {
        expectBackendsAgree(sliceOf(c, DataType::kFLOAT), {{"x", floats}}, false, c.name);
        expectBackendsAgree(sliceOf(c, DataType::kFLOAT), {{"x", floats}}, true, c.name + " fp16");
        expectBackendsAgree(sliceOf(c, DataType::kINT32), {{"x", integers}}, false, c.name + " int32");
    }
}

TEST(CudaBackendSlice, RunsOfTheInputAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Rows of 48: FP16 parts of 16 elements are 32 bytes, copied 16 bytes at a time; odd starts and sizes narrow the
    // vectors down to one element.
    std::vector<Case> const cases{
        {"a split's middle part", Dims{3, {0, 0, 16}}, Dims{3, {4, 6, 16}}, Dims{3, {1, 1, 1}},
            SampleMode::kSTRICT_BOUNDS},
        {"odd start and size", Dims{3, {1, 1, 3}}, Dims{3, {2, 4, 7}}, Dims{3, {1, 1, 1}}, SampleMode::kSTRICT_BOUNDS},
        {"outer axes reversed", Dims{3, {3, 5, 8}}, Dims{3, {4, 6, 24}}, Dims{3, {-1, -1, 1}}, SampleMode::kWRAP},
        {"every other row", Dims{3, {0, 1, 0}}, Dims{3, {4, 3, 48}}, Dims{3, {1, 2, 1}}, SampleMode::kCLAMP},
        {"whole rows, axes merged", Dims{3, {1, 0, 0}}, Dims{3, {2, 6, 48}}, Dims{3, {1, 1, 1}}, SampleMode::kFILL},
        {"a row repeated", Dims{3, {2, 3, 4}}, Dims{3, {3, 2, 40}}, Dims{3, {0, 0, 1}}, SampleMode::kREFLECT},
    };
    Dims const input{3, {4, 6, 48}};
    std::vector<int32_t> ints(4 * 6 * 48);
    for (size_t i = 0; i < ints.size(); ++i)
    {
        ints[i] = 7 * static_cast<int32_t>(i) - 500;
    }
    HostTensor const floats = fromFloats({4, 6, 48}, spread(4 * 6 * 48, -3.0F, 4.0F));
    HostTensor const integers = fromElements({4, 6, 48}, ints, DataType::kINT32);
    for (Case const& c : cases)
    {
        expectBackendsAgree(sliceOf(c, DataType::kFLOAT, input), {{"x", floats}}, false, c.name);
        expectBackendsAgree(sliceOf(c, DataType::kFLOAT, input), {{"x", floats}}, true, c.name + " fp16");
        expectBackendsAgree(sliceOf(c, DataType::kINT32, input), {{"x", integers}}, false, c.name + " int32");
    }
}

TEST(CudaBackendSlice, StartStrideAndFillFromTensors)
{
    SKIP_WITHOUT_GPU();
    static std::vector<int32_t> const start{-1, 3, 5};
    static std::vector<int32_t> const stride{1, -1, -2};
    static std::vector<float> const fill{7.25F};
    for (SampleMode mode : {SampleMode::kFILL, SampleMode::kWRAP, SampleMode::kCLAMP, SampleMode::kREFLECT})
    {
        NetworkMaker const maker = [mode](INetworkDefinition& network) {
            ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{3, {3, 4, 5}});
            IConstantLayer* starts = network.addConstant(Dims{1, {3}}, Weights{DataType::kINT32, start.data(), 3});
            IConstantLayer* strides = network.addConstant(Dims{1, {3}}, Weights{DataType::kINT32, stride.data(), 3});
            ISliceLayer* layer = network.addSlice(*x, Dims{3, {0, 0, 0}}, Dims{3, {1, 1, 1}}, Dims{3, {1, 1, 1}});
            layer->setMode(mode); // before the size, which leaves the input's bounds
            layer->setSize(Dims{3, {4, 5, 4}});
            layer->setInput(1, *starts->getOutput(0));
            layer->setInput(3, *strides->getOutput(0));
            if (mode == SampleMode::kFILL)
            {
                IConstantLayer* value = network.addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, fill.data(), 1});
                layer->setInput(4, *value->getOutput(0));
            }
            layer->getOutput(0)->setName("y");
            network.markOutput(*layer->getOutput(0));
        };
        HostTensor const x = fromFloats({3, 4, 5}, spread(60, -3.0F, 4.0F));
        std::string const what = "tensor parameters, mode " + std::to_string(static_cast<int32_t>(mode));
        expectBackendsAgree(maker, {{"x", x}}, false, what);
        expectBackendsAgree(maker, {{"x", x}}, true, what + " fp16");
    }
}

//! The kernel over a kHWC input and output against the CPU reference over the same values stored kLINEAR, start and
//! stride given as parameters, or (`fromTensors`) as INT32 device tensors, one value per axis in the axes' own order.
void expectChannelsLastSliceAgrees(kiln::network::SliceParams const& params, HostTensor const& x, bool fromTensors)
{
    SCOPED_TRACE(std::string(fromTensors ? "start and stride from tensors" : "start and stride as parameters")
        + ", mode " + std::to_string(static_cast<int32_t>(params.mode)) + ", " + kiln::dataTypeName(x.type));
    kiln::Shape const shape(params.size.d, params.size.d + params.size.nbDims);
    HostTensor expected = zeros(shape, x.type);
    kiln::cpu::run(params, {x.constView()}, {expected.view()});

    DeviceTensor const input(reorderedChannels(x, true));
    std::vector<int32_t> const start(params.start.d, params.start.d + params.start.nbDims);
    std::vector<int32_t> const stride(params.stride.d, params.stride.d + params.stride.nbDims);
    DeviceTensor const starts(fromElements({4}, start, DataType::kINT32));
    DeviceTensor const strides(fromElements({4}, stride, DataType::kINT32));
    DeviceTensor const output(shape, x.type);
    kiln::cuda::LayerInputs inputs{input.constView()};
    inputs.front().format = TensorFormat::kHWC;
    if (fromTensors)
    {
        inputs.push_back(starts.constView());
        inputs.push_back(kiln::ConstTensorView{}); // the size is the output's shape
        inputs.push_back(strides.constView());
    }
    kiln::TensorView outputView = output.view();
    outputView.format = TensorFormat::kHWC;
    std::unique_ptr<kiln::cuda::DeviceLayer> const layer = runOnDevice(params, inputs, {outputView});
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(reorderedChannels(output.read(), false).bytes, expected.bytes);
    EXPECT_TRUE(output.guardsIntact());
}

TEST(CudaBackendSlice, ChannelsLastAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    struct ChannelsLastCase
    {
        Dims start;
        Dims size;
        Dims stride;
        SampleMode mode;
    };
    std::vector<ChannelsLastCase> const cases{
        {Dims{4, {0, 3, 0, 0}}, Dims{4, {2, 3, 4, 5}}, Dims{4, {1, 1, 1, 1}}, SampleMode::kSTRICT_BOUNDS}, // a split
        {Dims{4, {1, 5, 3, 0}}, Dims{4, {1, 3, 2, 3}}, Dims{4, {1, -2, -1, 2}}, SampleMode::kSTRICT_BOUNDS},
        {Dims{4, {0, -1, -1, 0}}, Dims{4, {2, 8, 6, 5}}, Dims{4, {1, 1, 1, 1}}, SampleMode::kFILL}, // a pad
        {Dims{4, {0, 4, 2, 1}}, Dims{4, {2, 5, 3, 7}}, Dims{4, {1, 1, 1, 1}}, SampleMode::kWRAP},
    };
    for (DataType type : {DataType::kHALF, DataType::kFLOAT})
    {
        HostTensor const x = fromFloats({2, 6, 4, 5}, scattered(240, -3.0F, 3.0F), type);
        for (ChannelsLastCase const& c : cases)
        {
            kiln::network::SliceParams params;
            params.start = c.start;
            params.size = c.size;
            params.stride = c.stride;
            params.mode = c.mode;
            for (bool fromTensors : {false, true})
            {
                expectChannelsLastSliceAgrees(params, x, fromTensors);
            }
        }
    }
}

} // namespace
