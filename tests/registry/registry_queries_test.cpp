// kiln/PluginRegistry.h: the questions about creators that the ONNX parser and the kiln command ask, answered through
// the public API (pluginLibraryOf on a loaded library: library_test.cpp).
#include "plugin/registry.h"
#include "test_creators.h"
#include "test_recorders.h"

#include <kiln/Logging.h>
#include <kiln/PluginRegistry.h>

#include <gtest/gtest.h>

#include <string>

using kiln_test::TestCreatorV2;
using kiln_test::TestCreatorV3;

namespace
{

class RegistryQueries : public ::testing::Test
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

TEST_F(RegistryQueries, FindsCreatorsOfBothFamiliesAndReportsNoMissingOne)
{
    TestCreatorV2 v2("Quiet", "1");
    TestCreatorV3 v3("QuietV3", "2", "ns");
    ASSERT_TRUE(registry.registerCreator(v2, ""));
    ASSERT_TRUE(registry.registerCreator(v3, "ns"));

    EXPECT_EQ(kiln::findPluginCreator(registry, "Quiet", "1", ""), &v2);
    EXPECT_EQ(kiln::findPluginCreator(registry, "QuietV3", "2", "ns"), &v3);
    EXPECT_EQ(kiln::findPluginCreator(registry, "Quiet", "2", ""), nullptr);
    EXPECT_EQ(kiln::findPluginCreator(registry, "QuietV3", "2", ""), nullptr);
    EXPECT_TRUE(logger.errors().empty());
}

TEST_F(RegistryQueries, NullNamesFindNothing)
{
    TestCreatorV2 v2("Quiet", "1");
    ASSERT_TRUE(registry.registerCreator(v2, ""));
    EXPECT_EQ(kiln::findPluginCreator(registry, nullptr, "1", ""), nullptr);
    EXPECT_EQ(kiln::findPluginCreator(registry, "Quiet", nullptr, ""), nullptr);
    EXPECT_EQ(kiln::findPluginCreator(registry, "Quiet", "1", nullptr), nullptr);
}

TEST_F(RegistryQueries, ClosestCreatorsAreTheRegistrysOwnSuggestions)
{
    TestCreatorV2 v2("Quiet", "1");
    TestCreatorV3 v3("Other", "1");
    ASSERT_TRUE(registry.registerCreator(v2, ""));
    ASSERT_TRUE(registry.registerCreator(v3, ""));
    std::string const suggestions = kiln::describeClosestPluginCreators(registry, "Quite", "1", "");
    EXPECT_NE(suggestions.find("\"Quiet\" version \"1\" namespace \"\""), std::string::npos) << suggestions;
    EXPECT_EQ(suggestions, registry.closestNames("Quite", "1", ""));
    EXPECT_TRUE(logger.errors().empty());
}

TEST_F(RegistryQueries, AnEmptyRegistryIsSaidToBeEmpty)
{
    EXPECT_EQ(kiln::describeClosestPluginCreators(registry, "Anything", "1", ""), "The plugin registry is empty.");
}

TEST_F(RegistryQueries, CreatorsOfTheApplicationHaveNoLibrary)
{
    TestCreatorV2 creator("LocalQuery", "1");
    ASSERT_TRUE(getPluginRegistry()->registerCreator(creator, ""));
    EXPECT_EQ(kiln::pluginLibraryOf(creator), "");
    EXPECT_TRUE(getPluginRegistry()->deregisterCreator(creator));
}

} // namespace
