#include "plugin/closest_names.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace kiln::plugin
{
namespace
{

constexpr std::size_t kMaxSuggestions = 5;

char lowerAscii(char c)
{
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

} // namespace

std::size_t nameDistance(std::string_view a, std::string_view b)
{
    // One row of the dynamic-programming table is enough.
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            std::size_t const above = row[j];
            std::size_t const substitution = diagonal + (lowerAscii(a[i - 1]) == lowerAscii(b[j - 1]) ? 0 : 1);
            row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::vector<CreatorKey> closestKeys(
    CreatorKey const& wanted, std::vector<CreatorKey> const& registered, std::size_t maxCount)
{
    struct Candidate
    {
        bool sameName;
        std::size_t distance;
        std::size_t index;
    };
    std::vector<Candidate> candidates;
    candidates.reserve(registered.size());
    for (std::size_t i = 0; i < registered.size(); ++i)
    {
        bool const sameName = registered[i].name == wanted.name;
        candidates.push_back({sameName, sameName ? 0 : nameDistance(wanted.name, registered[i].name), i});
    }
    std::stable_sort(candidates.begin(), candidates.end(), [](Candidate const& lhs, Candidate const& rhs) {
        if (lhs.sameName != rhs.sameName)
        {
            return lhs.sameName;
        }
        return lhs.distance < rhs.distance;
    });
    std::vector<CreatorKey> result;
    for (std::size_t i = 0; i < candidates.size() && result.size() < maxCount; ++i)
    {
        result.push_back(registered[candidates[i].index]);
    }
    return result;
}

std::string describeClosestKeys(CreatorKey const& wanted, std::vector<CreatorKey> const& registered)
{
    if (registered.empty())
    {
        return "The plugin registry is empty.";
    }
    std::vector<CreatorKey> const closest = closestKeys(wanted, registered, kMaxSuggestions);
    std::string text = "Closest registered creators: ";
    for (std::size_t i = 0; i < closest.size(); ++i)
    {
        text += (i == 0 ? "" : ", ") + describeKey(closest[i]);
    }
    if (registered.size() > closest.size())
    {
        text += " (" + std::to_string(registered.size()) + " registered in all)";
    }
    text += ".";
    return text;
}

} // namespace kiln::plugin
