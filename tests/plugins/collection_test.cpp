// The collection as a whole: what initLibNvInferPlugins registers, and what every creator promises.
#include "plugin_harness.h"

#include "api/plugin_collection.h"

#include <NvInferPlugin.h>

#include <set>

namespace kiln::test
{
namespace
{

using namespace nvinfer1;

struct CreatorFacts
{
    std::string name;
    std::string version;
    PluginFieldCollection const* fields;
};

CreatorFacts factsOf(IPluginCreatorInterface& creator)
{
    if (auto* v2 = dynamic_cast<IPluginCreator*>(&creator))
    {
        return {v2->getPluginName(), v2->getPluginVersion(), v2->getFieldNames()};
    }
    auto& v3 = dynamic_cast<IPluginCreatorV3One&>(creator);
    return {v3.getPluginName(), v3.getPluginVersion(), v3.getFieldNames()};
}

TEST(PluginCollection, EveryCreatorIsRegisteredUnderItsNameAndVersion)
{
    registerCollection();
    ASSERT_FALSE(kiln::plugins::collection().empty());
    std::set<std::pair<std::string, std::string>> seen;
    for (auto const& makeCreator : kiln::plugins::collection())
    {
        std::unique_ptr<IPluginCreatorInterface> creator = makeCreator("");
        CreatorFacts const facts = factsOf(*creator);
        EXPECT_TRUE(seen.emplace(facts.name, facts.version).second) << facts.name << " " << facts.version << " twice";
        EXPECT_NE(getPluginRegistry()->getCreator(facts.name.c_str(), facts.version.c_str(), ""), nullptr)
            << facts.name << " version " << facts.version;
    }
}

TEST(PluginCollection, EveryCreatorNamesItsFields)
{
    for (auto const& makeCreator : kiln::plugins::collection())
    {
        std::unique_ptr<IPluginCreatorInterface> creator = makeCreator("");
        CreatorFacts const facts = factsOf(*creator);
        ASSERT_NE(facts.fields, nullptr) << facts.name;
        for (int32_t i = 0; i < facts.fields->nbFields; ++i)
        {
            ASSERT_NE(facts.fields->fields[i].name, nullptr) << facts.name;
            EXPECT_FALSE(std::string(facts.fields->fields[i].name).empty()) << facts.name;
        }
    }
}

TEST(PluginCollection, RegisteringTwiceAndUnderANamespaceKeepsBoth)
{
    registerCollection();
    EXPECT_TRUE(initLibNvInferPlugins(nullptr, ""));
    EXPECT_TRUE(initLibNvInferPlugins(nullptr, "kiln_test_ns"));
    EXPECT_NE(getPluginRegistry()->getCreator("CustomGeluPluginDynamic", "1", ""), nullptr);
    EXPECT_NE(getPluginRegistry()->getCreator("CustomGeluPluginDynamic", "1", "kiln_test_ns"), nullptr);
}

} // namespace
} // namespace kiln::test
