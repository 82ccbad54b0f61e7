// Registration, lookup and deregistration from several threads at once.
#include "plugin/registry.h"
#include "test_creators.h"
#include "test_recorders.h"

#include <kiln/Logging.h>

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using kiln_test::TestCreatorV2;
using kiln_test::TestCreatorV3;

namespace
{

constexpr int kThreads = 8;
constexpr int kCreatorsPerThread = 40;

std::string creatorName(int thread, int index)
{
    return "T" + std::to_string(thread) + "_C" + std::to_string(index);
}

} // namespace

TEST(RegistryConcurrency, EightThreadsRegisterLookUpAndDeregister)
{
    kiln_test::RecordingLogger logger;
    kiln::setLogger(&logger);
    kiln::plugin::PluginRegistry registry;

    // Each thread owns its creators: even indices V2, odd ones V3, half under a namespace.
    std::vector<std::vector<std::unique_ptr<nvinfer1::IPluginCreatorInterface>>> creators(kThreads);
    for (int t = 0; t < kThreads; ++t)
    {
        for (int i = 0; i < kCreatorsPerThread; ++i)
        {
            std::string const ns = (i % 4 < 2) ? "" : "ns" + std::to_string(t);
            if (i % 2 == 0)
            {
                creators[t].push_back(std::make_unique<TestCreatorV2>(creatorName(t, i), "1", ns));
            }
            else
            {
                creators[t].push_back(std::make_unique<TestCreatorV3>(creatorName(t, i), "1", ns));
            }
        }
    }

    std::atomic<int> failures{0};
    std::barrier allRegistered(kThreads);
    std::barrier allLookedUp(kThreads);
    auto const work = [&](int t) {
        for (int i = 0; i < kCreatorsPerThread; ++i)
        {
            std::string const ns = (i % 4 < 2) ? "" : "ns" + std::to_string(t);
            if (!registry.registerCreator(*creators[t][i], ns.c_str()))
            {
                ++failures;
            }
            // Lookups of other threads' creators race with their registration: the
            // result may be either, but must never be another creator.
            int const other = (t + 1) % kThreads;
            std::string const otherNs = (i % 4 < 2) ? "" : "ns" + std::to_string(other);
            auto const match = registry.findCreator(creatorName(other, i), "1", otherNs);
            if (match.creator != nullptr && match.creator != creators[other][i].get())
            {
                ++failures;
            }
            int32_t count = 0;
            registry.getAllCreators(&count);
            if (count < i + 1)
            {
                ++failures;
            }
        }
        allRegistered.arrive_and_wait();
        for (int other = 0; other < kThreads; ++other)
        {
            for (int i = 0; i < kCreatorsPerThread; ++i)
            {
                std::string const otherNs = (i % 4 < 2) ? "" : "ns" + std::to_string(other);
                if (registry.getCreator(creatorName(other, i).c_str(), "1", otherNs.c_str())
                    != creators[other][i].get())
                {
                    ++failures;
                }
            }
        }
        allLookedUp.arrive_and_wait();
        // Everyone removes the first quarter of their creators.
        for (int i = 0; i < kCreatorsPerThread / 4; ++i)
        {
            if (!registry.deregisterCreator(*creators[t][i]))
            {
                ++failures;
            }
        }
    };

    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
    {
        threads.emplace_back(work, t);
    }
    for (auto& thread : threads)
    {
        thread.join();
    }

    EXPECT_EQ(failures.load(), 0);
    int32_t allCount = -1;
    registry.getAllCreators(&allCount);
    EXPECT_EQ(allCount, kThreads * (kCreatorsPerThread - kCreatorsPerThread / 4));
    int32_t v2Count = -1;
    registry.getPluginCreatorList(&v2Count);
    EXPECT_EQ(v2Count, kThreads * (kCreatorsPerThread - kCreatorsPerThread / 4) / 2);
    EXPECT_TRUE(logger.errors().empty());
    EXPECT_TRUE(logger.warnings().empty());
    kiln::setLogger(nullptr);
}
