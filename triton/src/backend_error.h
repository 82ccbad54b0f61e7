// Errors inside the backend: a BackendError carries the Triton error code the server should see. The entry points
// (backend_entry_points.cpp) turn every exception into a TRITONSERVER_Error, so none crosses into the server.
#pragma once

#include "kiln_triton/triton_api.h"

#include <stdexcept>
#include <string>

namespace kiln::triton
{

class BackendError : public std::runtime_error
{
public:
    BackendError(TRITONSERVER_Error_Code code, std::string const& message)
        : std::runtime_error(message)
        , mCode(code)
    {
    }
    TRITONSERVER_Error_Code code() const noexcept
    {
        return mCode;
    }

private:
    TRITONSERVER_Error_Code mCode;
};

//! Throws a BackendError with the server's code and "what: the server's message" when error is not null (and
//! deletes error).
void check(TRITONSERVER_Error* error, std::string const& what);

//! A new TRITONSERVER_Error for the exception being handled (call inside a catch block).
TRITONSERVER_Error* currentExceptionAsTritonError() noexcept;

//! Runs body and returns null, or the TRITONSERVER_Error for what it threw.
template <typename Body>
TRITONSERVER_Error* guarded(Body&& body) noexcept
{
    try
    {
        body();
        return nullptr;
    }
    catch (...)
    {
        return currentExceptionAsTritonError();
    }
}

} // namespace kiln::triton
