// A plugin library with no entry point: its creators register themselves with
// REGISTER_TENSORRT_PLUGIN while the library is loaded.
#include "test_creators.h"

namespace static_library
{

class StaticDeltaCreator : public kiln_test::TestCreatorV2
{
public:
    StaticDeltaCreator()
        : TestCreatorV2("StaticDelta", "1")
    {
    }
};

class StaticEpsilonCreator : public kiln_test::TestCreatorV3
{
public:
    StaticEpsilonCreator()
        : TestCreatorV3("StaticEpsilon", "3")
    {
    }
};

// Used inside a namespace, as third-party plugin code does.
REGISTER_TENSORRT_PLUGIN(StaticDeltaCreator);
REGISTER_TENSORRT_PLUGIN(StaticEpsilonCreator);

} // namespace static_library
