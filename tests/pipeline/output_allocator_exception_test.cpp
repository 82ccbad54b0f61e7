// IOutputAllocator's methods carry no noexcept (so overrides without it compile, as for TensorRT 7-era code), so
// an application's allocator may throw from them: enqueueV3 then fails with an error that says what was thrown,
// and the context stays usable.
#include "../layers/layer_harness.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

//! Throws from reallocateOutputAsync while `throwing`; else hands out one host buffer. No noexcept anywhere.
class ThrowingOutputAllocator final : public IOutputAllocator
{
public:
    void* reallocateOutputAsync(char const*, void*, uint64_t size, uint64_t, cudaStream_t) override
    {
        if (throwing)
        {
            throw std::runtime_error("no room for the positions");
        }
        mBuffer.resize(static_cast<size_t>(size / sizeof(int64_t)) + 1);
        return mBuffer.data();
    }
    void notifyShape(char const*, Dims const& dims) override
    {
        if (throwUnknown)
        {
            throw 42; // not a std::exception
        }
        count = dims.d[1];
    }
    bool throwing{true};
    bool throwUnknown{false};
    int64_t count{-1};

private:
    std::vector<int64_t> mBuffer;
};

TEST(OutputAllocatorExceptions, AThrowFailsTheRunWithItsMessageAndTheContextStaysUsable)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {3}});
    h.output(h.network->addNonZero(*x), "positions");
    ASSERT_TRUE(h.build());
    ThrowingOutputAllocator allocator;
    ASSERT_TRUE(h.context->setOutputAllocator("positions", &allocator));
    std::vector<float> const data{1, 0, 1};
    ASSERT_TRUE(h.context->setTensorAddress("x", const_cast<float*>(data.data())));

    EXPECT_FALSE(h.context->enqueueV3(nullptr));
    EXPECT_NE(h.logger.errors().find("no room for the positions"), std::string::npos) << h.logger.errors();

    allocator.throwing = false;
    allocator.throwUnknown = true;
    EXPECT_FALSE(h.context->enqueueV3(nullptr));
    EXPECT_NE(h.logger.errors().find("unknown type"), std::string::npos) << h.logger.errors();

    allocator.throwUnknown = false;
    EXPECT_TRUE(h.context->enqueueV3(nullptr)) << h.logger.errors();
    EXPECT_EQ(allocator.count, 2);
}

} // namespace
