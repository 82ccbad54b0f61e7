#include "model_files.h"

#include "backend_error.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::triton
{
namespace
{

bool isRegularFile(std::string const& path)
{
    struct stat status
    {
    };
    return stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

bool endsWith(std::string const& text, std::string const& suffix)
{
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

ModelFile findModelFile(std::string const& versionDirectory, std::string const& defaultFilename)
{
    if (!defaultFilename.empty())
    {
        std::string const path = versionDirectory + "/" + defaultFilename;
        if (!isRegularFile(path))
        {
            throw BackendError(TRITONSERVER_ERROR_NOT_FOUND,
                "default_model_filename \"" + defaultFilename + "\": there is no file " + path);
        }
        return ModelFile{path, endsWith(defaultFilename, ".onnx")};
    }
    for (auto const& [name, isOnnx] : {std::pair{"model.plan", false}, std::pair{"model.onnx", true}})
    {
        std::string const path = versionDirectory + "/" + name;
        if (isRegularFile(path))
        {
            return ModelFile{path, isOnnx};
        }
    }
    throw BackendError(TRITONSERVER_ERROR_NOT_FOUND,
        "the folder " + versionDirectory
            + " holds neither model.plan (a Kiln plan) nor model.onnx; name another file with "
              "default_model_filename");
}

std::string readWholeFile(std::string const& path)
{
    std::ifstream file(path, std::ios::binary);
    std::ostringstream bytes;
    if (!file || !(bytes << file.rdbuf()))
    {
        throw BackendError(TRITONSERVER_ERROR_NOT_FOUND, "cannot read " + path);
    }
    return std::move(bytes).str();
}

bool writeFileAtomically(std::string const& path, void const* bytes, size_t size)
{
    std::string const temporary = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        if (!file || !file.write(static_cast<char const*>(bytes), static_cast<std::streamsize>(size)))
        {
            std::remove(temporary.c_str());
            return false;
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
    {
        std::remove(temporary.c_str());
        return false;
    }
    return true;
}

} // namespace kiln::triton
