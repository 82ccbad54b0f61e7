// Runs the kiln executable as a user would (through the shell, in a scratch folder) and keeps what
// it printed (stdout and stderr together) and its exit code.
#pragma once

#include <string>
#include <vector>

namespace kiln::test
{

struct KilnRun
{
    int exitCode{-1};
    std::string output;
};

//! A fresh folder under the test's temporary directory, removed by the destructor.
class ScratchDir
{
public:
    ScratchDir();
    ~ScratchDir();
    ScratchDir(ScratchDir const&) = delete;
    ScratchDir& operator=(ScratchDir const&) = delete;
    std::string path(std::string const& name) const
    {
        return mPath + "/" + name;
    }

private:
    std::string mPath;
};

//! Runs KILN_EXE with args (each passed as one shell word), on the CPU backend unless args choose one.
KilnRun runKiln(std::vector<std::string> args);
//! The same, with the arguments exactly as given (runKiln adds --backend=cpu when the test chose no backend).
KilnRun runKilnAsIs(std::vector<std::string> const& args);

std::string readText(std::string const& path);
void writeBytes(std::string const& path, void const* data, size_t size);

} // namespace kiln::test
