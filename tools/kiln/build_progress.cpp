#include "build_progress.h"

#include "cli_logger.h"

#include <algorithm>
#include <cstdio>

namespace kiln::cli
{

void BuildProgress::phaseStart(char const* phaseName, char const* /*parentPhase*/, int32_t nbSteps)
{
    mPhases.push_back({phaseName, nbSteps});
    if (mOnTerminal)
    {
        drawBar(phaseName, 0, nbSteps);
    }
    else
    {
        logInfo(
            std::string(mPhases.size() - 1, ' ') + "[build] " + phaseName + ": " + std::to_string(nbSteps) + " steps");
    }
}

bool BuildProgress::stepComplete(char const* phaseName, int32_t step)
{
    auto const phase
        = std::find_if(mPhases.begin(), mPhases.end(), [&](Phase const& p) { return p.name == phaseName; });
    if (mOnTerminal && phase != mPhases.end())
    {
        drawBar(phaseName, step + 1, phase->steps);
    }
    return true; // kiln never cancels a build
}

void BuildProgress::phaseFinish(char const* phaseName)
{
    auto const phase
        = std::find_if(mPhases.begin(), mPhases.end(), [&](Phase const& p) { return p.name == phaseName; });
    if (phase != mPhases.end())
    {
        mPhases.erase(phase);
    }
    if (mOnTerminal)
    {
        // Clear the bar's line so the log continues on a clean line.
        std::printf("\r\033[K");
        std::fflush(stdout);
        setProgressLineShown(false);
    }
    else
    {
        logInfo(std::string(mPhases.size(), ' ') + "[build] " + phaseName + ": done");
    }
}

void BuildProgress::drawBar(std::string const& phase, int32_t done, int32_t total)
{
    constexpr int32_t kWidth = 30;
    int32_t const filled = total > 0 ? std::min(kWidth, done * kWidth / total) : kWidth;
    std::string bar(static_cast<size_t>(filled), '=');
    bar.resize(kWidth, ' ');
    std::printf("\r\033[K%s [%s] %d/%d", phase.c_str(), bar.c_str(), done, total);
    std::fflush(stdout);
    setProgressLineShown(true);
}

} // namespace kiln::cli
