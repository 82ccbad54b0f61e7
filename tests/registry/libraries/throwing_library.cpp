// A plugin library whose getCreators throws.
#include "libraries/test_library_export.h"
#include "test_creators.h"

#include <stdexcept>

KILN_TEST_EXPORT nvinfer1::IPluginCreatorInterface* const* getCreators(int32_t&)
{
    throw std::runtime_error("getCreators is broken on purpose");
}
