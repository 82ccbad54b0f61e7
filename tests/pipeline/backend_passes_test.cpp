// Each backend's build passes, as kiln::getNbBackendPasses and kiln::getBackendPassName list them (the list each
// backend's optimize applies, which `kiln inspect` prints): the names in order, and the refusals of what is not there.
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace
{

std::vector<std::string> passesOf(kiln::Backend backend)
{
    std::vector<std::string> names;
    for (int32_t i = 0; i < kiln::getNbBackendPasses(backend); ++i)
    {
        char const* name = kiln::getBackendPassName(backend, i);
        names.push_back(name != nullptr ? name : "(null)");
    }
    return names;
}

TEST(BackendPasses, CpuListsItsFastPathPassesInOrder)
{
    std::vector<std::string> const expected{"recurrence fusion", "scale folding", "attention fusion", "GELU fusion",
        "Q/DQ propagation", "quantized fusion", "quantized matrix multiply fusion", "convolution epilogue fusion",
        "matrix multiply epilogue fusion", "sample normalizations", "sample affine folding", "point-wise chain fusion",
        "channel permutations", "fast path marking", "channels-last formats"};
    EXPECT_EQ(passesOf(kiln::Backend::kCPU), expected);
}

#if KILN_WITH_CUDA
TEST(BackendPasses, CudaListsFusionsThenFormatsThenTiming)
{
    std::vector<std::string> const expected{"recurrence fusion", "recurrence pairing", "splits before transposes",
        "attention fusion", "row transposes", "constants before transposes", "GELU fusion", "Q/DQ propagation",
        "quantized fusion", "quantized matrix multiply fusion", "column scale folding", "convolution epilogue fusion",
        "matrix multiply epilogue fusion", "normalization fusion", "point-wise chain fusion", "product merging",
        "channel permutations", "sample normalizations", "channels-last formats", "layout timing",
        "convolution algorithms", "INT8 convolution algorithms", "matrix multiply algorithms", "attention algorithms"};
    EXPECT_EQ(passesOf(kiln::Backend::kCUDA), expected);
}
#else
TEST(BackendPasses, ABackendThisBuildLacksHasNone)
{
    EXPECT_EQ(kiln::getNbBackendPasses(kiln::Backend::kCUDA), 0);
    EXPECT_EQ(kiln::getBackendPassName(kiln::Backend::kCUDA, 0), nullptr);
}
#endif

TEST(BackendPasses, DefaultIsTheBackendItResolvesTo)
{
    EXPECT_EQ(passesOf(kiln::Backend::kDEFAULT), passesOf(kiln::defaultBackend()));
}

TEST(BackendPasses, IndicesOutOfRangeAndUnknownBackendsGiveNothing)
{
    int32_t const count = kiln::getNbBackendPasses(kiln::Backend::kCPU);
    EXPECT_EQ(kiln::getBackendPassName(kiln::Backend::kCPU, -1), nullptr);
    EXPECT_EQ(kiln::getBackendPassName(kiln::Backend::kCPU, count), nullptr);
    auto const unknown = static_cast<kiln::Backend>(7);
    EXPECT_EQ(kiln::getNbBackendPasses(unknown), 0);
    EXPECT_EQ(kiln::getBackendPassName(unknown, 0), nullptr);
}

} // namespace
