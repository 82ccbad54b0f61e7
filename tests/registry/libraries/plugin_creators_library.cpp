// A TensorRT 8.6-style plugin library: getPluginCreators only. Its creator lives on the
// heap, so the loader can find its library only through the creator's class.
#include "libraries/test_library_export.h"
#include "test_creators.h"

#include <memory>

namespace
{
std::unique_ptr<kiln_test::TestCreatorV2> const gGamma = std::make_unique<kiln_test::TestCreatorV2>("LegacyGamma", "2");
} // namespace

KILN_TEST_EXPORT nvinfer1::IPluginCreator* const* getPluginCreators(int32_t& nbCreators)
{
    static nvinfer1::IPluginCreator* const creators[] = {gGamma.get()};
    nbCreators = 1;
    return creators;
}
