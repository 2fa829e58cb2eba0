// SPDX-License-Identifier: MIT
#pragma once
// `kernelsieve-cli merge`: the results files of `filter --shard K/N` runs (a Slurm array, say) as
// one file, in the order a single run would have written, with where each part came from.

#include "ks/core/results.h"

#include <string>
#include <vector>

namespace ks {

struct ResultsPart {
    std::string path;
    RunResults results;
};

struct MergeOptions {
    bool allowMissingShards = false; // merge what is there when a shard's file is missing
    bool allowDevices = false;       // accept parts measured on different device models
};

// Refuses (ks::Error naming the files and what differs) parts of different suites, presets, seed
// counts, seed semantics, thresholds or devices (unless allowDevices), shard counts that do not
// agree, two parts with one shard or one task, and missing shards (unless allowMissingShards).
// Unsharded parts (different task selections of one suite) merge in the order given.
RunResults mergeResults(const std::vector<ResultsPart>& parts, const MergeOptions& opt = {});

// The positions `filter --shard K/N` runs, of `total` selected tasks: K-1, K-1+N, ...
std::vector<size_t> shardPositions(size_t total, int k, int n);

} // namespace ks
