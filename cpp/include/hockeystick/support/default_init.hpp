// A std::vector allocator that default-initializes: resize(n) and vector(n) leave doubles
// uninitialized instead of writing zeros, for buffers every entry of which is written before it is
// read (the suffix sums of pld/reads/hockey_stick.hpp's GridProfile: two passes over n doubles saved per
// composed PMF, a memset and, for fresh pages, their first touch).  Value-initialization (resize(n, 0.0),
// vector(n, x)) still writes the value given.  Header-only, no dependency.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace hockeystick {

template <class T, class Base = std::allocator<T>>
class DefaultInitAllocator : public Base {
  public:
    using Base::Base;
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U, typename std::allocator_traits<Base>::template rebind_alloc<U>>;
    };
    template <class U>
    void construct(U* at) noexcept(noexcept(::new (static_cast<void*>(at)) U)) {
        ::new (static_cast<void*>(at)) U;
    }
    template <class U, class... Args>
    void construct(U* at, Args&&... args) {
        std::allocator_traits<Base>::construct(static_cast<Base&>(*this), at, std::forward<Args>(args)...);
    }
};

// A vector whose resize(n) / vector(n) do not zero its entries.
template <class T>
using DefaultInitVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace hockeystick
