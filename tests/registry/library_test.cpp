// IPluginRegistry::loadLibrary / deregisterLibrary on the process-wide registry, with
// plugin libraries built next to this test (see CMakeLists.txt).
#include "plugin/registry.h"
#include "test_creators.h"
#include "test_recorders.h"

#include <kiln/Logging.h>
#include <kiln/PluginRegistry.h>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <filesystem>
#include <string>

namespace
{

//! What loadLibrary returns: a member type of IPluginRegistry, as in TensorRT.
using LibraryHandle = nvinfer1::IPluginRegistry::PluginLibraryHandle;

bool contains(std::string const& text, std::string const& part)
{
    return text.find(part) != std::string::npos;
}

std::string canonical(char const* path)
{
    return std::filesystem::canonical(path).string();
}

//! Whether the dynamic loader still has the library mapped.
bool isMapped(char const* path)
{
    void* const handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (handle != nullptr)
    {
        dlclose(handle);
    }
    return handle != nullptr;
}

int32_t creatorCount(nvinfer1::IPluginRegistry& registry)
{
    int32_t count = -1;
    registry.getAllCreators(&count);
    return count;
}

class LibraryTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        kiln::setLogger(&logger);
        baseline = creatorCount(registry);
    }
    void TearDown() override
    {
        // Every test leaves the process-wide registry as it found it.
        EXPECT_EQ(creatorCount(registry), baseline);
        kiln::setLogger(nullptr);
    }

    std::string onlyError() const
    {
        auto const errors = logger.errors();
        EXPECT_EQ(errors.size(), 1u);
        return errors.empty() ? std::string() : errors.front();
    }

    kiln_test::RecordingLogger logger;
    nvinfer1::IPluginRegistry& registry = *getPluginRegistry();
    kiln::plugin::PluginRegistry& kilnRegistry = kiln::plugin::globalPluginRegistry();
    int32_t baseline{0};
};

class MainProgramCreator : public kiln_test::TestCreatorV2
{
public:
    MainProgramCreator()
        : TestCreatorV2("MainProgramPlugin", "1")
    {
    }
};
REGISTER_TENSORRT_PLUGIN(MainProgramCreator);

} // namespace

TEST_F(LibraryTest, GetPluginRegistryIsTheProcessWideRegistry)
{
    EXPECT_EQ(getPluginRegistry(), static_cast<nvinfer1::IPluginRegistry*>(&kilnRegistry));
    // Registered by a static initialiser of this program, before main.
    nvinfer1::IPluginCreator* const creator = registry.getPluginCreator("MainProgramPlugin", "1");
    ASSERT_NE(creator, nullptr);
    EXPECT_EQ(kilnRegistry.libraryOf(creator), "");
}

