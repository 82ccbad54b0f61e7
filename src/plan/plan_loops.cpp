#include "plan/plan_loops.h"

#include "network/layers/loop.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <map>

namespace kiln::plan
{
namespace
{

//! The loop number a boundary layer names; -1 for any other layer.
int32_t loopOf(LayerRecord const& layer)
{
    auto const* boundary = dynamic_cast<network::LoopBoundary const*>(layer.params.get());
    return boundary != nullptr && isLoopBoundary(layer) ? boundary->loop : -1;
}

std::vector<size_t> boundaryLayers(LoopRange const& range)
{
    std::vector<size_t> layers = range.recurrences;
    layers.insert(layers.end(), range.iterators.begin(), range.iterators.end());
    layers.insert(layers.end(), range.outputs.begin(), range.outputs.end());
    for (int64_t limit : {range.countLimit, range.whileLimit})
    {
        if (limit >= 0)
        {
            layers.push_back(static_cast<size_t>(limit));
        }
    }
    return layers;
}

//! One loop while its body is found: its boundary layers and which layers belong to it.
struct LoopBody
{
    LoopRange range;
    std::vector<bool> member;
};

class LoopFinder
{
public:
    LoopFinder(PlanModel const& model, std::string& error)
        : mModel(model)
        , mProducers(producersOf(model))
        , mError(error)
    {
    }

    bool find(std::vector<LoopBody>& bodies)
    {
        if (!collectBoundaries(bodies))
        {
            return false;
        }
        bool changed = true;
        while (changed)
        {
            changed = false;
            for (size_t k = 0; k < bodies.size(); ++k)
            {
                changed = spread(bodies, k) || changed;
            }
        }
        for (LoopBody const& body : bodies)
        {
            if (!checkBoundaries(body))
            {
                return false;
            }
        }
        return checkNesting(bodies);
    }

private:
    //! Every loop's boundary layers, each loop with at least one trip limit and every recurrence with a next value.
    bool collectBoundaries(std::vector<LoopBody>& bodies)
    {
        std::map<int32_t, size_t> byNumber;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            LayerRecord const& layer = mModel.layers[l];
            int32_t const number = loopOf(layer);
            if (number < 0)
            {
                continue;
            }
            auto [it, added] = byNumber.emplace(number, bodies.size());
            if (added)
            {
                bodies.push_back(LoopBody{});
                bodies.back().range.number = number;
                bodies.back().member.assign(mModel.layers.size(), false);
            }
            LoopBody& body = bodies[it->second];
            body.member[l] = true;
            if (!addBoundary(body.range, l))
            {
                return false;
            }
        }
        for (LoopBody const& body : bodies)
        {
            if (body.range.countLimit < 0 && body.range.whileLimit < 0)
            {
                size_t const some = body.range.recurrences.empty()
                    ? body.range.iterators.empty() ? body.range.outputs.front() : body.range.iterators.front()
                    : body.range.recurrences.front();
                mError = "the loop of layer \"" + mModel.layers[some].name
                    + "\" has no trip limit: add one with ILoop::addTripLimit";
                return false;
            }
        }
        return true;
    }

    bool addBoundary(LoopRange& range, size_t l)
    {
        LayerRecord const& layer = mModel.layers[l];
        switch (layer.type)
        {
        case nvinfer1::LayerType::kRECURRENCE:
            if (layer.inputs.size() != 2 || layer.inputs[1] < 0)
            {
                mError = "recurrence \"" + layer.name + "\" has no next value: set it with setInput(1, ...)";
                return false;
            }
            range.recurrences.push_back(l);
            return true;
        case nvinfer1::LayerType::kITERATOR: range.iterators.push_back(l); return true;
        case nvinfer1::LayerType::kLOOP_OUTPUT: range.outputs.push_back(l); return true;
        default: break;
        }
        auto const& limit = static_cast<network::TripLimitParams const&>(*layer.params);
        int64_t& slot = limit.kind == nvinfer1::TripLimit::kCOUNT ? range.countLimit : range.whileLimit;
        if (slot >= 0)
        {
            mError = "trip limit \"" + layer.name + "\": its loop already has a trip limit of that kind";
            return false;
        }
        slot = static_cast<int64_t>(l);
        return true;
    }

    //! Whether layer `l` writes a value that changes from one iteration of loop `body` to the next: a member's
    //! output, but not the loop's own outputs, which are read after it.
    bool writesVariant(LoopBody const& body, int64_t l) const
    {
        return l >= 0 && body.member[static_cast<size_t>(l)]
            && !(loopOf(mModel.layers[static_cast<size_t>(l)]) == body.range.number
                && mModel.layers[static_cast<size_t>(l)].type == nvinfer1::LayerType::kLOOP_OUTPUT);
    }

