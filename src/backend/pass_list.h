// A backend's build passes, written once as a list in the order the backend applies them: its
// Implementation::optimize applies the list, and Implementation::passNames gives the names from it, which
// kiln::getBackendPassName exports and `kiln inspect` prints.
#pragma once

#include "plan/plan_model.h"

#include <string>
#include <vector>

namespace kiln::backend
{

//! One build pass: the name `kiln inspect` lists, and the function that applies it to a plan. `Build` is what the
//! passes of one build share: the configuration's choices, and what a pass leaves for a later one.
template <typename Build>
struct Pass
{
    char const* name;
    //! False with `error` naming the layer where the pass cannot complete.
    bool (*apply)(plan::PlanModel& model, Build& build, std::string& error);
};

template <typename Build>
using PassList = std::vector<Pass<Build>>;

//! Applies `passes` in order; false at the first that fails.
template <typename Build>
bool applyPasses(PassList<Build> const& passes, plan::PlanModel& model, Build& build, std::string& error)
{
    for (Pass<Build> const& pass : passes)
    {
        if (!pass.apply(model, build, error))
        {
            return false;
        }
    }
    return true;
}

//! The passes' names, in order.
template <typename Build>
std::vector<char const*> passNames(PassList<Build> const& passes)
{
    std::vector<char const*> names;
    for (Pass<Build> const& pass : passes)
    {
        names.push_back(pass.name);
    }
    return names;
}

} // namespace kiln::backend
