// trtexec's flags that are not Kiln's own but that scripts written for trtexec pass. Taken with trtexec's meaning
// where Kiln has it: --workspace, --best, --stronglyTyped, --int8, --fp8, --bf16, --builderOptimizationLevel,
// --profilingVerbosity, --tacticSources, --noBuilderCache, --dumpLayerInfo, --getPlanVersionOnly, --refit,
// --avgTiming (kept in the configuration), --idleTime, --timeDeserialize, --sparsity=disable/enable, --noTF32 (Kiln's
// FP32 never computes at TF32's precision), and the older names --buildOnly and --streams. Taken with a warning where
// they ask for what Kiln cannot use or does anyway: --minTiming, --maxAuxStreams, --heuristic, --allowGPUFallback,
// temporary files, --exposeDMA. Refused with the reason where Kiln has not what they ask: --versionCompatible, DLA,
// safety, I/O formats, per-layer precisions, forced sparsity, weight streaming, ... Never "unknown flag".
#pragma once

#include "options.h"

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

namespace kiln::cli
{

//! The flags' values as typed, before applyTrtexecFlags.
struct TrtexecFlags
{
    std::string workspace;
    bool best{false};
    std::string builderOptimizationLevel;
    std::string profilingVerbosity;
    std::string tacticSources;
    // Refused: the flag as written, when given.
    bool versionCompatible{false};
    std::string inputIOFormats;
    std::string outputIOFormats;
    std::string layerPrecisions;
    std::string layerOutputTypes;
    std::string precisionConstraints;
    // Taken.
    bool bf16{false};
    bool noTF32{false};
    std::string sparsity;
    std::string avgTiming;
    std::string minTiming;
    std::string maxAuxStreams;
    std::string idleTime;
    //! The flags of kOtherFlags (trtexec_flags.cpp) that were given, by name: a flag's "true", an option's value as
    //! typed.
    std::map<std::string, std::string> others;
};

void addTrtexecFlags(CLI::App& app, Options& options, TrtexecFlags& flags);

//! Puts the flags' meaning into `options`. False with `error` for a refused flag or a bad value; `warnings` says
//! where Kiln takes a flag without acting on all of it.
bool applyTrtexecFlags(
    TrtexecFlags const& flags, Options& options, std::string& error, std::vector<std::string>& warnings);

//! --getPlanVersionOnly's line for a plan file's bytes: its format version and the Kiln version that wrote it, read
//! from the header alone. False with `error` where the bytes are not a Kiln plan.
bool planVersionLine(std::vector<uint8_t> const& plan, std::string& line, std::string& error);

} // namespace kiln::cli
