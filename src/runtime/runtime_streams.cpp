// IRuntime::deserializeCudaEngine from the application's stream readers: the plan is read whole into host memory,
// then loaded as a plan in memory is (Kiln's plan format is read in one piece, checksum first).
#include "runtime/runtime.h"

#include "core/logging.h"

#include <string>
#include <vector>

namespace kiln::runtime
{

namespace
{

//! Bytes asked for per read: large enough that a plan takes few calls, small enough not to over-allocate.
constexpr int64_t kChunkBytes = int64_t{1} << 20;

//! Reads chunks through `read` until it gives fewer bytes than asked (`stopOnShort`) or 0. False, with `error`
//! naming `call`, when a read fails or throws.
template <typename Read>
bool readWhole(char const* call, Read&& read, bool stopOnShort, std::vector<char>& bytes, std::string& error)
{
    try
    {
        while (true)
        {
            size_t const start = bytes.size();
            bytes.resize(start + static_cast<size_t>(kChunkBytes));
            int64_t const got = read(bytes.data() + start, kChunkBytes);
            if (got < 0 || got > kChunkBytes)
            {
                error = std::string(call) + ": the stream reader failed (read returned " + std::to_string(got) + ")";
                return false;
            }
            bytes.resize(start + static_cast<size_t>(got));
            if (got == 0 || (stopOnShort && got < kChunkBytes))
            {
                return true;
            }
        }
    }
    catch (std::exception const& e)
    {
        error = std::string(call) + ": the stream reader threw: " + e.what();
    }
    catch (...)
    {
        error = std::string(call) + ": the stream reader threw";
    }
    return false;
}

} // namespace

nvinfer1::ICudaEngine* Runtime::deserializeCudaEngine(nvinfer1::IStreamReader& streamReader)
{
    std::vector<char> plan;
    std::string error;
    auto read = [&](void* destination, int64_t nbBytes) { return streamReader.read(destination, nbBytes); };
    if (!readWhole("IRuntime::deserializeCudaEngine(IStreamReader&)", read, true, plan, error))
    {
        reportError(error);
        return nullptr;
    }
    return deserializeCudaEngine(plan.data(), plan.size());
}

nvinfer1::ICudaEngine* Runtime::deserializeCudaEngine(nvinfer1::IStreamReaderV2& streamReader)
{
    char const* call = "IRuntime::deserializeCudaEngine(IStreamReaderV2&)";
    try
    {
        if (!streamReader.seek(0, nvinfer1::SeekPosition::kSET))
        {
            reportError(std::string(call) + ": the stream reader could not seek to the start of the plan");
            return nullptr;
        }
    }
    catch (...)
    {
        reportError(std::string(call) + ": the stream reader threw from seek");
        return nullptr;
    }
    std::vector<char> plan;
    std::string error;
    // Kiln reads into host memory, which the reader must accept on both backends; no stream is involved.
    auto read = [&](void* destination, int64_t nbBytes) { return streamReader.read(destination, nbBytes, nullptr); };
    if (!readWhole(call, read, false, plan, error))
    {
        reportError(error);
        return nullptr;
    }
    return deserializeCudaEngine(plan.data(), plan.size());
}

} // namespace kiln::runtime
