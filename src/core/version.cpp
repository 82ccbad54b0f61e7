// The library's version functions report the TensorRT API level Kiln implements.
#include <NvInferRuntime.h>

extern "C" int32_t getInferLibVersion() noexcept
{
    return static_cast<int32_t>(NV_TENSORRT_VERSION);
}

extern "C" int32_t getInferLibMajorVersion() noexcept
{
    return NV_TENSORRT_MAJOR;
}

extern "C" int32_t getInferLibMinorVersion() noexcept
{
    return NV_TENSORRT_MINOR;
}

extern "C" int32_t getInferLibPatchVersion() noexcept
{
    return NV_TENSORRT_PATCH;
}

extern "C" int32_t getInferLibBuildVersion() noexcept
{
    return NV_TENSORRT_BUILD;
}
