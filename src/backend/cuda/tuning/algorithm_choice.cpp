#include "backend/cuda/tuning/algorithm_choice.h"

#include "serial/byte_io.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{

std::vector<uint8_t> AlgorithmChoice::encode() const
{
    if (source == Source::kHEURISTIC)
    {
        return {};
    }
    serial::ByteWriter writer;
    writer.write(static_cast<int32_t>(source));
    writer.write(index);
    return writer.take();
}

AlgorithmChoice AlgorithmChoice::decode(std::vector<uint8_t> const& bytes)
{
    if (bytes.empty())
    {
        return {};
    }
    serial::ByteReader reader(bytes.data(), bytes.size());
    int32_t source = 0;
    AlgorithmChoice choice;
    bool const known = reader.read(source, "algorithm source") && reader.read(choice.index, "algorithm index")
        && reader.remaining() == 0 && source >= static_cast<int32_t>(Source::kPER_CALL)
        && source <= static_cast<int32_t>(Source::kGEMM) && choice.index >= 0;
    if (!known)
    {
        throw std::runtime_error("the plan's algorithm choice for a convolution or product is malformed");
    }
    choice.source = static_cast<Source>(source);
    return choice;
}

uint64_t AlgorithmChoice::tactic() const
{
    return (static_cast<uint64_t>(source) << 32) | static_cast<uint32_t>(index);
}

AlgorithmChoice AlgorithmChoice::fromTactic(uint64_t tactic)
{
    auto const source = static_cast<int64_t>(tactic >> 32);
    auto const index = static_cast<int32_t>(tactic & 0xFFFFFFFFU);
    bool const known = source >= static_cast<int64_t>(Source::kPER_CALL)
        && source <= static_cast<int64_t>(Source::kGEMM) && index >= 0;
    // A tactic no Kiln wrote (a damaged cache) leaves the choice to cuDNN's heuristics.
    return known ? AlgorithmChoice{static_cast<Source>(source), index} : AlgorithmChoice{};
}

} // namespace kiln::cuda
