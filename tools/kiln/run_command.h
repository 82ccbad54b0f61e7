// `kiln [trtexec flags]`: build (or load) an engine, run and time it, report as trtexec does,
// and with --compare=cpu check it against the CPU reference.
#pragma once

namespace kiln::cli
{

//! The whole command; returns the process exit code (0 when "&&&& PASSED").
int runMainCommand(int argc, char** argv);

} // namespace kiln::cli
