// INT8 calibration for the CUDA backend: the calibrator's bindings are device memory, as TensorRT gives them (or the
// calibrator points them at device memory of its own), and the calibrated, implicitly quantized plan agrees with the
// CPU backend's plan calibrated on the same batches (both calibrate on the CPU reference, so their caches are equal).
// Needs a GPU: the bindings are device memory.
#include "backend_comparison.h"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

Dims const kInput{4, {1, 2, 6, 6}};

//! Gives two batches into the bindings it is given, or from memory of its own (`ownMemory`), and checks that the
//! bindings are where `backend`'s engines read inputs: device memory on CUDA, as TensorRT gives, host memory on the
//! CPU.
class BatchCalibrator final : public IInt8MinMaxCalibrator
{
public:
    BatchCalibrator(kiln::Backend backend, bool ownMemory)
        : mOnDevice(backend == kiln::Backend::kCUDA)
        , mOwnMemory(ownMemory)
    {
        for (float phase : {0.3F, 1.7F})
        {
            mBatches.push_back(weightsOf(volumeOf(kInput), phase));
        }
        if (mOnDevice)
        {
            EXPECT_EQ(cudaMalloc(&mOwn, volumeOf(kInput) * sizeof(float)), cudaSuccess);
        }
        else
        {
            mOwnHost.resize(volumeOf(kInput));
            mOwn = mOwnHost.data();
        }
    }
    ~BatchCalibrator() override
    {
        if (mOnDevice)
        {
            cudaFree(mOwn);
        }
    }
    int32_t getBatchSize() const noexcept override
    {
        return 1;
    }
    bool getBatch(void* bindings[], char const* /*names*/[], int32_t nbBindings) noexcept override
    {
        if (nbBindings != 1 || mNext >= mBatches.size())
        {
            return false;
        }
        cudaPointerAttributes attributes{};
        EXPECT_EQ(cudaPointerGetAttributes(&attributes, bindings[0]), cudaSuccess);
        if (mOnDevice)
        {
            EXPECT_EQ(attributes.type, cudaMemoryTypeDevice) << "TensorRT gives calibrators device memory";
        }
        else
        {
            EXPECT_NE(attributes.type, cudaMemoryTypeDevice) << "the CPU backend's engines read host memory";
        }
        void* const target = mOwnMemory ? mOwn : bindings[0];
        std::vector<float> const& batch = mBatches[mNext++];
        EXPECT_EQ(cudaMemcpy(target, batch.data(), batch.size() * sizeof(float), cudaMemcpyDefault), cudaSuccess);
        bindings[0] = target;
        return true;
    }
    void const* readCalibrationCache(std::size_t& length) noexcept override
    {
        length = 0;
        return nullptr;
    }
    void writeCalibrationCache(void const* ptr, std::size_t length) noexcept override
    {
        cache.assign(static_cast<char const*>(ptr), length);
    }

    std::string cache;

private:
    bool mOnDevice;
    bool mOwnMemory;
    std::vector<std::vector<float>> mBatches;
    std::vector<float> mOwnHost;
    size_t mNext{0};
    void* mOwn{nullptr};
};

void smallCnn(INetworkDefinition& network)
{
    static std::vector<float> const kernel1 = weightsOf(3 * 2 * 3 * 3, 0.4F);
    static std::vector<float> const kernel2 = weightsOf(2 * 3 * 3 * 3, 1.1F);
    static std::vector<float> const bias = weightsOf(3, 2.0F);
    ITensor* x = network.addInput("x", DataType::kFLOAT, kInput);
    IConvolutionLayer* conv1 = network.addConvolutionNd(*x, 3, Dims{2, {3, 3}},
        Weights{DataType::kFLOAT, kernel1.data(), static_cast<int64_t>(kernel1.size())},
        Weights{DataType::kFLOAT, bias.data(), 3});
    ITensor& r = relu(network, *conv1->getOutput(0), "r");
    IConvolutionLayer* conv2 = network.addConvolutionNd(
        r, 2, Dims{2, {3, 3}}, Weights{DataType::kFLOAT, kernel2.data(), static_cast<int64_t>(kernel2.size())}, {});
    conv2->getOutput(0)->setName("y");
    network.markOutput(*conv2->getOutput(0));
}

void expectCalibratedBackendsAgree(bool ownMemory, bool fp16)
{
    BatchCalibrator gpuCalibrator(kiln::Backend::kCUDA, ownMemory);
    BatchCalibrator cpuCalibrator(kiln::Backend::kCPU, ownMemory);
    auto const withCalibrator = [](IInt8Calibrator& calibrator) {
        return [&calibrator](IBuilderConfig& config) {
            config.setFlag(BuilderFlag::kINT8);
            config.setInt8Calibrator(&calibrator);
        };
    };
    std::map<std::string, HostTensor> const inputs{
        {"x", fromFloats(shapeOf(kInput), weightsOf(volumeOf(kInput), 0.9F))}};
    auto const gpu = runOn(kiln::Backend::kCUDA, smallCnn, inputs, fp16, nullptr, withCalibrator(gpuCalibrator));
    auto const cpu = runOn(kiln::Backend::kCPU, smallCnn, inputs, fp16, nullptr, withCalibrator(cpuCalibrator));
    EXPECT_FALSE(gpuCalibrator.cache.empty());
    EXPECT_EQ(gpuCalibrator.cache, cpuCalibrator.cache);
    ASSERT_EQ(gpu.count("y"), 1U);
    ASSERT_EQ(cpu.count("y"), 1U);
    Tolerance const tolerance = fp16 ? Tolerance{2.5e-3, 1e-3} : Tolerance{1e-5, 1e-4};
    expectSameOutput(gpu.at("y"), cpu.at("y"), tolerance, "calibrated CNN");
}

TEST(CudaCalibration, DeviceBindingsCalibrateAsTheCpuBackendDoes)
{
    SKIP_WITHOUT_GPU();
    expectCalibratedBackendsAgree(false, false);
}

TEST(CudaCalibration, BindingsPointedAtTheCalibratorsDeviceMemory)
{
    SKIP_WITHOUT_GPU();
    expectCalibratedBackendsAgree(true, false);
}

TEST(CudaCalibration, Fp16PlansQuantizeToo)
{
    SKIP_WITHOUT_GPU();
    expectCalibratedBackendsAgree(false, true);
}

} // namespace
