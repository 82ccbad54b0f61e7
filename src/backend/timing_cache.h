// ITimingCache: what the builder measured (today: each convolution configuration's fastest
// cuDNN algorithm or graph engine), keyed by a digest of the configuration and tied to the GPU and the Kiln
// that measured it, so that later builds on the same machine skip the timing.
#pragma once

#include <NvInfer.h>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace kiln::backend
{

class TimingCache final : public nvinfer1::ITimingCache
{
public:
    //! An empty cache for timings on `device` (a backend's deviceIdentity(); empty: whichever device first adds to it).
    explicit TimingCache(std::string device);

    //! The cache `blob` serializes; nullptr with `error` when it is not one (truncated, corrupt, or written by
    //! another version of Kiln).
    static std::unique_ptr<TimingCache> parse(void const* blob, size_t size, std::string& error);

    nvinfer1::IHostMemory* serialize() const noexcept override;
    bool combine(nvinfer1::ITimingCache const& inputCache, bool ignoreMismatch) noexcept override;
    bool reset() noexcept override;
    int64_t queryKeys(nvinfer1::TimingCacheKey* keyBuffer, int64_t capacity) const noexcept override;
    nvinfer1::TimingCacheValue query(nvinfer1::TimingCacheKey const& key) const noexcept override;
    bool update(nvinfer1::TimingCacheKey const& key, nvinfer1::TimingCacheValue const& value) noexcept override;

    //! The device the timings were taken on; empty for a cache nothing was added to.
    std::string device() const;
    //! Whether timings taken on `device` may go into this cache (it is empty of a device, or the same device).
    bool acceptsTimingsFrom(std::string const& device) const;

    //! The key of a configuration, from its full description.
    static nvinfer1::TimingCacheKey keyOf(std::string const& description);
    std::optional<nvinfer1::TimingCacheValue> find(std::string const& description) const;
    //! Records a timing taken on `device`.
    void record(std::string const& description, nvinfer1::TimingCacheValue const& value, std::string const& device);

    //! The build's error for layer `layer` whose configuration `description` the cache lacks under
    //! BuilderFlag::kERROR_ON_TIMING_CACHE_MISS.
    static std::string missError(std::string const& layer, std::string const& description);

    //! How a build pass finds the timing of a layer named `layer` whose configuration is `description`: the cache's
    //! entry, else what `time` measures (empty: no GPU to time on), recorded as taken on `device`. `time` may throw
    //! where the layer cannot be timed; the exception reaches the caller and nothing is recorded. `timing` stays empty
    //! where neither the cache nor a timer answers. False with `error` (missError) where the cache lacks the entry
    //! and `errorOnCacheMiss` (BuilderFlag::kERROR_ON_TIMING_CACHE_MISS) is set.
    bool cachedOrTimed(std::string const& description, std::string const& layer, bool errorOnCacheMiss,
        std::string const& device, std::function<nvinfer1::TimingCacheValue()> const& time,
        std::optional<nvinfer1::TimingCacheValue>& timing, std::string& error);

private:
    using Key = std::array<uint8_t, sizeof(nvinfer1::TimingCacheKey)>;
    static Key bytesOf(nvinfer1::TimingCacheKey const& key);

    mutable std::mutex mMutex; //!< builds on several threads may share one cache
    std::string mDevice;
    std::map<Key, nvinfer1::TimingCacheValue> mEntries;
};

} // namespace kiln::backend
