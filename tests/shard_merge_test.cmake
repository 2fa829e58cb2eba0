# SPDX-License-Identifier: MIT
# filter --shard K/N and merge (issue 17): N shards run as separate processes and merged equal the
# single run, byte for byte in the CSV (load failures included); merge refuses what does not fit.
cmake_policy(SET CMP0007 NEW)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include(${CMAKE_CURRENT_LIST_DIR}/cli_helpers.cmake)



function(expect_same_file a b what)
    file(READ "${WORK}/${a}" x)
    file(READ "${WORK}/${b}" y)
    if(NOT x STREQUAL y)
        message(FATAL_ERROR "${what}: ${a} and ${b} differ")
    endif()
endfunction()

# Filter 5 times things (not deterministic); the statistics and filter 6 are.
foreach(suite synthetic bad)
    set(RUN --suite "${DATA}/${suite}" --device cpu --criteria stat,redundancy --seeds 2 -q)
    run_cli(0 out filter ${RUN} --out ${suite}-single.json --csv ${suite}-single.csv)
    set(parts "")
    foreach(k 1 2 3)
        run_cli(0 out filter ${RUN} --shard ${k}/3 --out ${suite}-s${k}.json)
        expect_contains("${out}" "shard ${k}/3: " "the shard says what it runs")
        list(APPEND parts ${suite}-s${k}.json)
    endforeach()
    # Given in any order.
    list(REVERSE parts)
    run_cli(0 out merge ${parts} --out ${suite}-merged.json --csv ${suite}-merged.csv)
    expect_contains("${out}" "merged 3 files" "merge")
    expect_same_file(${suite}-single.csv ${suite}-merged.csv "${suite}: three shards merged vs one run")
    file(READ "${WORK}/${suite}-merged.json" m)
    string(JSON prov GET "${m}" run merged_from)
    expect_contains("${prov}" "${suite}-s2.json: shard 2/3" "the merged file keeps where its parts came from")
endforeach()

# Refusals.
run_cli(3 out merge synthetic-s1.json synthetic-s2.json --out x.json)
expect_contains("${out}" "shards 3 of 3 are missing" "a missing shard")
run_cli(0 out merge synthetic-s1.json synthetic-s2.json --out partial.json --allow-missing)
run_cli(3 out merge synthetic-s1.json synthetic-s1.json synthetic-s3.json --out x.json)
expect_contains("${out}" "in more than one file" "the same shard twice")
run_cli(3 out merge synthetic-s1.json bad-s2.json bad-s3.json --out x.json)
expect_contains("${out}" "is not a part of the run of synthetic-s1.json (suite" "another suite")
run_cli(0 out filter --suite "${DATA}/synthetic" --device cpu --criteria stat,redundancy --seeds 3 -q --shard 2/3 --out seeds3-s2.json)
run_cli(3 out merge synthetic-s1.json seeds3-s2.json synthetic-s3.json --out x.json)
expect_contains("${out}" "seeds 2 vs 3" "another seed count")
run_cli(3 out merge synthetic-s1.json synthetic-single.json --out x.json)
expect_contains("${out}" "shard count 3 vs 0" "a shard with an unsharded run")
run_cli(2 out filter --suite "${DATA}/synthetic" --device cpu --shard 4/3 --no-out)
expect_contains("${out}" "expected K/N with 1 <= K <= N" "--shard 4/3")
run_cli(2 out filter --suite "${DATA}/synthetic" --device cpu --shard 1/0 --no-out)
if(EXISTS "${WORK}/x.json")
    message(FATAL_ERROR "a refused merge wrote x.json")
endif()
