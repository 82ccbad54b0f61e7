#include "network/layers/shape_input.h"

#include "core/data_type.h"

namespace kiln::network
{

bool shapeInputValues(InferenceContext& ctx, int32_t index, int32_t rank, char const* what, std::vector<Dim>& values)
{
    values.clear();
    std::string const where = std::string(what) + " (input " + std::to_string(index) + ")";
    char const* const shape = rank == 0 ? "a 0-D" : "a 1-D";
    TensorFacts const& facts = ctx.input(index);
    if (!isIndexType(facts.type) || facts.dims.nbDims != rank)
    {
        return ctx.fail(where + " must be " + shape + " INT32 or INT64 tensor, not a "
            + std::to_string(facts.dims.nbDims) + "-D " + dataTypeName(facts.type) + " tensor");
    }
    if (!facts.values)
    {
        return ctx.fail(where + " must be " + shape
            + " shape tensor whose values are known while shapes are inferred "
              "(computed from shapes and constants)");
    }
    for (auto const* value : *facts.values)
    {
        values.push_back(Dim(ctx.builder(), value));
    }
    return true;
}

} // namespace kiln::network