TEST_F(LibraryTest, GetCreatorsLibraryIsRegisteredUnderTheCreatorsNamespaces)
{
    LibraryHandle const handle = registry.loadLibrary(KILN_TEST_GET_CREATORS_LIBRARY);
    ASSERT_NE(handle, nullptr) << (logger.errors().empty() ? "" : logger.errors().front());
    EXPECT_EQ(creatorCount(registry), baseline + 2);

    nvinfer1::IPluginCreatorInterface* const alpha = registry.getCreator("LibAlpha", "1", "libns");
    ASSERT_NE(alpha, nullptr);
    EXPECT_NE(registry.getPluginCreator("LibAlpha", "1", "libns"), nullptr);
    nvinfer1::IPluginCreatorInterface* const beta = registry.getCreator("LibBeta", "1", "");
    ASSERT_NE(beta, nullptr);
    EXPECT_STREQ(beta->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
    EXPECT_TRUE(logger.errors().empty());

    std::string const expectedPath = canonical(KILN_TEST_GET_CREATORS_LIBRARY);
    EXPECT_EQ(kilnRegistry.libraryOf(alpha), expectedPath);
    EXPECT_EQ(kilnRegistry.libraryOf(beta), expectedPath);
    EXPECT_EQ(kilnRegistry.findCreator("LibBeta", "1", "").library, expectedPath);

    // setLoggerFinder was called once, and the library's log message reached our logger.
    void* const ownHandle = dlopen(KILN_TEST_GET_CREATORS_LIBRARY, RTLD_LAZY | RTLD_NOLOAD);
    ASSERT_NE(ownHandle, nullptr);
    auto const finderCalls = reinterpret_cast<int (*)()>(dlsym(ownHandle, "kilnTestLoggerFinderCalls"));
    ASSERT_NE(finderCalls, nullptr);
    EXPECT_EQ(finderCalls(), 1);
    dlclose(ownHandle);
    auto const infos = logger.messages(nvinfer1::ILogger::Severity::kINFO);
    ASSERT_EQ(infos.size(), 1u);
    EXPECT_EQ(infos[0], "get_creators_library: handing out 2 creators");

    registry.deregisterLibrary(handle);
    EXPECT_EQ(kilnRegistry.findCreator("LibAlpha", "1", "libns").creator, nullptr);
    EXPECT_EQ(kilnRegistry.findCreator("LibBeta", "1", "").creator, nullptr);
    EXPECT_FALSE(isMapped(KILN_TEST_GET_CREATORS_LIBRARY));
    EXPECT_TRUE(logger.errors().empty());
}

TEST_F(LibraryTest, PluginCreatorsLibraryOfTensorRT86)
{
    LibraryHandle const handle = registry.loadLibrary(KILN_TEST_PLUGIN_CREATORS_LIBRARY);
    ASSERT_NE(handle, nullptr) << (logger.errors().empty() ? "" : logger.errors().front());
    EXPECT_EQ(creatorCount(registry), baseline + 1);
    nvinfer1::IPluginCreator* const gamma = registry.getPluginCreator("LegacyGamma", "2");
    ASSERT_NE(gamma, nullptr);
    EXPECT_EQ(kilnRegistry.libraryOf(gamma), canonical(KILN_TEST_PLUGIN_CREATORS_LIBRARY));
    registry.deregisterLibrary(handle);
    EXPECT_EQ(kilnRegistry.findCreator("LegacyGamma", "2", "").creator, nullptr);
}

TEST_F(LibraryTest, LibraryWhoseOnlyEntryPointIsInitLibNvInferPlugins)
{
    LibraryHandle const handle = registry.loadLibrary(KILN_TEST_INIT_ENTRY_LIBRARY);
    ASSERT_NE(handle, nullptr) << (logger.errors().empty() ? "" : logger.errors().front());
    EXPECT_EQ(creatorCount(registry), baseline + 2);
    nvinfer1::IPluginCreatorInterface* const zeta = registry.getCreator("InitZeta", "1", "");
    nvinfer1::IPluginCreatorInterface* const eta = registry.getCreator("InitEta", "2", "");
    ASSERT_NE(zeta, nullptr);
    ASSERT_NE(eta, nullptr);
    // Called once, and what it registered belongs to the library: deregistering takes it away.
    void* const ownHandle = dlopen(KILN_TEST_INIT_ENTRY_LIBRARY, RTLD_LAZY | RTLD_NOLOAD);
    ASSERT_NE(ownHandle, nullptr);
    auto const initCalls = reinterpret_cast<int (*)()>(dlsym(ownHandle, "kilnTestInitCalls"));
    ASSERT_NE(initCalls, nullptr);
    EXPECT_EQ(initCalls(), 1);
    dlclose(ownHandle);
    EXPECT_EQ(kilnRegistry.libraryOf(zeta), canonical(KILN_TEST_INIT_ENTRY_LIBRARY));
    registry.deregisterLibrary(handle);
    EXPECT_EQ(kilnRegistry.findCreator("InitZeta", "1", "").creator, nullptr);
    EXPECT_EQ(kilnRegistry.findCreator("InitEta", "2", "").creator, nullptr);
    EXPECT_TRUE(logger.errors().empty());
}

TEST_F(LibraryTest, KilnsPluginCollectionLoadsAsALibrary)
{
    // libkiln_plugins exports getCreators, as TensorRT 10's libnvinfer_plugin does.
    LibraryHandle const handle = registry.loadLibrary(KILN_PLUGINS_LIBRARY);
    ASSERT_NE(handle, nullptr) << (logger.errors().empty() ? "" : logger.errors().front());
    EXPECT_GT(creatorCount(registry), baseline);
    nvinfer1::IPluginCreatorInterface* const gelu = registry.getCreator("CustomGeluPluginDynamic", "1", "");
    ASSERT_NE(gelu, nullptr);
    EXPECT_EQ(kilnRegistry.libraryOf(gelu), canonical(KILN_PLUGINS_LIBRARY));
    EXPECT_EQ(kiln::pluginLibraryOf(*gelu), canonical(KILN_PLUGINS_LIBRARY));
    registry.deregisterLibrary(handle);
    EXPECT_EQ(kilnRegistry.findCreator("CustomGeluPluginDynamic", "1", "").creator, nullptr);
    EXPECT_TRUE(logger.errors().empty());
}

TEST_F(LibraryTest, StaticRegistrationLibrary)
{
    LibraryHandle const handle = registry.loadLibrary(KILN_TEST_STATIC_LIBRARY);
    ASSERT_NE(handle, nullptr) << (logger.errors().empty() ? "" : logger.errors().front());
    EXPECT_EQ(creatorCount(registry), baseline + 2);
    nvinfer1::IPluginCreator* const delta = registry.getPluginCreator("StaticDelta", "1");
    nvinfer1::IPluginCreatorInterface* const epsilon = registry.getCreator("StaticEpsilon", "3");
    ASSERT_NE(delta, nullptr);
    ASSERT_NE(epsilon, nullptr);
    std::string const expectedPath = canonical(KILN_TEST_STATIC_LIBRARY);
    EXPECT_EQ(kilnRegistry.libraryOf(delta), expectedPath);
    EXPECT_EQ(kilnRegistry.libraryOf(epsilon), expectedPath);

    // Loading it again registers nothing twice and says why.
    EXPECT_EQ(registry.loadLibrary(KILN_TEST_STATIC_LIBRARY), nullptr);
    std::string const error = onlyError();
    EXPECT_TRUE(contains(error, "already loaded")) << error;
    EXPECT_TRUE(contains(error, "\"StaticDelta\" version \"1\" namespace \"\"")) << error;
    EXPECT_EQ(registry.getPluginCreator("StaticDelta", "1"), delta);

    // The creators registered by the initialisers belong to the library.
    registry.deregisterLibrary(handle);
    EXPECT_EQ(kilnRegistry.findCreator("StaticDelta", "1", "").creator, nullptr);
    EXPECT_EQ(kilnRegistry.findCreator("StaticEpsilon", "3", "").creator, nullptr);
    EXPECT_FALSE(isMapped(KILN_TEST_STATIC_LIBRARY));
}

TEST_F(LibraryTest, LibraryThatIsNotAPluginLibrary)
{
    EXPECT_EQ(registry.loadLibrary(KILN_TEST_NOT_PLUGIN_LIBRARY), nullptr);
    EXPECT_EQ(onlyError(),
        "IPluginRegistry::loadLibrary(\"" KILN_TEST_NOT_PLUGIN_LIBRARY "\"): " KILN_TEST_NOT_PLUGIN_LIBRARY
        " is not a plugin library: it exports neither getCreators nor getPluginCreators and registered no "
        "creator when loaded");
    EXPECT_FALSE(isMapped(KILN_TEST_NOT_PLUGIN_LIBRARY));
}

TEST_F(LibraryTest, NonexistentPath)
{
    std::string const path = std::string(KILN_TEST_NOT_PLUGIN_LIBRARY) + ".does-not-exist.so";
    EXPECT_EQ(registry.loadLibrary(path.c_str()), nullptr);
    std::string const error = onlyError();
    EXPECT_TRUE(contains(error, path)) << error;
    EXPECT_TRUE(contains(error, "No such file")) << error;
}

TEST_F(LibraryTest, NullPath)
{
    EXPECT_EQ(registry.loadLibrary(nullptr), nullptr);
    EXPECT_EQ(logger.errors().size(), 1u);
}

TEST_F(LibraryTest, LoadFailureReachesTheErrorRecorder)
{
    kiln_test::RecordingErrorRecorder recorder;
    registry.setErrorRecorder(&recorder);
    EXPECT_EQ(registry.loadLibrary(KILN_TEST_NOT_PLUGIN_LIBRARY), nullptr);
    registry.setErrorRecorder(nullptr);
    ASSERT_EQ(recorder.errors.size(), 1u);
    EXPECT_EQ(recorder.errors[0].first, nvinfer1::ErrorCode::kFAILED_INITIALIZATION);
    EXPECT_TRUE(contains(recorder.errors[0].second, "is not a plugin library"));
    EXPECT_EQ(recorder.references, 0);
}

TEST_F(LibraryTest, ThrowingEntryPointIsAnErrorNamingLibraryAndMethod)
{
    EXPECT_EQ(registry.loadLibrary(KILN_TEST_THROWING_LIBRARY), nullptr);
    std::string const error = onlyError();
    EXPECT_TRUE(contains(error, KILN_TEST_THROWING_LIBRARY)) << error;
    EXPECT_TRUE(contains(error, "getCreators()")) << error;
    EXPECT_TRUE(contains(error, "getCreators is broken on purpose")) << error;
    EXPECT_FALSE(isMapped(KILN_TEST_THROWING_LIBRARY));
}

TEST_F(LibraryTest, LoadingTheSameLibraryTwice)
{
    LibraryHandle const first = registry.loadLibrary(KILN_TEST_GET_CREATORS_LIBRARY);
    ASSERT_NE(first, nullptr);
    nvinfer1::IPluginCreatorInterface* const alpha = registry.getCreator("LibAlpha", "1", "libns");

    EXPECT_EQ(registry.loadLibrary(KILN_TEST_GET_CREATORS_LIBRARY), nullptr);
    std::string const error = onlyError();
    EXPECT_TRUE(contains(error, "already loaded")) << error;
    EXPECT_TRUE(contains(error, "\"LibAlpha\" version \"1\" namespace \"libns\"")) << error;

    // The first load is unaffected, and one deregisterLibrary unloads it completely.
    EXPECT_EQ(creatorCount(registry), baseline + 2);
    EXPECT_EQ(registry.getCreator("LibAlpha", "1", "libns"), alpha);
    registry.deregisterLibrary(first);
    EXPECT_FALSE(isMapped(KILN_TEST_GET_CREATORS_LIBRARY));
}

TEST_F(LibraryTest, DuplicateInAnotherLibraryUndoesThatLoad)
{
    LibraryHandle const first = registry.loadLibrary(KILN_TEST_GET_CREATORS_LIBRARY);
    ASSERT_NE(first, nullptr);

    EXPECT_EQ(registry.loadLibrary(KILN_TEST_DUPLICATE_LIBRARY), nullptr);
    std::string const error = onlyError();
    EXPECT_TRUE(contains(error, KILN_TEST_DUPLICATE_LIBRARY)) << error;
    EXPECT_TRUE(contains(error, "\"LibAlpha\" version \"1\" namespace \"libns\"")) << error;
    EXPECT_FALSE(contains(error, "DupUnique")) << error;
    EXPECT_EQ(kilnRegistry.findCreator("DupUnique", "1", "").creator, nullptr);
    EXPECT_FALSE(isMapped(KILN_TEST_DUPLICATE_LIBRARY));
    nvinfer1::IPluginCreatorInterface* const alpha = registry.getCreator("LibAlpha", "1", "libns");
    EXPECT_EQ(kilnRegistry.libraryOf(alpha), canonical(KILN_TEST_GET_CREATORS_LIBRARY));

    registry.deregisterLibrary(first);
}

TEST_F(LibraryTest, DeregisterLibraryRemovesExactlyThatLibrarysCreators)
{
    kiln_test::TestCreatorV2 local("LocalZeta", "1");
    ASSERT_TRUE(registry.registerCreator(local, ""));
    LibraryHandle const modern = registry.loadLibrary(KILN_TEST_GET_CREATORS_LIBRARY);
    LibraryHandle const legacy = registry.loadLibrary(KILN_TEST_PLUGIN_CREATORS_LIBRARY);
    LibraryHandle const selfRegistering = registry.loadLibrary(KILN_TEST_STATIC_LIBRARY);
    ASSERT_NE(modern, nullptr);
    ASSERT_NE(legacy, nullptr);
    ASSERT_NE(selfRegistering, nullptr);
    EXPECT_EQ(creatorCount(registry), baseline + 6);

    registry.deregisterLibrary(modern);
    EXPECT_EQ(creatorCount(registry), baseline + 4);
    EXPECT_EQ(kilnRegistry.findCreator("LibAlpha", "1", "libns").creator, nullptr);
    EXPECT_EQ(kilnRegistry.findCreator("LibBeta", "1", "").creator, nullptr);
    EXPECT_NE(kilnRegistry.findCreator("LegacyGamma", "2", "").creator, nullptr);
    EXPECT_NE(kilnRegistry.findCreator("StaticDelta", "1", "").creator, nullptr);
    EXPECT_NE(kilnRegistry.findCreator("StaticEpsilon", "3", "").creator, nullptr);
    EXPECT_EQ(kilnRegistry.findCreator("LocalZeta", "1", "").creator, &local);

    registry.deregisterLibrary(selfRegistering);
    EXPECT_EQ(creatorCount(registry), baseline + 2);
    EXPECT_NE(kilnRegistry.findCreator("LegacyGamma", "2", "").creator, nullptr);
    EXPECT_EQ(kilnRegistry.findCreator("StaticDelta", "1", "").creator, nullptr);

    registry.deregisterLibrary(legacy);
    EXPECT_TRUE(registry.deregisterCreator(local));
    EXPECT_TRUE(logger.errors().empty());
}

TEST_F(LibraryTest, UnknownHandleChangesNothing)
{
    LibraryHandle const handle = registry.loadLibrary(KILN_TEST_GET_CREATORS_LIBRARY);
    ASSERT_NE(handle, nullptr);
    int notALibrary = 0;
    registry.deregisterLibrary(&notALibrary);
    EXPECT_EQ(onlyError().find("IPluginRegistry::deregisterLibrary"), 0u);
    EXPECT_EQ(creatorCount(registry), baseline + 2);
    EXPECT_TRUE(isMapped(KILN_TEST_GET_CREATORS_LIBRARY));

    registry.deregisterLibrary(handle);
    logger.clear();
    // A second deregisterLibrary of the same handle is an unknown handle too.
    registry.deregisterLibrary(handle);
    EXPECT_EQ(logger.errors().size(), 1u);
}

TEST_F(LibraryTest, LibraryOpenedByTheApplicationItself)
{
    // The application dlopens a self-registering library without loadLibrary: the
    // loader still tells which library the creators came from.
    void* const handle = dlopen(KILN_TEST_STATIC_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    nvinfer1::IPluginCreator* const delta = registry.getPluginCreator("StaticDelta", "1");
    nvinfer1::IPluginCreatorInterface* const epsilon = registry.getCreator("StaticEpsilon", "3");
    ASSERT_NE(delta, nullptr);
    ASSERT_NE(epsilon, nullptr);
    std::string const expectedPath = canonical(KILN_TEST_STATIC_LIBRARY);
    EXPECT_EQ(kilnRegistry.libraryOf(delta), expectedPath);
    EXPECT_EQ(kilnRegistry.libraryOf(epsilon), expectedPath);

    // loadLibrary cannot register them a second time.
    EXPECT_EQ(registry.loadLibrary(KILN_TEST_STATIC_LIBRARY), nullptr);
    std::string const error = onlyError();
    EXPECT_TRUE(contains(error, "already registered")) << error;
    EXPECT_TRUE(contains(error, "\"StaticEpsilon\" version \"3\" namespace \"\"")) << error;
    EXPECT_EQ(registry.getPluginCreator("StaticDelta", "1"), delta);

    // The application owns this library: it deregisters the creators before closing it.
    EXPECT_TRUE(registry.deregisterCreator(*delta));
    EXPECT_TRUE(registry.deregisterCreator(*epsilon));
    dlclose(handle);
}

TEST_F(LibraryTest, HeapCreatorOfALibraryTheApplicationOpened)
{
    // The application gets a creator out of a library by itself and registers it (on a
    // registry of its own here). The creator is on the heap: its class tells the library.
    void* const handle = dlopen(KILN_TEST_PLUGIN_CREATORS_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    using GetPluginCreators = nvinfer1::IPluginCreator* const* (*) (int32_t&);
    auto const getPluginCreators = reinterpret_cast<GetPluginCreators>(dlsym(handle, "getPluginCreators"));
    ASSERT_NE(getPluginCreators, nullptr);
    int32_t count = 0;
    nvinfer1::IPluginCreator* const creator = getPluginCreators(count)[0];
    ASSERT_EQ(count, 1);

    kiln::plugin::PluginRegistry ownRegistry;
    ASSERT_TRUE(ownRegistry.registerCreator(*creator, ""));
    EXPECT_EQ(ownRegistry.libraryOf(creator), canonical(KILN_TEST_PLUGIN_CREATORS_LIBRARY));
    EXPECT_TRUE(ownRegistry.deregisterCreator(*creator));
    EXPECT_EQ(ownRegistry.libraryOf(creator), "");
    dlclose(handle);
}
