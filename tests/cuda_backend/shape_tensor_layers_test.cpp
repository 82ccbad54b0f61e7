// Shape tensors through every layer kind that carries their values, on the CUDA backend: the same cases as the CPU
// backend's (tests/layers/shape_tensor_cases.cpp). The CUDA backend evaluates layers that compute only INT32/INT64
// shape tensors on the host and copies the values to the device; the rest (comparisons, casts to FLOAT, the fills
// the shapes decide) run as kernels reading those copies.
#include "backend_comparison.h"
#include "shape_tensor_cases.h"

namespace
{

using namespace kiln::test::shape_tensors;

Buffers deviceBuffers()
{
    return Buffers{[](size_t bytes) {
                       void* data = nullptr;
                       EXPECT_EQ(cudaMalloc(&data, bytes), cudaSuccess);
                       return data;
                   },
        [](void* data) { cudaFree(data); },
        [](void* to, void const* from, size_t bytes) {
            EXPECT_EQ(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice), cudaSuccess);
        },
        [](void* to, void const* from, size_t bytes) {
            EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            EXPECT_EQ(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
        }};
}

class CudaBackendShapeTensorLayers : public ::testing::TestWithParam<std::tuple<Case, Source>>
{
};

// Building needs no GPU: the builder accepts every layer that computes shape tensors, kernels or not.
TEST_P(CudaBackendShapeTensorLayers, PlanBuilds)
{
    buildsFor(std::get<0>(GetParam()), std::get<1>(GetParam()), kiln::Backend::kCUDA);
}

TEST_P(CudaBackendShapeTensorLayers, ValuesAndTheShapesTheyDecideFollowEachRun)
{
    SKIP_WITHOUT_GPU();
    runCase(std::get<0>(GetParam()), std::get<1>(GetParam()), kiln::Backend::kCUDA, deviceBuffers());
}

INSTANTIATE_TEST_SUITE_P(Kinds, CudaBackendShapeTensorLayers,
    ::testing::Combine(::testing::ValuesIn(allCases()), ::testing::Values(Source::kSYMBOLIC, Source::kRUN_TIME)),
    caseName);

} // namespace
