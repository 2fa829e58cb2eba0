// SPDX-License-Identifier: MIT
#pragma once
// One FLOP model for the graph analyses: filter 5's per-node estimate (docs/inefficiency.md,
// "FLOPs"), also what filter 6 weighs its redundant nodes by, so that a task's FLOPs are the same
// number in both reports. Internal to ks_core (torch types; not installed).

#include <cstdint>
#include <map>
#include <vector>

namespace torch::jit {
struct Node;
struct Value;
} // namespace torch::jit

namespace ks {

// Estimated FLOPs of one node, given the observed sizes of the graph's values (those missing
// count as unknown: a matmul without its operand's sizes counts K = 1). Recurrent layers and
// scaled_dot_product_attention count their products, einsum its equation; views and copies 0.
double taskNodeFlops(const torch::jit::Node* n, const std::map<const torch::jit::Value*, std::vector<int64_t>>& shapes);

} // namespace ks
