// SPDX-License-Identifier: MIT
// A torch-extension kernel whose functions also run on the CPU (torch ops only), so the CI box
// without a GPU can compile it, load it and call it through KernelSieve's extension shim: the
// argument conversions, py::arg defaults, a lambda binding, a thrown TORCH_CHECK and a function
// whose result is not one Tensor.
#include <torch/extension.h>

torch::Tensor scale(torch::Tensor x, double s, int64_t k, bool negate) {
    TORCH_CHECK(x.dim() >= 1, "x must have at least one dimension");
    auto y = x * s + static_cast<double>(k);
    return negate ? -y : y;
}

std::vector<torch::Tensor> split2(torch::Tensor x) { return {x, x}; }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.doc() = "CPU-callable test module";
    m.def("scale", &scale, "x * s + k, negated on request", py::arg("x"), py::arg("s") = 2.0, py::arg("k") = 1,
          py::arg("negate") = false);
    m.def("add_opt", [](torch::Tensor a, c10::optional<torch::Tensor> b) { return b ? a + *b : a; });
    m.def("split2", &split2);
}
