// A plugin's cuBLAS handle, created the first time a device run needs it (never on the CPU backend). A copy starts
// empty: each plugin clone (one per execution context) creates and destroys its own.
#pragma once

#include <mutex>

namespace kiln::plugins
{

class BlasHandle
{
public:
    BlasHandle() = default;
    BlasHandle(BlasHandle const& /*other*/) { }
    BlasHandle& operator=(BlasHandle const&) = delete;
    ~BlasHandle();

    //! The cublasHandle_t, made on the first call; throws PluginError naming `plugin`.
    void* get(char const* plugin) const;

private:
    mutable std::mutex mMutex;
    mutable void* mHandle{nullptr};
};

} // namespace kiln::plugins
