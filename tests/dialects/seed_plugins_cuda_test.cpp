// With CUDA: each seed plugin's enqueue runs its kernel on a stream, and the result equals
// enqueueHost's bit for bit (the kernels avoid FMA contraction for that). Skipped when no
// GPU is present. Compiled only when Kiln is built with CUDA.
#include "PluginTestUtils.h"

#include <CustomPlugin.h>
#include <FooPlugin.h>
#include <MyCustomPlugin.h>
#include <ScaledAddPlugin.h>

#include <cuda_runtime_api.h>

#include <vector>

using namespace nvinfer1;
using namespace kiln_test;

namespace
{

class DeviceBuffer
{
public:
    explicit DeviceBuffer(size_t bytes)
    {
        EXPECT_EQ(cudaMalloc(&mData, bytes), cudaSuccess);
        mBytes = bytes;
    }
    ~DeviceBuffer()
    {
        cudaFree(mData);
    }
    DeviceBuffer(DeviceBuffer const&) = delete;
    DeviceBuffer& operator=(DeviceBuffer const&) = delete;

    template <typename T>
    void upload(std::vector<T> const& host)
    {
        ASSERT_EQ(cudaMemcpy(mData, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    }
    template <typename T>
    std::vector<T> download(size_t count) const
    {
        std::vector<T> host(count);
        EXPECT_EQ(cudaMemcpy(host.data(), mData, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
        return host;
    }
    void* get() const
    {
        return mData;
    }

private:
    void* mData{nullptr};
    size_t mBytes{0};
};

class SeedPluginsOnGpu : public testing::Test
{
protected:
    void SetUp() override
    {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
        {
            GTEST_SKIP() << "no GPU";
        }
        ASSERT_EQ(cudaStreamCreate(&mStream), cudaSuccess);
    }
    void TearDown() override
    {
        if (mStream != nullptr)
        {
            cudaStreamDestroy(mStream);
        }
    }
    cudaStream_t mStream{nullptr};
};

std::vector<float> ramp(size_t n, float start, float step)
{
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
    {
        v[i] = start + step * static_cast<float>(i);
    }
    return v;
}

} // namespace

TEST_F(SeedPluginsOnGpu, MyCustomPluginMatchesHost)
{
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        kiln_seed::MyCustomPlugin plugin(
            3, std::vector<float>{0.3F, -1.7F, 2.2F}, std::vector<float>{0.1F, 0.05F, -0.6F});
        ASSERT_EQ(plugin.initialize(), 0);
        PluginTensorDesc const desc = makeDesc(makeDims({5, 3, 7, 9}), type);
        size_t const n = 5 * 3 * 7 * 9;
        std::vector<float> const values = ramp(n, -20.0F, 0.0413F);
        bool const half = type == DataType::kHALF;
        size_t const bytes = n * (half ? 2 : 4);
        DeviceBuffer x(bytes);
        DeviceBuffer y(bytes);
        void const* ins[1] = {x.get()};
        void* outs[1] = {y.get()};
        if (half)
        {
            std::vector<uint16_t> const hx = toHalf(values);
            x.upload(hx);
            ASSERT_EQ(plugin.enqueue(&desc, &desc, ins, outs, nullptr, mStream), 0);
            ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
            std::vector<uint16_t> want(n);
            ASSERT_EQ(runHost<uint16_t>(plugin, {desc}, {&hx}, desc, want), 0);
            EXPECT_EQ(y.download<uint16_t>(n), want);
        }
        else
        {
            x.upload(values);
            ASSERT_EQ(plugin.enqueue(&desc, &desc, ins, outs, nullptr, mStream), 0);
            ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
            std::vector<float> want(n);
            ASSERT_EQ(runHost<float>(plugin, {desc}, {&values}, desc, want), 0);
            EXPECT_EQ(y.download<float>(n), want);
        }
    }
}

TEST_F(SeedPluginsOnGpu, FooPluginMatchesHost)
{
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        kiln_seed::FooPlugin plugin(0.15F);
        PluginTensorDesc const item = makeDesc(makeDims({6, 50}), type); // per batch item
        plugin.configurePlugin(&item, 1, &item, 1);
        int32_t const batch = 3;
        size_t const n = 3 * 6 * 50;
        PluginTensorDesc const full = makeDesc(makeDims({3, 6, 50}), type);
        std::vector<float> const values = ramp(n, -9.0F, 0.02F);
        bool const half = type == DataType::kHALF;
        DeviceBuffer x(n * 4);
        DeviceBuffer y(n * 4);
        void const* ins[1] = {x.get()};
        void* outs[1] = {y.get()};
        void* const* constOuts = outs; // the form Kiln's engine calls (see EnqueueShim.DISABLED_*)
        IPluginV2& base = plugin;
        if (half)
        {
            std::vector<uint16_t> const hx = toHalf(values);
            x.upload(hx);
            ASSERT_EQ(base.enqueue(batch, ins, constOuts, nullptr, mStream), 0);
            ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
            std::vector<uint16_t> want(n);
            ASSERT_EQ(runHost<uint16_t>(plugin, {full}, {&hx}, full, want), 0);
            EXPECT_EQ(y.download<uint16_t>(n), want);
        }
        else
        {
            x.upload(values);
            ASSERT_EQ(base.enqueue(batch, ins, constOuts, nullptr, mStream), 0);
            ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
            std::vector<float> want(n);
            ASSERT_EQ(runHost<float>(plugin, {full}, {&values}, full, want), 0);
            EXPECT_EQ(y.download<float>(n), want);
        }
    }
}

TEST_F(SeedPluginsOnGpu, CustomPluginMatchesHost)
{
    float const lo = -0.75F;
    float const hi = 1.25F;
    Weights const weights[2] = {{DataType::kFLOAT, &lo, 1}, {DataType::kFLOAT, &hi, 1}};
    kiln_seed::CustomPlugin plugin(weights, 2);
    Dims const item = makeDims({4, 33});
    plugin.configureWithFormat(&item, 1, &item, 1, DataType::kFLOAT, PluginFormat::kLINEAR, 2);
    size_t const n = 2 * 4 * 33;
    std::vector<float> const values = ramp(n, -3.0F, 0.023F);
    DeviceBuffer x(n * 4);
    DeviceBuffer y(n * 4);
    x.upload(values);
    void const* ins[1] = {x.get()};
    void* outs[1] = {y.get()};
    void* const* constOuts = outs;
    IPluginV2& base = plugin;
    ASSERT_EQ(base.enqueue(2, ins, constOuts, nullptr, mStream), 0); // reaches the void** override
    ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    PluginTensorDesc const full = makeDesc(makeDims({2, 4, 33}), DataType::kFLOAT);
    std::vector<float> want(n);
    ASSERT_EQ(runHost<float>(plugin, {full}, {&values}, full, want), 0);
    EXPECT_EQ(y.download<float>(n), want);
}

TEST_F(SeedPluginsOnGpu, ScaledAddMatchesHost)
{
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        kiln_seed::ScaledAddPlugin plugin(-0.37F);
        size_t const n = 4099;
        PluginTensorDesc const desc = makeDesc(makeDims({static_cast<int64_t>(n)}), type);
        PluginTensorDesc const ins2[2] = {desc, desc};
        std::vector<float> const a = ramp(n, -100.0F, 0.051F);
        std::vector<float> const b = ramp(n, 30.0F, -0.017F);
        bool const half = type == DataType::kHALF;
        DeviceBuffer da(n * 4);
        DeviceBuffer db(n * 4);
        DeviceBuffer dy(n * 4);
        void const* ins[2] = {da.get(), db.get()};
        void* outs[1] = {dy.get()};
        if (half)
        {
            std::vector<uint16_t> const ha = toHalf(a);
            std::vector<uint16_t> const hb = toHalf(b);
            da.upload(ha);
            db.upload(hb);
            ASSERT_EQ(plugin.enqueue(ins2, &desc, ins, outs, nullptr, mStream), 0);
            ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
            std::vector<uint16_t> want(n);
            ASSERT_EQ(runHost<uint16_t>(plugin, {desc, desc}, {&ha, &hb}, desc, want), 0);
            EXPECT_EQ(dy.download<uint16_t>(n), want);
        }
        else
        {
            da.upload(a);
            db.upload(b);
            ASSERT_EQ(plugin.enqueue(ins2, &desc, ins, outs, nullptr, mStream), 0);
            ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
            std::vector<float> want(n);
            ASSERT_EQ(runHost<float>(plugin, {desc, desc}, {&a, &b}, desc, want), 0);
            EXPECT_EQ(dy.download<float>(n), want);
        }
    }
}
