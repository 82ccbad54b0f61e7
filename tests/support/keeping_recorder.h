// An IErrorRecorder that keeps every error it is given, and counts the references taken on it, for assertions.
#pragma once

#include <NvInferRuntime.h>

#include <string>
#include <utility>
#include <vector>

namespace kiln::test
{

class KeepingRecorder final : public nvinfer1::IErrorRecorder
{
public:
    int32_t getNbErrors() const noexcept override
    {
        return static_cast<int32_t>(errors.size());
    }
    nvinfer1::ErrorCode getErrorCode(int32_t index) const noexcept override
    {
        return errors.at(static_cast<size_t>(index)).first;
    }
    ErrorDesc getErrorDesc(int32_t index) const noexcept override
    {
        return errors.at(static_cast<size_t>(index)).second.c_str();
    }
    bool hasOverflowed() const noexcept override
    {
        return false;
    }
    void clear() noexcept override
    {
        errors.clear();
    }
    bool reportError(nvinfer1::ErrorCode code, ErrorDesc desc) noexcept override
    {
        errors.emplace_back(code, desc);
        return true;
    }
    RefCount incRefCount() noexcept override
    {
        return ++references;
    }
    RefCount decRefCount() noexcept override
    {
        return --references;
    }

    std::vector<std::pair<nvinfer1::ErrorCode, std::string>> errors;
    RefCount references{0};
};

} // namespace kiln::test
