// A TensorRT 10-style plugin library: setLoggerFinder and getCreators.
#include "libraries/test_library_export.h"
#include "test_creators.h"

namespace
{

nvinfer1::ILoggerFinder* gLoggerFinder = nullptr;
int gLoggerFinderCalls = 0;

// Its own namespace: loadLibrary registers creators under getPluginNamespace().
kiln_test::TestCreatorV2 gAlpha("LibAlpha", "1", "libns");
kiln_test::TestCreatorV3 gBeta("LibBeta", "1");

} // namespace

KILN_TEST_EXPORT void setLoggerFinder(nvinfer1::ILoggerFinder* finder)
{
    gLoggerFinder = finder;
    ++gLoggerFinderCalls;
}

KILN_TEST_EXPORT nvinfer1::IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)
{
    static nvinfer1::IPluginCreatorInterface* const creators[] = {&gAlpha, &gBeta};
    if (gLoggerFinder != nullptr)
    {
        if (nvinfer1::ILogger* logger = gLoggerFinder->findLogger())
        {
            logger->log(nvinfer1::ILogger::Severity::kINFO, "get_creators_library: handing out 2 creators");
        }
    }
    nbCreators = 2;
    return creators;
}

KILN_TEST_EXPORT int kilnTestLoggerFinderCalls()
{
    return gLoggerFinderCalls;
}
