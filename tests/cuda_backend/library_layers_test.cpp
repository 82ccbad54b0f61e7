// Convolution and deconvolution (cuDNN) and matrix multiply (cuBLASLt) on the CUDA backend
// against the CPU reference: strides, padding, dilation, groups, bias, 1-D and 3-D filters;
// transposes, vectors and batch broadcasting; FP32 and FP16.
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

struct ConvolutionCase
{
    char const* name;
    Dims input;
    int64_t outputMaps;
    Dims kernel;
    Dims stride;
    Dims padding;
    Dims dilation;
    int64_t groups;
    bool bias;
};

//! Builds case `c` as a convolution, or a deconvolution when `transposed` (kernel [C, K / groups, k...]), and
//! compares the backends in FP32 and FP16.
void expectFilterLayerAgrees(ConvolutionCase const& c, bool transposed)
{
    int64_t const channels = c.input.d[1];
    int64_t kernelCount = c.outputMaps * channels / c.groups;
    for (int32_t i = 0; i < c.kernel.nbDims; ++i)
    {
        kernelCount *= c.kernel.d[i];
    }
    auto const kernel = std::make_shared<std::vector<float>>(spread(static_cast<size_t>(kernelCount), -0.5F, 0.6F));
    auto const bias = std::make_shared<std::vector<float>>(spread(static_cast<size_t>(c.outputMaps), -1.0F, 1.0F));
    NetworkMaker const maker = [c, kernel, bias, transposed](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, c.input);
        Weights const k{DataType::kFLOAT, kernel->data(), static_cast<int64_t>(kernel->size())};
        Weights const b = c.bias ? Weights{DataType::kFLOAT, bias->data(), static_cast<int64_t>(bias->size())}
                                 : Weights{};
        ILayer* layer = nullptr;
        if (transposed)
        {
            IDeconvolutionLayer* deconv = network.addDeconvolutionNd(*x, c.outputMaps, c.kernel, k, b);
            deconv->setStrideNd(c.stride);
            deconv->setPaddingNd(c.padding);
            deconv->setDilationNd(c.dilation);
            deconv->setNbGroups(c.groups);
            layer = deconv;
        }
        else
        {
            IConvolutionLayer* conv = network.addConvolutionNd(*x, c.outputMaps, c.kernel, k, b);
            conv->setStrideNd(c.stride);
            conv->setPaddingNd(c.padding);
            conv->setDilationNd(c.dilation);
            conv->setNbGroups(c.groups);
            layer = conv;
        }
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
    int64_t elements = 1;
    for (int32_t i = 0; i < c.input.nbDims; ++i)
    {
        elements *= c.input.d[i];
    }
    HostTensor const x = fromFloats(std::vector<int64_t>(c.input.d, c.input.d + c.input.nbDims),
        spread(static_cast<size_t>(elements), -2.0F, 2.0F));
    for (bool fp16 : {false, true})
    {
        expectBackendsAgree(maker, {{"x", x}}, fp16,
            std::string(transposed ? "deconvolution " : "convolution ") + c.name + (fp16 ? " fp16" : ""));
    }
}

std::vector<ConvolutionCase> const kFilterCases{
    {"3x3 same", Dims{4, {2, 3, 9, 9}}, 8, Dims{2, {3, 3}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}, 1, true},
    {"7x7 stride 2", Dims{4, {1, 3, 17, 15}}, 4, Dims{2, {7, 7}}, Dims{2, {2, 2}}, Dims{2, {3, 3}}, Dims{2, {1, 1}}, 1,
        true},
    {"1x1 no bias", Dims{4, {3, 16, 5, 5}}, 12, Dims{2, {1, 1}}, Dims{2, {1, 1}}, Dims{2, {0, 0}}, Dims{2, {1, 1}}, 1,
        false},
    {"grouped", Dims{4, {2, 8, 6, 7}}, 12, Dims{2, {3, 3}}, Dims{2, {1, 2}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}, 4, true},
    {"depthwise", Dims{4, {1, 6, 8, 8}}, 6, Dims{2, {3, 3}}, Dims{2, {2, 2}}, Dims{2, {1, 1}}, Dims{2, {1, 1}}, 6,
        true},
    {"dilated", Dims{4, {1, 2, 11, 11}}, 3, Dims{2, {3, 3}}, Dims{2, {1, 1}}, Dims{2, {2, 2}}, Dims{2, {2, 2}}, 1,
        true},
    {"1-D", Dims{3, {2, 4, 20}}, 5, Dims{1, {5}}, Dims{1, {2}}, Dims{1, {2}}, Dims{1, {1}}, 1, true},
    {"3-D", Dims{5, {1, 2, 5, 6, 7}}, 3, Dims{3, {3, 3, 3}}, Dims{3, {1, 1, 1}}, Dims{3, {1, 1, 1}}, Dims{3, {1, 1, 1}},
        1, true},
};

