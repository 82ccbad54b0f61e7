// Build progress from IProgressMonitor: a bar redrawn in place on a terminal, plain log lines
// (one per phase start and finish) when stdout is a file or a pipe.
#pragma once

#include <NvInfer.h>

#include <string>
#include <vector>

namespace kiln::cli
{

class BuildProgress final : public nvinfer1::IProgressMonitor
{
public:
    //! onTerminal: draw the bar (pass isatty(stdout)).
    explicit BuildProgress(bool onTerminal)
        : mOnTerminal(onTerminal)
    {
    }
    void phaseStart(char const* phaseName, char const* parentPhase, int32_t nbSteps) override;
    bool stepComplete(char const* phaseName, int32_t step) override;
    void phaseFinish(char const* phaseName) override;

private:
    void drawBar(std::string const& phase, int32_t done, int32_t total);

    bool mOnTerminal;
    struct Phase
    {
        std::string name;
        int32_t steps{0};
    };
    std::vector<Phase> mPhases; //!< open phases, outermost first
};

} // namespace kiln::cli
