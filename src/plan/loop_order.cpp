// orderLoops (plan/plan_loops.h): each loop's layers made contiguous, by a topological order at each level of nesting
// in which a nested loop is one item.
#include "plan/plan_graph.h"
#include "plan/plan_loops.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace kiln::plan
{
namespace
{

class LoopOrder
{
public:
    LoopOrder(PlanModel const& model, std::vector<LoopRange> const& loops, std::vector<int32_t> const& innermost)
        : mModel(model)
        , mLoops(loops)
        , mInnermost(innermost)
        , mProducers(producersOf(model))
        , mFirstLayer(loops.size(), model.layers.size())
    {
        for (size_t l = 0; l < model.layers.size(); ++l)
        {
            for (int32_t k = innermost[l]; k >= 0; k = loops[static_cast<size_t>(k)].parent)
            {
                mFirstLayer[static_cast<size_t>(k)] = std::min(mFirstLayer[static_cast<size_t>(k)], l);
            }
        }
    }

    std::vector<size_t> const& order()
    {
        emit(-1);
        return mOrder;
    }

private:
    static constexpr int64_t kOutside = -1;

    //! The item of `scope` (a loop, -1 for the plan) that layer `l` belongs to: the layer itself (its index), a loop
    //! nested in `scope` (layers + the loop's index), or kOutside.
    int64_t itemOf(size_t l, int32_t scope) const
    {
        int32_t k = mInnermost[l];
        if (k == scope)
        {
            return static_cast<int64_t>(l);
        }
        while (k >= 0)
        {
            int32_t const parent = mLoops[static_cast<size_t>(k)].parent;
            if (parent == scope)
            {
                return static_cast<int64_t>(mModel.layers.size()) + k;
            }
            k = parent;
        }
        return kOutside;
    }

    bool isLoopItem(int64_t item) const
    {
        return item >= static_cast<int64_t>(mModel.layers.size());
    }

    //! The items of `scope` that the layers of `item` read from, the back edges of recurrences left out.
    std::vector<int64_t> dependencies(int64_t item, int32_t scope) const
    {
        std::vector<int64_t> found;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (itemOf(l, scope) != item)
            {
                continue;
            }
            std::vector<int32_t> const& inputs = mModel.layers[l].inputs;
            for (size_t slot = 0; slot < inputs.size(); ++slot)
            {
                int64_t const producer = inputs[slot] < 0 ? -1 : mProducers[static_cast<size_t>(inputs[slot])];
                if (producer < 0 || (mModel.layers[l].type == nvinfer1::LayerType::kRECURRENCE && slot == 1))
                {
                    continue;
                }
                int64_t const from = itemOf(static_cast<size_t>(producer), scope);
                if (from != kOutside && from != item)
                {
                    found.push_back(from);
                }
            }
        }
        return found;
    }

    //! Marks in `early` the items of loop `scope` that its kWHILE condition needs, the limit among them.
    void markCondition(int32_t scope, std::vector<bool>& early) const
    {
        int64_t const limit = mLoops[static_cast<size_t>(scope)].whileLimit;
        if (limit < 0)
        {
            return;
        }
        std::vector<int64_t> pending{itemOf(static_cast<size_t>(limit), scope)};
        while (!pending.empty())
        {
            int64_t const item = pending.back();
            pending.pop_back();
            if (early[static_cast<size_t>(item)])
            {
                continue;
            }
            early[static_cast<size_t>(item)] = true;
            for (int64_t from : dependencies(item, scope))
            {
                pending.push_back(from);
            }
        }
    }

    //! When an item of `scope` should run among those ready: recurrences and the trip count first, then the kWHILE
    //! condition, then the body, then the loop outputs.
    int32_t rank(int64_t item, int32_t scope, std::vector<bool> const& early) const
    {
        if (scope < 0 || isLoopItem(item))
        {
            return scope < 0 ? 0 : early[static_cast<size_t>(item)] ? 1 : 2;
        }
        LoopRange const& loop = mLoops[static_cast<size_t>(scope)];
        auto const l = static_cast<size_t>(item);
        bool const first = std::count(loop.recurrences.begin(), loop.recurrences.end(), l) > 0
            || loop.countLimit == item;
        bool const last = std::count(loop.outputs.begin(), loop.outputs.end(), l) > 0;
        return first ? 0 : early[l] ? 1 : last ? 3 : 2;
    }

    int64_t position(int64_t item) const
    {
        return isLoopItem(item)
            ? static_cast<int64_t>(mFirstLayer[static_cast<size_t>(item - static_cast<int64_t>(mModel.layers.size()))])
            : item;
    }

    void emit(int32_t scope)
    {
        size_t const total = mModel.layers.size() + mLoops.size();
        std::vector<int64_t> items;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            int64_t const item = itemOf(l, scope);
            if (item != kOutside && (items.empty() || std::find(items.begin(), items.end(), item) == items.end()))
            {
                items.push_back(item);
            }
        }
        std::vector<bool> early(total, false);
        if (scope >= 0)
        {
            markCondition(scope, early);
        }
        std::vector<int32_t> waiting(total, 0);
        std::vector<std::vector<int64_t>> unblocks(total);
        for (int64_t item : items)
        {
            for (int64_t from : dependencies(item, scope))
            {
                ++waiting[static_cast<size_t>(item)];
                unblocks[static_cast<size_t>(from)].push_back(item);
            }
        }
        using Entry = std::tuple<int32_t, int64_t, int64_t>; // rank, position, item
        std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
        for (int64_t item : items)
        {
            if (waiting[static_cast<size_t>(item)] == 0)
            {
                ready.emplace(rank(item, scope, early), position(item), item);
            }
        }
        while (!ready.empty())
        {
            int64_t const item = std::get<2>(ready.top());
            ready.pop();
            if (isLoopItem(item))
            {
                emit(static_cast<int32_t>(item - static_cast<int64_t>(mModel.layers.size())));
            }
            else
            {
                mOrder.push_back(static_cast<size_t>(item));
            }
            for (int64_t next : unblocks[static_cast<size_t>(item)])
            {
                if (--waiting[static_cast<size_t>(next)] == 0)
                {
                    ready.emplace(rank(next, scope, early), position(next), next);
                }
            }
        }
    }

    PlanModel const& mModel;
    std::vector<LoopRange> const& mLoops;
    std::vector<int32_t> const& mInnermost;
    std::vector<int64_t> mProducers;
    std::vector<size_t> mFirstLayer; //!< by loop: its first layer in the order before
    std::vector<size_t> mOrder;
};

} // namespace

bool orderLoops(PlanModel& model, std::string& error)
{
    std::vector<LoopRange> loops;
    std::vector<int32_t> innermost;
    if (!findLoops(model, false, loops, innermost, error))
    {
        return false;
    }
    if (loops.empty())
    {
        return true;
    }
    std::vector<size_t> const order = LoopOrder(model, loops, innermost).order();
    if (order.size() != model.layers.size())
    {
        error = "the layers of a loop depend on one another in a cycle that no recurrence breaks";
        return false;
    }
    std::vector<LayerRecord> layers;
    layers.reserve(order.size());
    for (size_t l : order)
    {
        layers.push_back(std::move(model.layers[l]));
    }
    model.layers = std::move(layers);
    return findLoops(model, true, loops, innermost, error);
}

} // namespace kiln::plan
