// A plugin library of libnvinfer_plugin's older shape: its only entry point is initLibNvInferPlugins, which
// registers its creators under the namespace it is given.
#include "libraries/test_library_export.h"
#include "test_creators.h"

namespace
{

kiln_test::TestCreatorV2 gZeta("InitZeta", "1", "");
kiln_test::TestCreatorV3 gEta("InitEta", "2");
int gInitCalls = 0;

} // namespace

KILN_TEST_EXPORT bool initLibNvInferPlugins(void* /*logger*/, char const* libNamespace)
{
    ++gInitCalls;
    char const* ns = libNamespace != nullptr ? libNamespace : "";
    getPluginRegistry()->registerCreator(gZeta, ns);
    getPluginRegistry()->registerCreator(gEta, ns);
    return true;
}

KILN_TEST_EXPORT int kilnTestInitCalls()
{
    return gInitCalls;
}
