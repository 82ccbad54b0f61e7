// Where CustomQKVToContextPluginDynamic keeps its cuBLAS handle; free of CUDA headers so that the plugin's host code
// compiles in a build without CUDA.
#pragma once

#include <memory>
#include <mutex>

namespace kiln::plugins
{

//! A cuBLAS handle made on the first device run. A copy starts without one: each plugin clone (one per execution
//! context) makes and destroys its own, so contexts on different streams never share a handle.
class CublasSlot
{
public:
    CublasSlot() = default;
    CublasSlot(CublasSlot const& /*other*/) { }
    CublasSlot& operator=(CublasSlot const&) = delete;

    std::mutex mutex;
    std::unique_ptr<void, void (*)(void*)> handle{nullptr, nullptr};
};

} // namespace kiln::plugins