    //! Adds to loop `k` the readers of its variant values and the loops nested in it; whether anything changed.
    bool spread(std::vector<LoopBody>& bodies, size_t k)
    {
        LoopBody& body = bodies[k];
        bool changed = false;
        bool grew = true;
        while (grew)
        {
            grew = false;
            for (size_t l = 0; l < mModel.layers.size(); ++l)
            {
                if (body.member[l])
                {
                    continue;
                }
                std::vector<int32_t> const& inputs = mModel.layers[l].inputs;
                bool const reads = std::any_of(inputs.begin(), inputs.end(),
                    [&](int32_t t) { return t >= 0 && writesVariant(body, mProducers[static_cast<size_t>(t)]); });
                if (reads)
                {
                    body.member[l] = true;
                    grew = true;
                }
            }
            for (size_t j = 0; j < bodies.size(); ++j)
            {
                grew = (j != k && absorb(body, bodies[j])) || grew;
            }
            changed = changed || grew;
        }
        return changed;
    }

    //! Loop `inner` is nested in `outer` where one of its boundary layers belongs to `outer`: then all its layers do.
    static bool absorb(LoopBody& outer, LoopBody const& inner)
    {
        std::vector<size_t> const boundaries = boundaryLayers(inner.range);
        bool const nested
            = std::any_of(boundaries.begin(), boundaries.end(), [&](size_t l) { return outer.member[l]; });
        bool grew = false;
        for (size_t l = 0; nested && l < inner.member.size(); ++l)
        {
            grew = grew || (inner.member[l] && !outer.member[l]);
            outer.member[l] = outer.member[l] || inner.member[l];
        }
        return grew;
    }

    std::string const& producedBy(int32_t t) const
    {
        return mModel.layers[static_cast<size_t>(mProducers[static_cast<size_t>(t)])].name;
    }

    bool inside(LoopBody const& body, int32_t t) const
    {
        return t >= 0 && writesVariant(body, mProducers[static_cast<size_t>(t)]);
    }

    //! What comes into the loop comes from outside it; what leaves it leaves through a loop output.
    bool checkBoundaries(LoopBody const& body)
    {
        LoopRange const& r = body.range;
        auto const fails = [&](size_t l, int32_t t, char const* what) {
            if (!inside(body, t))
            {
                return false;
            }
            mError = "layer \"" + mModel.layers[l].name + "\": " + what + " \"" + mModel.tensors[t].name
                + "\" is computed inside the loop (by \"" + producedBy(t) + "\"); it must come from outside it";
            return true;
        };
        for (size_t l : r.recurrences)
        {
            if (fails(l, mModel.layers[l].inputs[0], "the initial value"))
            {
                return false;
            }
        }
        for (size_t l : r.iterators)
        {
            if (fails(l, mModel.layers[l].inputs[0], "the iterated tensor"))
            {
                return false;
            }
        }
        if (r.countLimit >= 0
            && fails(static_cast<size_t>(r.countLimit), mModel.layers[r.countLimit].inputs[0], "the trip count"))
        {
            return false;
        }
        for (size_t l : r.outputs)
        {
            std::vector<int32_t> const& inputs = mModel.layers[l].inputs;
            if (inputs.size() > 1 && fails(l, inputs[1], "the length"))
            {
                return false;
            }
        }
        return checkNothingLeaks(body);
    }

    //! No value of the loop's body is a network output.
    bool checkNothingLeaks(LoopBody const& body)
    {
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (!writesVariant(body, static_cast<int64_t>(l)))
            {
                continue;
            }
            for (int32_t t : mModel.layers[l].outputs)
            {
                if (mModel.tensors[t].ioMode == nvinfer1::TensorIOMode::kOUTPUT)
                {
                    mError = "network output \"" + mModel.tensors[t].name + "\" is computed inside a loop (by \""
                        + mModel.layers[l].name + "\"): a value leaves a loop only through ILoop::addLoopOutput";
                    return false;
                }
            }
        }
        return true;
    }

    //! Two loops are nested or apart.
    bool checkNesting(std::vector<LoopBody> const& bodies)
    {
        for (size_t a = 0; a < bodies.size(); ++a)
        {
            for (size_t b = a + 1; b < bodies.size(); ++b)
            {
                bool shared = false;
                bool aInB = true;
                bool bInA = true;
                for (size_t l = 0; l < mModel.layers.size(); ++l)
                {
                    shared = shared || (bodies[a].member[l] && bodies[b].member[l]);
                    aInB = aInB && (!bodies[a].member[l] || bodies[b].member[l]);
                    bInA = bInA && (!bodies[b].member[l] || bodies[a].member[l]);
                }
                if (shared && !aInB && !bInA)
                {
                    mError = "loops " + std::to_string(bodies[a].range.number) + " and "
                        + std::to_string(bodies[b].range.number) + " share layers but neither is nested in the other";
                    return false;
                }
            }
        }
        return true;
    }

