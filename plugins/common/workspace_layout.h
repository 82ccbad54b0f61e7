// Carves one workspace into aligned arrays. The same sequence of take() calls sizes the workspace (on a null base,
// for getWorkspaceSize) and hands out its pointers (on the real base, in enqueue), so the two cannot disagree.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::plugins
{

class WorkspaceLayout
{
public:
    explicit WorkspaceLayout(void* base = nullptr)
        : mBase(static_cast<uint8_t*>(base))
    {
    }

    //! The next array of `count` elements of T, 256-byte aligned (null while only sizing).
    template <typename T>
    T* take(size_t count)
    {
        size_t const offset = mSize;
        mSize += (count * sizeof(T) + kAlign - 1) / kAlign * kAlign;
        return mBase == nullptr ? nullptr : reinterpret_cast<T*>(mBase + offset);
    }
    //! Bytes taken so far.
    size_t size() const
    {
        return mSize;
    }

private:
    static constexpr size_t kAlign = 256;
    uint8_t* mBase;
    size_t mSize{0};
};

} // namespace kiln::plugins
