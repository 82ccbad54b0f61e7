// Suggestions for a plugin creator that was not found: the registered keys that
// look most like the one asked for.
#pragma once

#include "plugin/creator_key.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::plugin
{

//! Levenshtein distance between a and b, ignoring ASCII case (plugin names are
//! often mistyped only in case: "LeakyRelu" for "LeakyReLU").
std::size_t nameDistance(std::string_view a, std::string_view b);

//! Up to maxCount of the registered keys, best first: those with exactly the wanted
//! name (another version or namespace), then by nameDistance; ties keep the
//! order of registered.
std::vector<CreatorKey> closestKeys(
    CreatorKey const& wanted, std::vector<CreatorKey> const& registered, std::size_t maxCount);

//! "Closest registered creators: ..." or "The plugin registry is empty."
std::string describeClosestKeys(CreatorKey const& wanted, std::vector<CreatorKey> const& registered);

} // namespace kiln::plugin
