// Registration, lookup, lists, deregistration and error reporting, on registries of
// the tests' own (the process-wide one is exercised by library_test.cpp).
#include "plugin/registry.h"
#include "test_creators.h"
#include "test_recorders.h"

#include <kiln/Logging.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using kiln_test::TestCreatorV2;
using kiln_test::TestCreatorV3;

namespace
{

bool contains(std::string const& text, std::string const& part)
{
    return text.find(part) != std::string::npos;
}

class RegistryTest : public ::testing::Test
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

class ThrowingNameCreator : public TestCreatorV2
{
public:
    ThrowingNameCreator()
        : TestCreatorV2("unused", "1")
    {
    }
    char const* getPluginName() const override
    {
        throw std::runtime_error("name lookup exploded");
    }
};

class NullVersionCreator : public TestCreatorV2
{
public:
    NullVersionCreator()
        : TestCreatorV2("NullVersion", "1")
    {
    }
    char const* getPluginVersion() const noexcept override
    {
        return nullptr;
    }
};

class ThrowingSetNamespaceCreator : public TestCreatorV2
{
public:
    ThrowingSetNamespaceCreator()
        : TestCreatorV2("Stubborn", "1", "own")
    {
    }
    void setPluginNamespace(char const*) override
    {
        throw std::runtime_error("namespace is read-only");
    }
};

// A creator of a family the registry does not know (as a Python quick-plugin creator would be).
class UnknownKindCreator : public nvinfer1::IPluginCreatorInterface
{
public:
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override
    {
        return nvinfer1::InterfaceInfo{"PLUGIN CREATOR_V3QUICK", 1, 0};
    }
};

} // namespace

TEST_F(RegistryTest, SameNameInTwoNamespacesAreDistinct)
{
    TestCreatorV2 plain("Foo", "1");
    TestCreatorV2 spaced("Foo", "1");
    ASSERT_TRUE(registry.registerCreator(plain, ""));
    ASSERT_TRUE(registry.registerCreator(spaced, "vendor"));

    EXPECT_EQ(registry.getPluginCreator("Foo", "1"), &plain);
    EXPECT_EQ(registry.getPluginCreator("Foo", "1", "vendor"), &spaced);
    EXPECT_EQ(registry.getCreator("Foo", "1", "vendor"), &spaced);
    // The creator registered under "vendor" now reports it, so its plugins carry it.
    EXPECT_STREQ(spaced.getPluginNamespace(), "vendor");
    EXPECT_EQ(spaced.setNamespaceCalls, 1);
    EXPECT_EQ(plain.setNamespaceCalls, 0);
    EXPECT_TRUE(logger.errors().empty());
}

TEST_F(RegistryTest, DefaultNamespaceLookupDoesNotFindOtherNamespaces)
{
    TestCreatorV2 creator("CONVFIX_ZNZP", "1");
    ASSERT_TRUE(registry.registerCreator(creator, "ZNZPLGUIN"));
    EXPECT_EQ(registry.getPluginCreator("CONVFIX_ZNZP", "1"), nullptr);
    EXPECT_EQ(registry.getCreator("CONVFIX_ZNZP", "1"), nullptr);
    EXPECT_EQ(registry.getPluginCreator("CONVFIX_ZNZP", "1", "ZNZPLGUIN"), &creator);
}

TEST_F(RegistryTest, CreatorAlreadyInTheNamespaceIsNotTouched)
{
    TestCreatorV2 creator("Foo", "1", "vendor");
    ASSERT_TRUE(registry.registerCreator(creator, "vendor"));
    EXPECT_EQ(creator.setNamespaceCalls, 0);
}

TEST_F(RegistryTest, VersionsAreComparedAsStrings)
{
    TestCreatorV2 one("InstanceNormalization_TRT", "1");
    TestCreatorV2 zeroZeroOne("InstanceNormalization_TRT", "001");
    ASSERT_TRUE(registry.registerCreator(one, ""));
    ASSERT_TRUE(registry.registerCreator(zeroZeroOne, ""));
    EXPECT_EQ(registry.getPluginCreator("InstanceNormalization_TRT", "1"), &one);
    EXPECT_EQ(registry.getPluginCreator("InstanceNormalization_TRT", "001"), &zeroZeroOne);
    EXPECT_EQ(registry.getPluginCreator("InstanceNormalization_TRT", "01"), nullptr);
}

