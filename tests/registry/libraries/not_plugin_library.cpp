// A shared library that is not a plugin library.
#include "libraries/test_library_export.h"

KILN_TEST_EXPORT int kilnTestAnswer()
{
    return 42;
}