    PlanModel const& mModel;
    std::vector<int64_t> mProducers;
    std::string& mError;
};

size_t countOf(std::vector<bool> const& member)
{
    return static_cast<size_t>(std::count(member.begin(), member.end(), true));
}

//! Whether every layer of `inner` belongs to `outer`.
bool contains(LoopBody const& outer, LoopBody const& inner)
{
    for (size_t l = 0; l < inner.member.size(); ++l)
    {
        if (inner.member[l] && !outer.member[l])
        {
            return false;
        }
    }
    return true;
}

//! Parents (the smallest enclosing loop), loops sorted outer first, and each layer's innermost loop.
void arrange(std::vector<LoopBody>& bodies, std::vector<int32_t>& innermost)
{
    std::stable_sort(bodies.begin(), bodies.end(),
        [](LoopBody const& a, LoopBody const& b) { return countOf(a.member) > countOf(b.member); });
    for (size_t k = 0; k < bodies.size(); ++k)
    {
        bodies[k].range.parent = -1;
        for (size_t j = 0; j < k; ++j)
        {
            if (contains(bodies[j], bodies[k]))
            {
                bodies[k].range.parent = static_cast<int32_t>(j); // the last, so the smallest, enclosing one
            }
        }
        for (size_t l = 0; l < innermost.size(); ++l)
        {
            if (bodies[k].member[l])
            {
                innermost[l] = static_cast<int32_t>(k); // later loops are smaller: the last holding it is innermost
            }
        }
    }
}

//! Each loop's layers form one range [begin, end) of the order.
bool checkContiguous(PlanModel const& model, std::vector<LoopBody>& bodies, std::string& error)
{
    for (LoopBody& body : bodies)
    {
        auto const first = std::find(body.member.begin(), body.member.end(), true);
        auto const last = std::find(body.member.rbegin(), body.member.rend(), true);
        body.range.begin = static_cast<size_t>(first - body.member.begin());
        body.range.end = static_cast<size_t>(body.member.rend() - last);
        for (size_t l = body.range.begin; l < body.range.end; ++l)
        {
            if (!body.member[l])
            {
                error = "layer \"" + model.layers[l].name + "\" lies among the layers of a loop it does not belong to";
                return false;
            }
        }
    }
    return true;
}

//! The next value of each recurrence is written before the loop ends, by the loop or before it.
bool checkBackEdges(PlanModel const& model, std::vector<LoopBody> const& bodies, std::string& error)
{
    std::vector<int64_t> const producers = producersOf(model);
    for (LoopBody const& body : bodies)
    {
        for (size_t l : body.range.recurrences)
        {
            int64_t const producer = producers[static_cast<size_t>(model.layers[l].inputs[1])];
            if (producer >= static_cast<int64_t>(body.range.end))
            {
                error = "recurrence \"" + model.layers[l].name + "\": its next value \""
                    + model.tensors[model.layers[l].inputs[1]].name
                    + "\" is computed after the loop (it must be computed inside it)";
                return false;
            }
        }
    }
    return true;
}

} // namespace

bool isLoopBoundary(LayerRecord const& layer)
{
    switch (layer.type)
    {
    case nvinfer1::LayerType::kRECURRENCE:
    case nvinfer1::LayerType::kTRIP_LIMIT:
    case nvinfer1::LayerType::kITERATOR:
    case nvinfer1::LayerType::kLOOP_OUTPUT: return true;
    default: return false;
    }
}

namespace
{

bool findBodies(
    PlanModel const& model, std::vector<LoopBody>& bodies, std::vector<int32_t>& innermost, std::string& error)
{
    bodies.clear();
    innermost.assign(model.layers.size(), -1);
    if (!LoopFinder(model, error).find(bodies))
    {
        return false;
    }
    arrange(bodies, innermost);
    return true;
}

} // namespace

bool findLoops(PlanModel const& model, bool ordered, std::vector<LoopRange>& loops, std::vector<int32_t>& innermost,
    std::string& error)
{
    std::vector<LoopBody> bodies;
    if (!findBodies(model, bodies, innermost, error)
        || (ordered && (!checkContiguous(model, bodies, error) || !checkBackEdges(model, bodies, error))))
    {
        return false;
    }
    loops.clear();
    for (LoopBody& body : bodies)
    {
        loops.push_back(std::move(body.range));
    }
    return true;
}

} // namespace kiln::plan
