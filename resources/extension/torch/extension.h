// SPDX-License-Identifier: MIT
// KernelSieve's stand-in for <torch/extension.h>. KernelSieve compiles an external torch-extension
// kernel with this folder first on the include path, so the kernel's `#include <torch/extension.h>`
// lands here: it includes what the real header includes besides the Python bindings
// (<torch/all.h>), and defines PYBIND11_MODULE / m.def(...) so that they record every bound
// function with a typed caller instead of building a Python module. No Python is needed to
// compile or to call the kernel, and the call is exactly the one Python would make: tensors,
// floats as double, ints as int64, bools, None.
#pragma once

#include <torch/all.h>

#include <kernelsieve/ext_abi.h>

#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ks_ext {

template <class T>
struct Conv {
    // A parameter type that Python could not pass either (py::object, a struct...): the call
    // fails with a message naming it, rather than the whole file failing to compile because
    // of one binding KernelSieve never calls.
    static T get(const c10::IValue&) { throw std::runtime_error("a parameter type KernelSieve cannot pass"); }
    static constexpr const char* name = "unsupported";
};
template <> struct Conv<at::Tensor> {
    static at::Tensor get(const c10::IValue& v) { return v.toTensor(); }
    static constexpr const char* name = "Tensor";
};
template <> struct Conv<double> {
    static double get(const c10::IValue& v) { return v.isInt() ? static_cast<double>(v.toInt()) : v.toDouble(); }
    static constexpr const char* name = "double";
};
template <> struct Conv<float> {
    static float get(const c10::IValue& v) { return static_cast<float>(Conv<double>::get(v)); }
    static constexpr const char* name = "float";
};
template <> struct Conv<int64_t> {
    static int64_t get(const c10::IValue& v) {
        if (v.isBool()) return v.toBool() ? 1 : 0;
        return v.toInt();
    }
    static constexpr const char* name = "int64_t";
};
template <> struct Conv<int> {
    static int get(const c10::IValue& v) { return static_cast<int>(Conv<int64_t>::get(v)); }
    static constexpr const char* name = "int";
};
template <> struct Conv<bool> {
    static bool get(const c10::IValue& v) { return v.isInt() ? v.toInt() != 0 : v.toBool(); }
    static constexpr const char* name = "bool";
};
template <> struct Conv<std::vector<int64_t>> {
    static std::vector<int64_t> get(const c10::IValue& v) { return v.toIntVector(); }
    static constexpr const char* name = "List[int]";
};
template <> struct Conv<c10::optional<at::Tensor>> {
    static c10::optional<at::Tensor> get(const c10::IValue& v) {
        if (v.isNone()) return c10::nullopt;
        return v.toTensor();
    }
    static constexpr const char* name = "Optional[Tensor]";
};

template <class T>
using Plain = std::remove_cv_t<std::remove_reference_t<T>>;

template <class Fn, class R, class... A>
struct Binder {
    static std::string signature() {
        std::string s = std::is_same_v<Plain<R>, at::Tensor> ? "Tensor(" : "non-Tensor result(";
        const char* names[] = {Conv<Plain<A>>::name..., ""};
        for (size_t i = 0; i < sizeof...(A); ++i) s += (i ? ", " : "") + std::string(names[i]);
        return s + ")";
    }
    template <size_t... I>
    static R invoke(Fn& fn, const c10::IValue* args, std::index_sequence<I...>) {
        return fn(Conv<Plain<A>>::get(args[I])...);
    }
    static bool call(void* callable, const c10::IValue* args, int nargs, at::Tensor* out, std::string* error) {
        try {
            if (nargs != static_cast<int>(sizeof...(A)))
                throw std::runtime_error("called with " + std::to_string(nargs) + " arguments, the function takes " +
                                         std::to_string(sizeof...(A)));
            if constexpr (std::is_same_v<Plain<R>, at::Tensor>) {
                *out = invoke(*static_cast<Fn*>(callable), args, std::index_sequence_for<A...>{});
                return true;
            } else {
                throw std::runtime_error("the function does not return one torch::Tensor; KernelSieve compares one output");
            }
        } catch (const std::exception& e) {
            *error = e.what();
            return false;
        } catch (...) {
            *error = "the function threw a non-standard exception";
            return false;
        }
    }
};

