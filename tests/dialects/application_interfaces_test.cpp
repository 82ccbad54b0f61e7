// The classes an application implements, each written twice: as TensorRT 7-era code writes its overrides (without
// noexcept) and as TensorRT 8/10 code does (with it). Compiled as application code is (C++17, -Wall -Wextra
// -Werror). Kiln's bases leave noexcept off the methods applications override, so both forms compile; TensorRT 10's
// own headers accept only the second. Also checks names applications use as TensorRT 10 declares them.
#include <NvInfer.h>
#include <NvOnnxConfig.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

// TensorRT declares PluginLibraryHandle only inside IPluginRegistry, so application code may use the name at
// namespace scope for itself. This declaration would clash with a namespace-scope nvinfer1::PluginLibraryHandle.
namespace nvinfer1
{
struct PluginLibraryHandle;
} // namespace nvinfer1

static_assert(std::is_same_v<nvinfer1::IPluginRegistry::PluginLibraryHandle, void*>);
static_assert(std::is_same_v<nvinfer1::IProfiler, nvinfer1::v_1_0::IProfiler>);
static_assert(std::is_same_v<nvinfer1::IProgressMonitor, nvinfer1::v_1_0::IProgressMonitor>);
static_assert(std::is_same_v<nvinfer1::IOutputAllocator, nvinfer1::v_1_0::IOutputAllocator>);
static_assert(std::is_same_v<nvinfer1::IErrorRecorder, nvinfer1::v_1_0::IErrorRecorder>);
static_assert(std::is_same_v<nvinfer1::IGpuAllocator, nvinfer1::v_1_0::IGpuAllocator>);
static_assert(std::is_same_v<nvonnxparser::IOnnxConfig::Verbosity, int32_t>);

namespace
{

using namespace nvinfer1;

namespace trt7
{
#define KILN_APPLICATION_NOEXCEPT
#include "application_interfaces.inc"
#undef KILN_APPLICATION_NOEXCEPT
} // namespace trt7

namespace trt10
{
#define KILN_APPLICATION_NOEXCEPT noexcept
#include "application_interfaces.inc"
#undef KILN_APPLICATION_NOEXCEPT
} // namespace trt10

TEST(ApplicationInterfaces, OverridesWithoutNoexceptAsTensorRT7WroteThem)
{
    trt7::callEveryInterface();
}

TEST(ApplicationInterfaces, OverridesWithNoexceptAsTensorRT8And10WriteThem)
{
    trt10::callEveryInterface();
}

} // namespace
