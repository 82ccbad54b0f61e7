#include "plugin/user_exception.h"

#include <exception>

namespace kiln::plugin
{

std::string describeCurrentException() noexcept
{
    try
    {
        throw;
    }
    catch (std::exception const& e)
    {
        return std::string("threw an exception: ") + e.what();
    }
    catch (...)
    {
        return "threw an exception of unknown type";
    }
}

} // namespace kiln::plugin
