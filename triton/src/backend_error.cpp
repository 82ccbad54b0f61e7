#include "backend_error.h"

#include <exception>
#include <new>

namespace kiln::triton
{

void check(TRITONSERVER_Error* error, std::string const& what)
{
    if (error == nullptr)
    {
        return;
    }
    TRITONSERVER_Error_Code const code = TRITONSERVER_ErrorCode(error);
    std::string message = what + ": " + TRITONSERVER_ErrorMessage(error);
    TRITONSERVER_ErrorDelete(error);
    throw BackendError(code, message);
}

TRITONSERVER_Error* currentExceptionAsTritonError() noexcept
{
    try
    {
        throw;
    }
    catch (BackendError const& e)
    {
        return TRITONSERVER_ErrorNew(e.code(), e.what());
    }
    catch (std::bad_alloc const&)
    {
        return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, "Kiln's backend ran out of memory");
    }
    catch (std::exception const& e)
    {
        return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, e.what());
    }
    catch (...)
    {
        return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, "Kiln's backend failed with an unknown exception");
    }
}

} // namespace kiln::triton
