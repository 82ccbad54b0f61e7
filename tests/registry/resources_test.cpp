// IPluginRegistry::acquirePluginResource / releasePluginResource.
#include "plugin/registry.h"
#include "test_recorders.h"

#include <kiln/Logging.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace
{

struct ResourceCounters
{
    int clones{0};
    int releases{0};
    int destructions{0};
};

enum class CloneBehaviour
{
    kCopy,
    kReturnNull,
    kThrow,
};

class CountingResource : public nvinfer1::IPluginResource
{
public:
    CountingResource(ResourceCounters& counters, int value, CloneBehaviour behaviour = CloneBehaviour::kCopy)
        : mCounters(counters)
        , mBehaviour(behaviour)
        , payload(value)
    {
    }
    ~CountingResource() noexcept override
    {
        ++mCounters.destructions;
    }

    int32_t release() noexcept override
    {
        ++mCounters.releases;
        return 0;
    }
    nvinfer1::IPluginResource* clone() override
    {
        ++mCounters.clones;
        if (mBehaviour == CloneBehaviour::kThrow)
        {
            throw std::runtime_error("no device memory left");
        }
        if (mBehaviour == CloneBehaviour::kReturnNull)
        {
            return nullptr;
        }
        return new CountingResource(mCounters, payload);
    }

private:
    ResourceCounters& mCounters;
    CloneBehaviour mBehaviour;

public:
    int payload;
};

class ResourceTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        kiln::setLogger(&logger);
    }
    void TearDown() override
    {
        kiln::setLogger(nullptr);
    }

    kiln_test::RecordingLogger logger;
    kiln::plugin::PluginRegistry registry;
};

} // namespace

TEST_F(ResourceTest, SameKeySharesOneCloneReleasedOnceAtTheLastRelease)
{
    ResourceCounters counters;
    CountingResource original(counters, 42);
    CountingResource other(counters, 7);

    nvinfer1::IPluginResource* const first = registry.acquirePluginResource("workspace", &original);
    ASSERT_NE(first, nullptr);
    EXPECT_NE(first, &original);
    EXPECT_EQ(static_cast<CountingResource*>(first)->payload, 42);
    EXPECT_EQ(counters.clones, 1);

    // A second acquire returns the registered object, whatever resource it offers.
    nvinfer1::IPluginResource* const second = registry.acquirePluginResource("workspace", &other);
    EXPECT_EQ(second, first);
    EXPECT_EQ(counters.clones, 1);
    EXPECT_EQ(registry.resourceReferenceCount("workspace"), 2);

    EXPECT_EQ(registry.releasePluginResource("workspace"), 0);
    EXPECT_EQ(counters.releases, 0);
    EXPECT_EQ(counters.destructions, 0);
    EXPECT_EQ(registry.releasePluginResource("workspace"), 0);
    EXPECT_EQ(counters.releases, 1);
    EXPECT_EQ(counters.destructions, 1);
    EXPECT_EQ(registry.resourceReferenceCount("workspace"), 0);

    // The key is gone: releasing again fails, acquiring again clones anew.
    EXPECT_NE(registry.releasePluginResource("workspace"), 0);
    EXPECT_EQ(logger.errors().size(), 1u);
    nvinfer1::IPluginResource* const fresh = registry.acquirePluginResource("workspace", &other);
    ASSERT_NE(fresh, nullptr);
    EXPECT_EQ(static_cast<CountingResource*>(fresh)->payload, 7);
    EXPECT_EQ(counters.clones, 2);
    EXPECT_EQ(registry.releasePluginResource("workspace"), 0);
    EXPECT_EQ(counters.releases, 2);
}

TEST_F(ResourceTest, DifferentKeysHaveDifferentObjects)
{
    ResourceCounters counters;
    CountingResource original(counters, 1);
    nvinfer1::IPluginResource* const a = registry.acquirePluginResource("a", &original);
    nvinfer1::IPluginResource* const b = registry.acquirePluginResource("b", &original);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_NE(a, b);
    EXPECT_EQ(registry.releasePluginResource("a"), 0);
    EXPECT_EQ(registry.releasePluginResource("b"), 0);
    EXPECT_EQ(counters.releases, 2);
}

TEST_F(ResourceTest, UnknownKeyIsAnError)
{
    EXPECT_NE(registry.releasePluginResource("never"), 0);
    auto const errors = logger.errors();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("\"never\""), std::string::npos) << errors[0];
}

TEST_F(ResourceTest, NullArgumentsAreErrors)
{
    ResourceCounters counters;
    CountingResource original(counters, 1);
    EXPECT_EQ(registry.acquirePluginResource(nullptr, &original), nullptr);
    EXPECT_EQ(registry.acquirePluginResource("key", nullptr), nullptr);
    EXPECT_NE(registry.releasePluginResource(nullptr), 0);
    EXPECT_EQ(logger.errors().size(), 3u);
    EXPECT_EQ(counters.clones, 0);
    EXPECT_EQ(registry.resourceReferenceCount("key"), 0);
}

TEST_F(ResourceTest, FailedCloneRegistersNothing)
{
    ResourceCounters counters;
    CountingResource nullCloner(counters, 1, CloneBehaviour::kReturnNull);
    EXPECT_EQ(registry.acquirePluginResource("k", &nullCloner), nullptr);
    ASSERT_EQ(logger.errors().size(), 1u);
    EXPECT_NE(logger.errors()[0].find("clone()"), std::string::npos) << logger.errors()[0];

    logger.clear();
    CountingResource throwingCloner(counters, 1, CloneBehaviour::kThrow);
    EXPECT_EQ(registry.acquirePluginResource("k", &throwingCloner), nullptr);
    ASSERT_EQ(logger.errors().size(), 1u);
    EXPECT_NE(logger.errors()[0].find("no device memory left"), std::string::npos) << logger.errors()[0];
    EXPECT_EQ(registry.resourceReferenceCount("k"), 0);

    // Once a clone succeeds, the key works normally.
    CountingResource good(counters, 5);
    EXPECT_NE(registry.acquirePluginResource("k", &good), nullptr);
    EXPECT_EQ(registry.releasePluginResource("k"), 0);
}

TEST_F(ResourceTest, ErrorsReachTheErrorRecorder)
{
    kiln_test::RecordingErrorRecorder recorder;
    registry.setErrorRecorder(&recorder);
    EXPECT_NE(registry.releasePluginResource("missing"), 0);
    ASSERT_EQ(recorder.errors.size(), 1u);
    EXPECT_EQ(recorder.errors[0].first, nvinfer1::ErrorCode::kINVALID_ARGUMENT);
    registry.setErrorRecorder(nullptr);
}