template <class T> struct Traits : Traits<decltype(&T::operator())> {};
template <class R, class... A> struct Traits<R (*)(A...)> { using Ret = R; using Args = std::tuple<A...>; };
template <class R, class... A> struct Traits<R(A...)> : Traits<R (*)(A...)> {};
template <class C, class R, class... A> struct Traits<R (C::*)(A...) const> : Traits<R (*)(A...)> {};
template <class C, class R, class... A> struct Traits<R (C::*)(A...)> : Traits<R (*)(A...)> {};

template <class Fn, class R, class Tuple> struct BinderOf;
template <class Fn, class R, class... A> struct BinderOf<Fn, R, std::tuple<A...>> { using type = Binder<Fn, R, A...>; };

} // namespace ks_ext

namespace pybind11 {

// py::arg("eps") = 1e-5: the name is ignored (KernelSieve calls positionally); a default is kept.
struct arg {
    const char* name;
    c10::IValue value;
    bool hasDefault = false;
    explicit arg(const char* n) : name(n) {}
    template <class T> arg& operator=(T&& v) {
        using P = std::decay_t<T>;
        if constexpr (std::is_floating_point_v<P>) value = static_cast<double>(v);
        else if constexpr (std::is_same_v<P, bool>) value = v;
        else if constexpr (std::is_integral_v<P>) value = static_cast<int64_t>(v);
        else value = c10::IValue(); // None (py::none()) or something Python-only
        hasDefault = true;
        return *this;
    }
};
struct none {};
template <class... T> struct call_guard {};
struct gil_scoped_release {};
struct return_value_policy { static constexpr int reference = 0, move = 1, copy = 2, automatic = 3; };

class module_ {
  public:
    template <class F, class... Extra>
    module_& def(const char* name, F&& f, Extra&&... extra) {
        using Fn = std::decay_t<F>;
        using Tr = ks_ext::Traits<std::remove_pointer_t<Fn>>;
        using B = typename ks_ext::BinderOf<Fn, typename Tr::Ret, typename Tr::Args>::type;
        auto& e = m_entries.emplace_back();
        e.name = name;
        e.signature = B::signature();
        e.callable = std::make_shared<Fn>(std::forward<F>(f));
        (collect(e, extra), ...);
        KsExtFunction k{};
        k.name = e.name.c_str();
        k.signature = e.signature.c_str();
        k.arity = static_cast<int>(std::tuple_size_v<typename Tr::Args>);
        k.firstDefault = k.arity - static_cast<int>(e.defaults.size());
        k.defaults = e.defaults.data();
        k.callable = e.callable.get();
        k.call = &B::call;
        m_functions.push_back(k);
        return *this;
    }
    std::string& doc() { return m_doc; }
    const std::vector<KsExtFunction>& functions() const { return m_functions; }

  private:
    struct Entry {
        std::string name, signature;
        std::shared_ptr<void> callable;
        std::vector<c10::IValue> defaults;
    };
    static void collect(Entry& e, const arg& a) {
        if (a.hasDefault) e.defaults.push_back(a.value);
    }
    template <class T> static void collect(Entry&, const T&) {} // docstrings, call guards, policies
    std::deque<Entry> m_entries; // stable addresses: KsExtFunction points into them
    std::vector<KsExtFunction> m_functions;
    std::string m_doc;
};
using module = module_;

} // namespace pybind11
namespace py = pybind11;

// The module body runs once, on the first ks_ext_functions() call (no Python import happens).
#define PYBIND11_MODULE(name, variable)                                                            \
    static void ks_ext_module_body(::pybind11::module_& variable);                                \
    extern "C" __attribute__((visibility("default"))) int ks_ext_abi_version() {                 \
        return KS_EXT_ABI_VERSION;                                                                 \
    }                                                                                              \
    extern "C" __attribute__((visibility("default"))) int ks_ext_functions(const KsExtFunction** out) { \
        static ::pybind11::module_ ks_ext_module;                                                  \
        static const bool ks_ext_done = (ks_ext_module_body(ks_ext_module), true);                 \
        (void)ks_ext_done;                                                                         \
        *out = ks_ext_module.functions().data();                                                   \
        return static_cast<int>(ks_ext_module.functions().size());                                \
    }                                                                                              \
    static void ks_ext_module_body(::pybind11::module_& variable)