TEST_F(RegistryTest, DuplicateIsRejectedWithAWarningThatNamesIt)
{
    TestCreatorV2 first("Dup", "7");
    TestCreatorV2 second("Dup", "7");
    ASSERT_TRUE(registry.registerCreator(first, "dupns"));
    logger.clear();
    EXPECT_FALSE(registry.registerCreator(second, "dupns"));

    auto const warnings = logger.warnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(contains(warnings[0], "\"Dup\" version \"7\" namespace \"dupns\"")) << warnings[0];
    EXPECT_EQ(registry.getPluginCreator("Dup", "7", "dupns"), &first);
    // The rejected creator's namespace is left alone.
    EXPECT_EQ(second.setNamespaceCalls, 0);

    // Registering the same object again under the same key is a duplicate too.
    EXPECT_FALSE(registry.registerCreator(first, "dupns"));
    // A V3 creator cannot take a key that a V2 creator holds.
    TestCreatorV3 third("Dup", "7", "dupns");
    EXPECT_FALSE(registry.registerCreator(third, "dupns"));
    int32_t count = -1;
    registry.getAllCreators(&count);
    EXPECT_EQ(count, 1);
}

TEST_F(RegistryTest, MissLogsOneErrorListingTheClosestNames)
{
    TestCreatorV2 leaky1("LeakyReLU", "1");
    TestCreatorV2 leaky2("LeakyReLU", "2");
    TestCreatorV2 resize("Resize", "1");
    TestCreatorV3 upsample("Upsample", "1");
    ASSERT_TRUE(registry.registerCreator(resize, ""));
    ASSERT_TRUE(registry.registerCreator(leaky1, ""));
    ASSERT_TRUE(registry.registerCreator(leaky2, "x"));
    ASSERT_TRUE(registry.registerCreator(upsample, ""));

    EXPECT_EQ(registry.getCreator("LeakyRelu", "1"), nullptr);
    auto errors = logger.errors();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_TRUE(contains(errors[0], "getCreator")) << errors[0];
    EXPECT_TRUE(contains(errors[0], "\"LeakyRelu\" version \"1\" namespace \"\"")) << errors[0];
    std::size_t const closest = errors[0].find("\"LeakyReLU\" version \"1\" namespace \"\"");
    std::size_t const unrelated = errors[0].find("\"Resize\"");
    ASSERT_NE(closest, std::string::npos) << errors[0];
    EXPECT_TRUE(unrelated == std::string::npos || unrelated > closest) << errors[0];

    // Same name with another version or namespace comes before any other name.
    logger.clear();
    EXPECT_EQ(registry.getPluginCreator("Resize", "3", "x"), nullptr);
    errors = logger.errors();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_TRUE(contains(errors[0], "getPluginCreator")) << errors[0];
    std::size_t const sameName = errors[0].find("\"Resize\" version \"1\" namespace \"\"");
    std::size_t const otherName = errors[0].find("\"LeakyReLU\"");
    ASSERT_NE(sameName, std::string::npos) << errors[0];
    EXPECT_TRUE(otherName == std::string::npos || otherName > sameName) << errors[0];
}

TEST_F(RegistryTest, MissOnEmptyRegistrySaysItIsEmpty)
{
    EXPECT_EQ(registry.getCreator("Anything", "1"), nullptr);
    auto const errors = logger.errors();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_TRUE(contains(errors[0], "\"Anything\" version \"1\" namespace \"\"")) << errors[0];
    EXPECT_TRUE(contains(errors[0], "empty")) << errors[0];
}

TEST_F(RegistryTest, NullLookupArgumentsAreErrors)
{
    EXPECT_EQ(registry.getCreator(nullptr, "1"), nullptr);
    EXPECT_EQ(registry.getPluginCreator("Foo", nullptr), nullptr);
    EXPECT_EQ(logger.errors().size(), 2u);
}

TEST_F(RegistryTest, GetPluginCreatorReturnsOnlyV2Creators)
{
    TestCreatorV3 creator("ModernOnly", "1");
    ASSERT_TRUE(registry.registerCreator(creator, ""));
    EXPECT_EQ(registry.getPluginCreator("ModernOnly", "1"), nullptr);
    auto const errors = logger.errors();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_TRUE(contains(errors[0], "IPluginCreatorV3One")) << errors[0];
    EXPECT_EQ(registry.getCreator("ModernOnly", "1"), &creator);
}

TEST_F(RegistryTest, V2CreatorThroughTheInterfaceOverloadIsStillV2)
{
    TestCreatorV2 creator("Legacy", "1");
    nvinfer1::IPluginCreatorInterface& asInterface = creator;
    ASSERT_TRUE(registry.registerCreator(asInterface, ""));
    EXPECT_EQ(registry.getPluginCreator("Legacy", "1"), &creator);
    int32_t count = 0;
    registry.getPluginCreatorList(&count);
    EXPECT_EQ(count, 1);
}

