#include "backend/timing_cache.h"

#include "core/host_memory.h"
#include "serial/byte_io.h"

#include <NvInferVersion.h>

#include <cstring>
#include <limits>

namespace kiln::backend
{
namespace
{

constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'T', 'I', 'M', 'E'};
//! 2: a tactic is the CUDA backend's AlgorithmChoice (its source in the high 32 bits, the algorithm or engine rank in
//! the low), where format 1 stored a per-call algorithm as is and a graph engine's rank plus 1000.
constexpr uint32_t kFormatVersion = 2;

//! FNV-1a over `text`, started from `basis`: two bases give the key's two halves.
uint64_t digest(std::string const& text, uint64_t basis)
{
    uint64_t hash = basis;
    for (unsigned char c : text)
    {
        hash = (hash ^ c) * 1099511628211ULL;
    }
    return hash;
}

} // namespace

TimingCache::TimingCache(std::string device)
    : mDevice(std::move(device))
{
}

std::unique_ptr<TimingCache> TimingCache::parse(void const* blob, size_t size, std::string& error)
{
    serial::ByteReader reader(blob, size);
    char magic[sizeof(kMagic)] = {};
    uint32_t version = 0;
    std::string kiln;
    std::string device;
    uint64_t count = 0;
    if (!reader.read(magic, "magic") || std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
    {
        error = "not a Kiln timing cache (it does not start with \"KILNTIME\")";
        return nullptr;
    }
    if (!reader.read(version, "format version") || !reader.readString(kiln, "Kiln version"))
    {
        error = "the timing cache is truncated: " + reader.error();
        return nullptr;
    }
    if (version != kFormatVersion || kiln != KILN_VERSION_STRING)
    {
        error = "the timing cache was written by Kiln " + kiln + " (format " + std::to_string(version)
            + "); this is Kiln " KILN_VERSION_STRING ": delete it and let the next build time again";
        return nullptr;
    }
    if (!reader.readString(device, "device") || !reader.read(count, "entry count"))
    {
        error = "the timing cache is truncated: " + reader.error();
        return nullptr;
    }
    auto cache = std::make_unique<TimingCache>(device);
    for (uint64_t i = 0; i < count; ++i)
    {
        Key key{};
        nvinfer1::TimingCacheValue value{};
        if (!reader.read(key, "entry key") || !reader.read(value.tacticHash, "entry tactic")
            || !reader.read(value.timingMSec, "entry time"))
        {
            error = "the timing cache is truncated: " + reader.error();
            return nullptr;
        }
        cache->mEntries[key] = value;
    }
    if (reader.remaining() != 0)
    {
        error = "the timing cache has " + std::to_string(reader.remaining()) + " bytes after its last entry";
        return nullptr;
    }
    return cache;
}

nvinfer1::IHostMemory* TimingCache::serialize() const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    serial::ByteWriter writer;
    writer.write(kMagic);
    writer.write(kFormatVersion);
    writer.writeString(KILN_VERSION_STRING);
    writer.writeString(mDevice);
    writer.write(static_cast<uint64_t>(mEntries.size()));
    for (auto const& [key, value] : mEntries)
    {
        writer.write(key);
        writer.write(value.tacticHash);
        writer.write(value.timingMSec);
    }
    return new HostMemory(writer.take());
}

bool TimingCache::combine(nvinfer1::ITimingCache const& inputCache, bool ignoreMismatch) noexcept
{
    auto const* other = dynamic_cast<TimingCache const*>(&inputCache);
    if (other == nullptr || other == this)
    {
        return other == this;
    }
    std::string const device = other->device();
    if (!ignoreMismatch && !acceptsTimingsFrom(device))
    {
        return false;
    }
    std::scoped_lock lock(mMutex, other->mMutex);
    for (auto const& entry : other->mEntries)
    {
        mEntries.insert(entry); // conflicting entries keep this cache's value
    }
    if (mDevice.empty())
    {
        mDevice = device;
    }
    return true;
}

bool TimingCache::reset() noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mEntries.clear();
    return true;
}

int64_t TimingCache::queryKeys(nvinfer1::TimingCacheKey* keyBuffer, int64_t capacity) const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    if (keyBuffer != nullptr)
    {
        int64_t written = 0;
        for (auto it = mEntries.begin(); it != mEntries.end() && written < capacity; ++it, ++written)
        {
            std::memcpy(keyBuffer[written].data, it->first.data(), it->first.size());
        }
    }
    return static_cast<int64_t>(mEntries.size());
}

nvinfer1::TimingCacheValue TimingCache::query(nvinfer1::TimingCacheKey const& key) const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    auto const it = mEntries.find(bytesOf(key));
    return it != mEntries.end() ? it->second : nvinfer1::TimingCacheValue{std::numeric_limits<uint64_t>::max(), 0.0F};
}

bool TimingCache::update(nvinfer1::TimingCacheKey const& key, nvinfer1::TimingCacheValue const& value) noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    auto const it = mEntries.find(bytesOf(key));
    if (it == mEntries.end())
    {
        return false; // as TensorRT: update changes existing entries only
    }
    it->second = value;
    return true;
}

std::string TimingCache::device() const
{
    std::lock_guard<std::mutex> lock(mMutex);
    return mDevice;
}

bool TimingCache::acceptsTimingsFrom(std::string const& device) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    return mDevice.empty() || device.empty() || mDevice == device;
}

nvinfer1::TimingCacheKey TimingCache::keyOf(std::string const& description)
{
    uint64_t const halves[2]
        = {digest(description, 14695981039346656037ULL), digest(description, 0x6b696c6e74696d65ULL)};
    nvinfer1::TimingCacheKey key{};
    std::memcpy(key.data, halves, sizeof(key.data));
    return key;
}

std::optional<nvinfer1::TimingCacheValue> TimingCache::find(std::string const& description) const
{
    nvinfer1::TimingCacheValue const value = query(keyOf(description));
    if (value.tacticHash == std::numeric_limits<uint64_t>::max())
    {
        return std::nullopt;
    }
    return value;
}

std::string TimingCache::missError(std::string const& layer, std::string const& description)
{
    return "layer \"" + layer + "\": the timing cache has no entry for it (" + description
        + ") and BuilderFlag::kERROR_ON_TIMING_CACHE_MISS is set";
}

bool TimingCache::cachedOrTimed(std::string const& description, std::string const& layer, bool errorOnCacheMiss,
    std::string const& device, std::function<nvinfer1::TimingCacheValue()> const& time,
    std::optional<nvinfer1::TimingCacheValue>& timing, std::string& error)
{
    if ((timing = find(description)))
    {
        return true;
    }
    if (errorOnCacheMiss)
    {
        error = missError(layer, description);
        return false;
    }
    if (time)
    {
        timing = time();
        record(description, *timing, device);
    }
    return true;
}

void TimingCache::record(
    std::string const& description, nvinfer1::TimingCacheValue const& value, std::string const& device)
{
    std::lock_guard<std::mutex> lock(mMutex);
    mEntries[bytesOf(keyOf(description))] = value;
    if (mDevice.empty())
    {
        mDevice = device;
    }
}

TimingCache::Key TimingCache::bytesOf(nvinfer1::TimingCacheKey const& key)
{
    Key bytes{};
    std::memcpy(bytes.data(), key.data, bytes.size());
    return bytes;
}

} // namespace kiln::backend
