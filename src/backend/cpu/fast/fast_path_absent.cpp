// The fast path in a Kiln built without oneDNN: no layer runs on it, and plans built elsewhere for it run on the
// reference kernels.
#include "backend/cpu/fast/fast_path.h"

#include <algorithm>
#include <thread>

namespace kiln::cpu::fast
{

bool runsLayer(plan::PlanModel const&, plan::LayerRecord const&)
{
    return false;
}

bool joinsPointwiseChain(plan::PlanModel const&, plan::LayerRecord const&)
{
    return false;
}

ChannelsLastUse channelsLastUse(plan::PlanModel const&, plan::LayerRecord const&)
{
    return ChannelsLastUse::kNO;
}

bool fusesActivation(network::ActivationParams const&)
{
    return false;
}

bool convolutionFusesActivation(network::ActivationParams const&)
{
    return false;
}

bool convolutionFusesSelfGated(network::ActivationParams const&)
{
    return false;
}

bool runsRecurrentCell(network::RecurrentSequenceParams const&)
{
    return false;
}

struct Session::State
{
    int32_t threads{0};
};

Session::Session()
    : mState(std::make_unique<State>())
{
}

Session::~Session() = default;

bool Session::available()
{
    return false;
}

bool leavesToReference(plan::LayerRecord const&)
{
    return true; // without oneDNN, the reference kernels run every layer
}

std::unique_ptr<Kernel> Session::makeKernel(plan::LayerRecord const&)
{
    return nullptr;
}

void Session::setThreads(int32_t threads)
{
    mState->threads = threads;
}

int32_t Session::threads() const
{
    return mState->threads > 0 ? mState->threads : availableCores();
}

void Session::setRunThreads(int32_t /*threads*/) { }

void Session::run(Kernel& kernel, LayerInputs const& inputs, LayerOutputs const& outputs) const
{
    kernel.run(inputs, outputs);
}

int32_t availableCores()
{
    return static_cast<int32_t>(std::max(1U, std::thread::hardware_concurrency()));
}

} // namespace kiln::cpu::fast