TEST_F(RegistryTest, ListsAndCounts)
{
    int32_t count = -1;
    EXPECT_EQ(registry.getPluginCreatorList(&count), nullptr);
    EXPECT_EQ(count, 0);
    count = -1;
    EXPECT_EQ(registry.getAllCreators(&count), nullptr);
    EXPECT_EQ(count, 0);

    TestCreatorV2 a("A", "1");
    TestCreatorV3 b("B", "1");
    TestCreatorV2 c("C", "1");
    ASSERT_TRUE(registry.registerCreator(a, ""));
    ASSERT_TRUE(registry.registerCreator(b, ""));
    ASSERT_TRUE(registry.registerCreator(c, "ns"));

    nvinfer1::IPluginCreator* const* v2 = registry.getPluginCreatorList(&count);
    ASSERT_EQ(count, 2);
    ASSERT_NE(v2, nullptr);
    EXPECT_EQ(v2[0], &a);
    EXPECT_EQ(v2[1], &c);

    nvinfer1::IPluginCreatorInterface* const* all = registry.getAllCreators(&count);
    ASSERT_EQ(count, 3);
    ASSERT_NE(all, nullptr);
    EXPECT_EQ(all[0], &a);
    EXPECT_EQ(all[1], &b);
    EXPECT_EQ(all[2], &c);

    int32_t recursiveCount = -1;
    nvinfer1::IPluginCreatorInterface* const* recursive = registry.getAllCreatorsRecursive(&recursiveCount);
    ASSERT_EQ(recursiveCount, 3);
    EXPECT_EQ(recursive[1], &b);
}

TEST_F(RegistryTest, ParentSearchFlagDefaultsToTrue)
{
    EXPECT_TRUE(registry.isParentSearchEnabled());
    registry.setParentSearchEnabled(false);
    EXPECT_FALSE(registry.isParentSearchEnabled());
}

TEST_F(RegistryTest, Deregistration)
{
    TestCreatorV2 v2("Gone", "1");
    TestCreatorV3 v3("AlsoGone", "1");
    TestCreatorV2 stays("Stays", "1");
    ASSERT_TRUE(registry.registerCreator(v2, ""));
    ASSERT_TRUE(registry.registerCreator(v3, ""));
    ASSERT_TRUE(registry.registerCreator(stays, ""));

    EXPECT_TRUE(registry.deregisterCreator(static_cast<nvinfer1::IPluginCreator const&>(v2)));
    EXPECT_FALSE(registry.deregisterCreator(static_cast<nvinfer1::IPluginCreator const&>(v2)));
    EXPECT_TRUE(registry.deregisterCreator(static_cast<nvinfer1::IPluginCreatorInterface const&>(v3)));
    EXPECT_FALSE(registry.deregisterCreator(static_cast<nvinfer1::IPluginCreatorInterface const&>(v3)));

    int32_t count = -1;
    nvinfer1::IPluginCreatorInterface* const* all = registry.getAllCreators(&count);
    ASSERT_EQ(count, 1);
    EXPECT_EQ(all[0], &stays);
    EXPECT_EQ(registry.findCreator("Gone", "1", "").creator, nullptr);
    // The key is free again.
    EXPECT_TRUE(registry.registerCreator(v2, ""));
}

TEST_F(RegistryTest, InvalidCreatorsAreRejectedWithAnError)
{
    TestCreatorV2 unnamed("", "1");
    EXPECT_FALSE(registry.registerCreator(unnamed, ""));
    ASSERT_EQ(logger.errors().size(), 1u);
    EXPECT_TRUE(contains(logger.errors()[0], "empty name")) << logger.errors()[0];

    logger.clear();
    NullVersionCreator nullVersion;
    EXPECT_FALSE(registry.registerCreator(nullVersion, ""));
    ASSERT_EQ(logger.errors().size(), 1u);
    EXPECT_TRUE(contains(logger.errors()[0], "\"NullVersion\"")) << logger.errors()[0];
    EXPECT_TRUE(contains(logger.errors()[0], "getPluginVersion()")) << logger.errors()[0];

    logger.clear();
    UnknownKindCreator unknown;
    EXPECT_FALSE(registry.registerCreator(unknown, ""));
    ASSERT_EQ(logger.errors().size(), 1u);
    EXPECT_TRUE(contains(logger.errors()[0], "PLUGIN CREATOR_V3QUICK")) << logger.errors()[0];

    int32_t count = -1;
    registry.getAllCreators(&count);
    EXPECT_EQ(count, 0);
}

