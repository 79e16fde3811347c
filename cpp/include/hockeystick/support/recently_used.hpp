// A list kept in the order of use, least recently used first, at most a given length: the per-thread caches of the
// composition (pld/compose/taylor_reuse.hpp's factors, blocks and transforms, pld/compose/direct_spectrum.hpp's
// twiddle tables) keep what later calls ask again.  Header-only, no dependency.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace hockeystick {

// The element of `list` that `match` accepts, moved to the back (most recently used), else a fresh
// (value-initialized) one there, in place of the front (least recently used) where the list holds `most` already.
template <class T, class Match>
inline T& recently_used(std::vector<T>& list, std::size_t most, Match match) {
    auto it = std::find_if(list.begin(), list.end(), match);
    if (it == list.end()) {
        if (list.size() >= most) list.erase(list.begin());
        list.emplace_back();
    } else {
        std::rotate(it, it + 1, list.end());
    }
    return list.back();
}

}  // namespace hockeystick
