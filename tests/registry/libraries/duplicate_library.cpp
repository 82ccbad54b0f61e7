// Exports one new creator and one that get_creators_library also exports.
#include "libraries/test_library_export.h"
#include "test_creators.h"

namespace
{
kiln_test::TestCreatorV2 gUnique("DupUnique", "1");
kiln_test::TestCreatorV2 gClash("LibAlpha", "1", "libns");
} // namespace

KILN_TEST_EXPORT nvinfer1::IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)
{
    static nvinfer1::IPluginCreatorInterface* const creators[] = {&gUnique, &gClash};
    nbCreators = 2;
    return creators;
}
