#include <NvInferRuntime.h>

#include <gtest/gtest.h>

TEST(Version, LibraryReportsTheApiLevelOfItsHeaders)
{
    EXPECT_EQ(getInferLibVersion(), NV_TENSORRT_VERSION);
    EXPECT_EQ(getInferLibVersion(), 101600);
    EXPECT_EQ(getInferLibMajorVersion(), 10);
    EXPECT_EQ(getInferLibMinorVersion(), NV_TENSORRT_MINOR);
    EXPECT_EQ(getInferLibPatchVersion(), NV_TENSORRT_PATCH);
    EXPECT_EQ(getInferLibBuildVersion(), NV_TENSORRT_BUILD);
}

TEST(Version, PackedVersionFollowsTensorRT10Formula)
{
    EXPECT_EQ(NV_TENSORRT_VERSION_INT(8, 6, 1), 80601L);
    EXPECT_EQ(NV_TENSORRT_VERSION_INT(10, 16, 0), 101600L);
}