TEST(CudaLibraryLayers, ConvolutionsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    for (ConvolutionCase const& c : kFilterCases)
    {
        expectFilterLayerAgrees(c, false);
    }
}

TEST(CudaLibraryLayers, DeconvolutionsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // The same cases read as deconvolutions: strided ones upsample, as a decoder's or a YOLO neck's do.
    for (ConvolutionCase const& c : kFilterCases)
    {
        expectFilterLayerAgrees(c, true);
    }
    // A 2x upsampling with a 2x2 kernel and stride 2: every output pixel comes from exactly one input pixel.
    expectFilterLayerAgrees({"2x2 stride 2", Dims{4, {2, 4, 5, 6}}, 3, Dims{2, {2, 2}}, Dims{2, {2, 2}},
                                Dims{2, {0, 0}}, Dims{2, {1, 1}}, 1, true},
        true);
}

struct MatrixCase
{
    char const* name;
    Dims a;
    MatrixOperation opA;
    Dims b;
    MatrixOperation opB;
};

TEST(CudaLibraryLayers, MatrixMultipliesAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    using Op = MatrixOperation;
    std::vector<MatrixCase> const cases{
        {"plain", Dims{2, {5, 7}}, Op::kNONE, Dims{2, {7, 3}}, Op::kNONE},
        {"both transposed", Dims{2, {7, 5}}, Op::kTRANSPOSE, Dims{2, {3, 7}}, Op::kTRANSPOSE},
        {"batched", Dims{3, {4, 6, 8}}, Op::kNONE, Dims{3, {4, 8, 2}}, Op::kNONE},
        {"weights shared over the batch", Dims{3, {4, 6, 8}}, Op::kNONE, Dims{3, {1, 8, 5}}, Op::kNONE},
        {"left shared, right transposed", Dims{3, {1, 6, 8}}, Op::kNONE, Dims{3, {3, 5, 8}}, Op::kTRANSPOSE},
        {"vector times matrix", Dims{2, {3, 8}}, Op::kVECTOR, Dims{3, {3, 8, 4}}, Op::kNONE},
        {"matrix times vector", Dims{3, {2, 5, 8}}, Op::kNONE, Dims{2, {2, 8}}, Op::kVECTOR},
    };
    for (MatrixCase const& c : cases)
    {
        NetworkMaker const maker = [c](INetworkDefinition& network) {
            ITensor* a = network.addInput("a", DataType::kFLOAT, c.a);
            ITensor* b = network.addInput("b", DataType::kFLOAT, c.b);
            IMatrixMultiplyLayer* product = network.addMatrixMultiply(*a, c.opA, *b, c.opB);
            ASSERT_NE(product, nullptr);
            product->getOutput(0)->setName("y");
            network.markOutput(*product->getOutput(0));
        };
        HostTensor const a = fromFloats(shapeOf(c.a), spread(volumeOf(c.a), -1.5F, 1.25F));
        HostTensor const b = fromFloats(shapeOf(c.b), spread(volumeOf(c.b), 0.75F, -1.0F));
        for (bool fp16 : {false, true})
        {
            expectBackendsAgree(
                maker, {{"a", a}, {"b", b}}, fp16, std::string("matrix multiply ") + c.name + (fp16 ? " fp16" : ""));
        }
    }
}

} // namespace