TEST_F(RegistryTest, ExceptionFromACreatorBecomesAnError)
{
    ThrowingNameCreator throwing;
    EXPECT_FALSE(registry.registerCreator(throwing, ""));
    auto errors = logger.errors();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_TRUE(contains(errors[0], "getPluginName()")) << errors[0];
    EXPECT_TRUE(contains(errors[0], "name lookup exploded")) << errors[0];

    logger.clear();
    ThrowingSetNamespaceCreator stubborn;
    EXPECT_FALSE(registry.registerCreator(stubborn, "elsewhere"));
    errors = logger.errors();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_TRUE(contains(errors[0], "\"Stubborn\" version \"1\" namespace \"elsewhere\"")) << errors[0];
    EXPECT_TRUE(contains(errors[0], "setPluginNamespace()")) << errors[0];
    EXPECT_EQ(registry.findCreator("Stubborn", "1", "elsewhere").creator, nullptr);
}

TEST_F(RegistryTest, ErrorRecorderReceivesErrorsAndIsReferenceCounted)
{
    kiln_test::RecordingErrorRecorder first;
    kiln_test::RecordingErrorRecorder second;
    registry.setErrorRecorder(&first);
    EXPECT_EQ(registry.getErrorRecorder(), &first);
    EXPECT_EQ(first.references, 1);

    EXPECT_EQ(registry.getCreator("Missing", "9", "nowhere"), nullptr);
    ASSERT_EQ(first.errors.size(), 1u);
    EXPECT_EQ(first.errors[0].first, nvinfer1::ErrorCode::kINVALID_ARGUMENT);
    EXPECT_TRUE(contains(first.errors[0].second, "\"Missing\" version \"9\" namespace \"nowhere\""));
    // The logger hears it too.
    EXPECT_EQ(logger.errors().size(), 1u);

    TestCreatorV2 unnamed("", "1");
    EXPECT_FALSE(registry.registerCreator(unnamed, ""));
    ASSERT_EQ(first.errors.size(), 2u);
    EXPECT_EQ(first.errors[1].first, nvinfer1::ErrorCode::kINVALID_ARGUMENT);

    // Warnings are not errors.
    TestCreatorV2 a("A", "1");
    TestCreatorV2 b("A", "1");
    ASSERT_TRUE(registry.registerCreator(a, ""));
    EXPECT_FALSE(registry.registerCreator(b, ""));
    EXPECT_EQ(first.errors.size(), 2u);

    registry.setErrorRecorder(&second);
    EXPECT_EQ(first.references, 0);
    EXPECT_EQ(second.references, 1);
    EXPECT_EQ(registry.releasePluginResource("never acquired"), -1);
    EXPECT_EQ(first.errors.size(), 2u);
    ASSERT_EQ(second.errors.size(), 1u);
    EXPECT_EQ(second.errors[0].first, nvinfer1::ErrorCode::kINVALID_ARGUMENT);

    registry.setErrorRecorder(nullptr);
    EXPECT_EQ(registry.getErrorRecorder(), nullptr);
    EXPECT_EQ(second.references, 0);
}

TEST_F(RegistryTest, InternalLookupDoesNotLog)
{
    TestCreatorV2 v2("Quiet", "1");
    TestCreatorV3 v3("QuietV3", "2", "ns");
    ASSERT_TRUE(registry.registerCreator(v2, ""));
    ASSERT_TRUE(registry.registerCreator(v3, "ns"));

    kiln::plugin::CreatorMatch const found = registry.findCreator("Quiet", "1", "");
    EXPECT_EQ(found.creator, &v2);
    EXPECT_EQ(found.v2, &v2);
    EXPECT_EQ(found.v3One, nullptr);
    kiln::plugin::CreatorMatch const foundV3 = registry.findCreator("QuietV3", "2", "ns");
    EXPECT_EQ(foundV3.creator, &v3);
    EXPECT_EQ(foundV3.v2, nullptr);
    EXPECT_EQ(foundV3.v3One, &v3);

    EXPECT_EQ(registry.findCreator("Quite", "1", "").creator, nullptr);
    EXPECT_TRUE(logger.errors().empty());

    std::string const suggestions = registry.closestNames("Quite", "1", "");
    EXPECT_TRUE(contains(suggestions, "\"Quiet\" version \"1\" namespace \"\"")) << suggestions;
    std::string const message = registry.describeMissingCreator("Quite", "1", "");
    EXPECT_TRUE(contains(message, "\"Quite\" version \"1\" namespace \"\"")) << message;
    EXPECT_TRUE(contains(message, suggestions)) << message;
    EXPECT_TRUE(logger.errors().empty());
}

TEST_F(RegistryTest, CreatorsOfTheMainProgramHaveNoLibrary)
{
    TestCreatorV2 creator("Local", "1");
    ASSERT_TRUE(registry.registerCreator(creator, ""));
    EXPECT_EQ(registry.libraryOf(&creator), "");
    EXPECT_EQ(registry.findCreator("Local", "1", "").library, "");
}
