// Tilted compositions held between reads, by key, the most recently used last, within a budget of window points.
//
// The delta reads of one point (pld/refine/tilted_question.hpp's TiltedReader::delta_upper, delta_lower) read every
// eps of a bucket from one composition per direction, grid, tails and tilt, and a risk profile asks one point's delta
// call after call, each call's buckets mostly ones an earlier call read.  A composition after many rounds holds
// 3e5 to 1.4e6 window points on the fine grid (its untilted suffix sums, 8 bytes a point), so those held are cut to a
// budget, the least recently used forgotten first.  A composition asked again is the one held: the numbers a new one
// gives (the same rounds, tilt and tails).
#pragma once

#include <cstdint>
#include <iterator>
#include <list>
#include <map>
#include <utility>

#include "hockeystick/pld/reads/tilted.hpp"

namespace hockeystick {
namespace pld {

template <class Key>
class HeldWindows {
  public:
    // The composition held at `key`, now the most recently used; else compose()'s, held from now on, those held first
    // cut to `budget` window points (keep) where budget >= 0, so that at most that many and the new one are in memory.
    // A compose() that throws holds nothing.
    template <class Compose>
    const TiltedComposition& window(const Key& key, Compose&& compose, std::int64_t budget = -1) {
        const auto found = index_.find(key);
        if (found != index_.end()) {
            held_.splice(held_.end(), held_, found->second);
            return found->second->second;
        }
        if (budget >= 0) keep(budget);
        held_.emplace_back(key, compose());
        index_[key] = std::prev(held_.end());
        return held_.back().second;
    }

    // The window points held.
    std::int64_t points() const {
        std::int64_t total = 0;
        for (const auto& entry : held_) total += entry.second.points();
        return total;
    }

    // Forgets the compositions least recently used until those left hold at most `points` window points.
    void keep(std::int64_t points) {
        std::int64_t total = this->points();
        while (total > points && !held_.empty()) {
            total -= held_.front().second.points();
            index_.erase(held_.front().first);
            held_.pop_front();
        }
    }

    void clear() {
        held_.clear();
        index_.clear();
    }

    // f(key, composition) for each held, the least recently used first.
    template <class F>
    void each(F&& f) const {
        for (const auto& entry : held_) f(entry.first, entry.second);
    }

  private:
    std::list<std::pair<Key, TiltedComposition>> held_;
    std::map<Key, typename std::list<std::pair<Key, TiltedComposition>>::iterator> index_;
};

}  // namespace pld
}  // namespace hockeystick
