#include "backend/cpu/fast/fast_path.h"

namespace kiln::cpu::fast
{
namespace
{

//! The CPU backend's choice for a layer that the fast path runs (plan::LayerRecord::backendChoice).
constexpr uint8_t kFastPathChoice = 1;

} // namespace

void mark(plan::LayerRecord& layer)
{
    layer.backendChoice = {kFastPathChoice};
}

bool isMarked(plan::LayerRecord const& layer)
{
    return layer.backendChoice.size() == 1 && layer.backendChoice[0] == kFastPathChoice;
}

} // namespace kiln::cpu::fast
