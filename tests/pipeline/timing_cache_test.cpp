// ITimingCache without a GPU: what serialization keeps, what a damaged cache file gives, how caches combine
// across devices, and the key/value interface. (Timing itself and reuse across builds: tests/cuda_backend.)
#include "backend/timing_cache.h"
#include "test_logger.h"

#include <NvInfer.h>

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::backend::TimingCache;

std::vector<uint8_t> bytesOf(ITimingCache const& cache)
{
    std::unique_ptr<IHostMemory> const memory(cache.serialize());
    auto const* data = static_cast<uint8_t const*>(memory->data());
    return std::vector<uint8_t>(data, data + memory->size());
}

struct Fixture
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
};

TEST(TimingCache, SerializationKeepsDeviceAndEntries)
{
    TimingCache cache("GPU A");
    cache.record("convolution 1", {3, 0.25F}, "GPU A");
    cache.record("convolution 2", {5, 1.5F}, "GPU A");
    Fixture f;
    std::vector<uint8_t> const bytes = bytesOf(cache);
    std::unique_ptr<ITimingCache> copy(f.config->createTimingCache(bytes.data(), bytes.size()));
    ASSERT_NE(copy, nullptr) << f.logger.errors();
    auto const& parsed = dynamic_cast<TimingCache const&>(*copy);
    EXPECT_EQ(parsed.device(), "GPU A");
    EXPECT_EQ(parsed.queryKeys(nullptr, 0), 2);
    ASSERT_TRUE(parsed.find("convolution 2").has_value());
    EXPECT_EQ(parsed.find("convolution 2")->tacticHash, 5U);
    EXPECT_FLOAT_EQ(parsed.find("convolution 2")->timingMSec, 1.5F);
    EXPECT_FALSE(parsed.find("convolution 3").has_value());
    EXPECT_EQ(bytesOf(parsed), bytes);
}

TEST(TimingCache, AnEmptyBlobGivesAnEmptyCache)
{
    Fixture f;
    std::unique_ptr<ITimingCache> cache(f.config->createTimingCache(nullptr, 0));
    ASSERT_NE(cache, nullptr);
    EXPECT_EQ(cache->queryKeys(nullptr, 0), 0);
    EXPECT_TRUE(f.config->setTimingCache(*cache, false)) << f.logger.errors();
    EXPECT_EQ(f.config->getTimingCache(), cache.get());
}

TEST(TimingCache, EveryTruncationAndForeignFileIsRefusedWithAReason)
{
    TimingCache cache("GPU A");
    cache.record("convolution 1", {3, 0.25F}, "GPU A");
    std::vector<uint8_t> const bytes = bytesOf(cache);
    for (size_t size = 1; size < bytes.size(); ++size)
    {
        Fixture f;
        std::unique_ptr<ITimingCache> cut(f.config->createTimingCache(bytes.data(), size));
        EXPECT_EQ(cut, nullptr) << size;
        EXPECT_NE(f.logger.errors().find("IBuilderConfig::createTimingCache: "), std::string::npos) << size;
    }
    Fixture f;
    std::vector<uint8_t> longer = bytes;
    longer.push_back(0);
    EXPECT_EQ(std::unique_ptr<ITimingCache>(f.config->createTimingCache(longer.data(), longer.size())), nullptr);
    EXPECT_NE(f.logger.errors().find("1 bytes after its last entry"), std::string::npos) << f.logger.errors();
    char const plan[] = "KILNPLAN and more bytes";
    EXPECT_EQ(std::unique_ptr<ITimingCache>(f.config->createTimingCache(plan, sizeof(plan))), nullptr);
    EXPECT_NE(f.logger.errors().find("not a Kiln timing cache"), std::string::npos) << f.logger.errors();
}

TEST(TimingCache, CombiningTakesOnlyMissingEntriesAndChecksTheDevice)
{
    TimingCache mine("GPU A");
    mine.record("shared", {1, 1.0F}, "GPU A");
    TimingCache same("GPU A");
    same.record("shared", {2, 0.5F}, "GPU A");
    same.record("new", {7, 2.0F}, "GPU A");
    EXPECT_TRUE(mine.combine(same, false));
    EXPECT_EQ(mine.find("shared")->tacticHash, 1U); // conflicting entries keep this cache's value
    EXPECT_EQ(mine.find("new")->tacticHash, 7U);

    TimingCache other("GPU B");
    other.record("elsewhere", {4, 3.0F}, "GPU B");
    EXPECT_FALSE(mine.combine(other, false));
    EXPECT_FALSE(mine.find("elsewhere").has_value());
    EXPECT_TRUE(mine.combine(other, true));
    EXPECT_EQ(mine.find("elsewhere")->tacticHash, 4U);

    TimingCache blank("");
    EXPECT_TRUE(blank.combine(other, false));
    EXPECT_EQ(blank.device(), "GPU B");
}

TEST(TimingCache, KeysValuesUpdateAndReset)
{
    TimingCache cache("GPU A");
    cache.record("one", {1, 1.0F}, "GPU A");
    cache.record("two", {2, 2.0F}, "GPU A");
    std::vector<TimingCacheKey> keys(4);
    ASSERT_EQ(cache.queryKeys(keys.data(), 1), 2); // the count, though only one key fits
    ASSERT_EQ(cache.queryKeys(keys.data(), 4), 2);
    TimingCacheKey const one = TimingCache::keyOf("one");
    bool listed = false;
    for (int i = 0; i < 2; ++i)
    {
        listed = listed || std::memcmp(keys[i].data, one.data, sizeof(one.data)) == 0;
    }
    EXPECT_TRUE(listed);
    EXPECT_EQ(cache.query(one).tacticHash, 1U);
    EXPECT_TRUE(cache.update(one, {9, 0.1F}));
    EXPECT_EQ(cache.query(one).tacticHash, 9U);
    EXPECT_FALSE(cache.update(TimingCache::keyOf("absent"), {9, 0.1F}));
    EXPECT_EQ(cache.query(TimingCache::keyOf("absent")).tacticHash, std::numeric_limits<uint64_t>::max());
    EXPECT_TRUE(cache.reset());
    EXPECT_EQ(cache.queryKeys(nullptr, 0), 0);
}

} // namespace
