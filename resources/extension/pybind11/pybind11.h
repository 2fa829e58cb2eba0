// SPDX-License-Identifier: MIT
// KernelSieve stand-in: a kernel that includes pybind11 directly gets the recording module of
// <torch/extension.h> (see there); no Python is involved.
#pragma once
#include <torch/extension.h>
