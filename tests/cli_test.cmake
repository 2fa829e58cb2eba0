# SPDX-License-Identifier: MIT
# End-to-end checks of kernelsieve-cli: exit codes, messages, output files.
# Empty list elements are kept (CSV cells left empty mean "not run").
cmake_policy(SET CMP0007 NEW)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include(${CMAKE_CURRENT_LIST_DIR}/cli_helpers.cmake)


# The cell of `column` (a header name) in the row of task `id` of a CSV text (no quoted commas in
# the rows we look at).
function(csv_cell csv id column out_var)
    string(REPLACE "\r\n" "\n" csv "${csv}")
    string(REPLACE ";" "," csv "${csv}")
    string(REGEX MATCH "^[^\n]*" header "${csv}")
    string(REGEX MATCH "\n${id},[^\n]*" row "${csv}")
    if(row STREQUAL "")
        message(FATAL_ERROR "CSV has no row for ${id}")
    endif()
    string(SUBSTRING "${row}" 1 -1 row)
    string(REPLACE "," ";" header "${header}")
    string(REPLACE "," ";" row "${row}")
    list(FIND header "${column}" i)
    if(i EQUAL -1)
        message(FATAL_ERROR "CSV has no column '${column}'")
    endif()
    list(GET row ${i} value)
    set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

function(expect_cell csv id column expected)
    csv_cell("${csv}" "${id}" "${column}" value)
    if(NOT value STREQUAL "${expected}")
        message(FATAL_ERROR "${id} ${column}: '${value}', expected '${expected}'")
    endif()
endfunction()


run_cli(0 out --version)
expect_contains("${out}" "LibTorch 2.11" "--version")
expect_contains("${out}" "Device " "--version")

# Bad usage is a non-zero exit with a message that says what was wrong.
run_cli(2 out filter --seeds 0)
run_cli(2 out filter --device tpu)
run_cli(2 out filter --threshold output_rnage=0.1)
expect_contains("${out}" "unknown threshold 'output_rnage'" "bad threshold name")
expect_contains("${out}" "baseline_rewrite_speedup" "known thresholds listed")
run_cli(2 out filter --criteria stat,speed)
expect_contains("${out}" "--criteria: unknown 'speed'" "bad --criteria")
run_cli(2 out filter --threshold output_range=abc)
expect_contains("${out}" "'abc' is not a number" "bad threshold value")
run_cli(2 out filter --profile no-such-profile)
expect_contains("${out}" "no-such-profile" "bad profile")
# Hostile values (issue 15): a NaN, infinite or negative bound silently switched a filter off, so
# it is a usage error naming the threshold and the value, from the command line or a profile.
foreach(bad "output_std=nan" "output_range=inf" "input_impact=-0.01" "redundant_flop_fraction=1.5"
        "output_axes=1e999" "borderline_margin=-1")
    run_cli(2 out filter --threshold ${bad})
    expect_contains("${out}" "--threshold ${bad}: " "bad threshold ${bad}")
    expect_contains("${out}" "must be a finite number >= 0" "bad threshold ${bad} says the rule")
endforeach()
# Memory sizes: a NaN or infinite size would be converted to bytes undefined, a negative one means nothing.
foreach(opt --host-memory --worker-memory)
    foreach(bad nan -1 1e999 abc)
        run_cli(2 out filter ${opt} ${bad} --no-out)
        expect_contains("${out}" "${opt}: must be a finite number of GiB, 0 or more (got '${bad}')" "${opt} ${bad}")
    endforeach()
endforeach()
# Tolerances: an infinite one would pass every kernel, a NaN or negative one none.
foreach(cmd validate bench redundancy)
    foreach(opt --atol --rtol)
        foreach(bad inf nan -1e-5)
            run_cli(2 out ${cmd} ${opt} ${bad})
            expect_contains("${out}" "${opt}: must be a finite number, 0 or more (got '${bad}')" "${cmd} ${opt} ${bad}")
        endforeach()
    endforeach()
endforeach()
run_cli(2 out export-robust-kbench "${DATA}/hostile/collide_results.json" --out rk-bad --threshold output_std=nan)
expect_contains("${out}" "--threshold output_std=nan: " "export refuses a NaN threshold")
run_cli(2 out filter --profile "${DATA}/hostile/profile_negative.json")
expect_contains("${out}" "profile_negative.json: threshold 'output_std' must be a finite number >= 0" "negative profile")
run_cli(2 out filter --profile "${DATA}/hostile/profile_numeric_name.json")
expect_contains("${out}" "profile_numeric_name.json: field 'name' must be a string, got 5" "numeric profile name")
run_cli(3 out export-robust-kbench "${DATA}/hostile/results_seeds_huge.json" --out rk-bad)
expect_contains("${out}" "results_seeds_huge.json: task H-1: field 'seeds' must be an integer in [0, 1000000]"
                "results file with seeds 2^62")
# Names that sanitise alike are all written, each collision said, and the count is honest.
run_cli(0 out export-robust-kbench "${DATA}/hostile/collide_results.json" --out rk-collide)
expect_contains("${out}" "4 filter_results.json files written" "export counts every task")
expect_contains("${out}" "task H-2 and task H-1 both map to folder 'same'; H-2 is written to 'same_H-2'" "collision")
expect_contains("${out}" "task H-4 and task H-3 both map to folder 'a_b'; H-4 is written to 'a_b_H-4'" "collision")
expect_contains("${out}" "was run with 1 seed: the std across seeds needs at least 2 seeds" "one-seed results warn")
foreach(folder same same_H-2 a_b a_b_H-4)
    if(NOT EXISTS "${WORK}/rk-collide/${folder}/filter_results.json")
        message(FATAL_ERROR "export-robust-kbench lost a task: no rk-collide/${folder}/filter_results.json")
    endif()
endforeach()
file(READ "${WORK}/rk-collide/same_H-2/filter_results.json" rk)
expect_contains("${rk}" "\"task_id\": \"H-2\"" "the suffixed folder holds the second task")
run_cli(3 out filter --suite /nonexistent/suite)
expect_contains("${out}" "/nonexistent/suite" "missing suite")
run_cli(3 out filter --suite "${DATA}/synthetic" --tasks "no-such-task*")

# A suite with broken files: the pass completes (exit 0) and every failure is in the outputs.
run_cli(0 out filter --suite "${DATA}/bad" --device cpu --seeds 2 --out bad.json --csv bad.csv)
expect_contains("${out}" "B-compile" "bad suite table")
file(READ "${WORK}/bad.json" json)
expect_contains("${json}" "\"schema\": \"kernelsieve.results\"" "results schema")
expect_contains("${json}" "malformed.json: not valid JSON" "load failure in results")
expect_contains("${json}" "task B-shape:" "runtime failure in results")
file(READ "${WORK}/bad.csv" csv)
expect_contains("${csv}" "Task ID,Task Name,Output Range,Output Std,Output Axes,Input Impact,Baseline Inefficiency,Redundant Computation,Zeros Pass,Any Flag" "CSV header")
expect_contains("${csv}" "B-good,good_task,False,False,False,False," "CSV row")
expect_cell("${csv}" B-good "Redundant Computation" False)
expect_cell("${csv}" B-good Status ok)
# A task that failed is not analysed: filters 5-6 are empty cells, never True or False.
expect_cell("${csv}" B-shape "Baseline Inefficiency" "")
expect_cell("${csv}" B-shape "Redundant Computation" "")
expect_cell("${csv}" B-shape "Zeros Pass" "")

# Thresholds from the command line change the flags, not the metrics.
run_cli(0 out filter --suite "${DATA}/synthetic" --device cpu --tasks "T-tiny,T-normal" --out a.json --csv a.csv -q)
run_cli(0 out filter --suite "${DATA}/synthetic" --device cpu --tasks "T-tiny,T-normal" --out b.json --csv b.csv -q
        --threshold output_range=0.00001 --threshold borderline_margin=0.5 --profile robust-kbench)
file(READ "${WORK}/a.csv" a)
file(READ "${WORK}/b.csv" b)
expect_contains("${a}" "T-tiny,tiny_output,True,True,True,True" "default thresholds")
expect_contains("${b}" "T-tiny,tiny_output,False,True,True,True" "range threshold lowered")
# Zeros pass is derived from the same run: the tiny outputs pass allclose as zeros, normal ones do not.
expect_cell("${a}" T-tiny "Zeros Pass" True)
expect_cell("${a}" T-normal "Zeros Pass" False)
expect_cell("${b}" T-tiny borderline_margin 0.5)

# Shared operands (issue 17): one drawing thread, a budget that keeps nothing (every reuse drawn
# again) and no drawing ahead give the same CSV, byte for byte, as the defaults.
run_cli(0 out filter --suite builtin --device cpu --tasks "L1-1,L1-23,L2-66,L1-95" --criteria stat,redundancy
        --seeds 3 --out ops-a.json --csv ops-a.csv -q)
run_cli(0 out filter --suite builtin --device cpu --tasks "L1-1,L1-23,L2-66,L1-95" --criteria stat,redundancy
        --seeds 3 --draw-threads 1 --host-memory 0.000001 --no-draw-ahead --out ops-b.json --csv ops-b.csv -q)
file(READ "${WORK}/ops-a.csv" opsa)
file(READ "${WORK}/ops-b.csv" opsb)
if(NOT opsa STREQUAL opsb)
    message(FATAL_ERROR "filter CSV differs with --draw-threads 1 --host-memory 0.000001 --no-draw-ahead")
endif()
file(READ "${WORK}/ops-b.json" opsj)
expect_contains("${opsj}" "\"operand_redraws\": 4" "a budget below one set draws reused seeds again")
# The filter's driver starts its workers with THP_MEM_ALLOC_ENABLE=1 (LibTorch's CPU allocator asks
# for transparent huge pages; ks::hugePageEnv) where the kernel has them; the results say what the
# worker's LibTorch was told. A user's own setting wins.
string(JSON thp GET "${opsj}" run host_huge_pages)
if(EXISTS /sys/kernel/mm/transparent_hugepage/enabled)
    expect_contains("${thp}" "THP_MEM_ALLOC_ENABLE=1, kernel: " "a filter worker's huge pages")
else()
    expect_contains("${thp}" "THP_MEM_ALLOC_ENABLE=(unset), kernel: no transparent huge pages" "no huge pages")
endif()
set(ENV{THP_MEM_ALLOC_ENABLE} 0)
run_cli(0 out filter --suite builtin --device cpu --tasks L1-1 --criteria stat --seeds 2 --out thp0.json -q)
unset(ENV{THP_MEM_ALLOC_ENABLE})
file(READ "${WORK}/thp0.json" thp0)
string(JSON thp GET "${thp0}" run host_huge_pages)
expect_contains("${thp}" "THP_MEM_ALLOC_ENABLE=0, kernel: " "the user's THP_MEM_ALLOC_ENABLE=0 kept")
run_cli(2 out filter --draw-threads -1)

# diff (issue 14): the tasks whose flags differ, with the metric deltas; exit 0 when no flag
# differs, 1 when some do. a.json and b.json hold the same run judged by different thresholds.
run_cli(0 out diff a.json a.json)
expect_contains("${out}" "The runs agree in suite, device, preset, seeds and thresholds." "diff of a file with itself")
expect_contains("${out}" "0 of 2 tasks differ in a flag." "diff: nothing differs")
run_cli(1 out diff a.json b.json --csv ab.csv)
expect_contains("${out}" "The runs differ in:\n  output_range              0.01 | 1e-05" "diff names the threshold that differs")
expect_contains("${out}" "1 of 2 tasks differ in a flag:" "diff counts the differing tasks")
string(REGEX MATCH "\nT-tiny +tiny_output +output_range +FLAG [^\n]* ok +[^\n]* 0\n" line "${out}")
if(line STREQUAL "")
    message(FATAL_ERROR "diff: no line for T-tiny's output_range (flagged in A, not in B, delta 0):\n${out}")
endif()
file(READ "${WORK}/ab.csv" ab)
expect_contains("${ab}" "Task ID,Task Name,Level,Category,In A,In B,Status A,Status B,Differs,Differing Criteria,Any Flag A,Any Flag B,output_range_a,output_range_b" "diff CSV header")
expect_cell("${ab}" T-tiny Differs True)
expect_cell("${ab}" T-tiny "Differing Criteria" output_range)
expect_cell("${ab}" T-tiny output_range_a True)
expect_cell("${ab}" T-tiny output_range_b False)
expect_cell("${ab}" T-tiny output_range_delta 0)
expect_cell("${ab}" T-normal Differs False)
# One profile for both sides: the same data agrees; a threshold for B alone compares two profiles.
run_cli(0 out diff a.json b.json --profile robust-kbench)
run_cli(1 out diff a.json a.json --b-threshold output_range=0.00001)
expect_contains("${out}" "T-tiny" "--b-threshold judges B alone")
run_cli(0 out diff a.json a.json --threshold output_range=0.00001)
# Usage, unreadable files, an unwritable CSV.
run_cli(2 out diff a.json)
run_cli(2 out diff a.json a.json --profile no-such-profile)
expect_contains("${out}" "--profile 'no-such-profile' is neither a built-in profile" "diff: bad profile")
run_cli(2 out diff a.json a.json --threshold output_rnage=0.1)
run_cli(3 out diff a.json /nonexistent/b.json)
expect_contains("${out}" "/nonexistent/b.json" "diff names the unreadable file")
run_cli(3 out diff a.json a.csv)
run_cli(5 out diff a.json b.json --csv /nonexistent/dir/d.csv)
# Several files (the compare view's A against B1..Bn): A against each in turn, the pair reports
# as above, then the tasks that differ from A in some file; one CSV per pair.
run_cli(1 out diff a.json a.json b.json --csv abc.csv)
expect_contains("${out}" "=== A against B1 (a.json) ===" "diff of several files: the first pair")
expect_contains("${out}" "=== A against B2 (b.json) ===" "diff of several files: the second pair")
expect_contains("${out}" "B1 a.json: 0 of 2 tasks differ in a flag" "diff of several: the pair that agrees")
expect_contains("${out}" "B2 b.json: 1 of 2 tasks differ in a flag" "diff of several: the pair that differs")
expect_contains("${out}" "1 task differs from A in a flag in some file:\n  T-tiny" "diff of several: the union")
file(READ "${WORK}/abc-B1.csv" abc1)
file(READ "${WORK}/abc-B2.csv" abc2)
expect_cell("${abc1}" T-tiny Differs False)
expect_cell("${abc2}" T-tiny Differs True)
run_cli(0 out diff a.json a.json a.json)
expect_contains("${out}" "0 tasks differ from A in a flag in some file." "diff of several: none differs")
run_cli(3 out diff a.json a.json /nonexistent/c.json)
# Two real H200 runs of the built-in suite (bench/filters): with each file's own thresholds the
# 11-29 run flags 22 more tasks for baseline inefficiency (baseline_passes was 2 then); under one
# profile, 8 tasks still differ there, from rules added between the runs (drop-redundant).
set(H200 "${DATA}/../../bench/filters")
run_cli(1 out diff "${H200}/h200-2026-11-29-filter.json" "${H200}/h200-2026-12-01/builtin.json")
expect_contains("${out}" "baseline_passes           2 | 0" "diff: the files' thresholds differ")
expect_contains("${out}" "45 of 122 tasks differ in a flag:" "diff of two H200 runs, each by its thresholds")
run_cli(1 out diff "${H200}/h200-2026-11-29-filter.json" "${H200}/h200-2026-12-01/builtin.json" --profile robust-kbench)
expect_contains("${out}" "8 of 122 tasks differ in a flag:" "diff of two H200 runs, one profile")
expect_contains("${out}" "FLAG 63.1x drop-redundant" "diff shows B's reason")
# The 12-01 run against both 11-29 runs, as the compare view's three-file screenshot: 8 and 9
# tasks differ per pair, 9 in all (L2-18 only against 11-29d).
run_cli(1 out diff "${H200}/h200-2026-12-01/builtin.json" "${H200}/h200-2026-11-29-filter.json"
        "${H200}/h200-2026-11-29d-filter.json" --profile robust-kbench)
expect_contains("${out}" "h200-2026-11-29-filter.json: 8 of 122 tasks differ in a flag" "diff of three H200 runs, B1")
expect_contains("${out}" "h200-2026-11-29d-filter.json: 9 of 122 tasks differ in a flag" "diff of three H200 runs, B2")
expect_contains("${out}" "9 tasks differ from A in a flag in some file:\n  L1-50, L1-61, L2-13, L2-13r, L2-18, L2-22, L2-23, L2-66, L2-80" "diff of three H200 runs, the union")

# --criteria stat: filters 5-6 not run, so their cells are empty.
run_cli(0 out filter --suite "${DATA}/synthetic" --device cpu --tasks "T-normal" --criteria stat --no-out --csv stat.csv -q)
file(READ "${WORK}/stat.csv" stat)
expect_cell("${stat}" T-normal "Baseline Inefficiency" "")
expect_cell("${stat}" T-normal "Redundant Computation" "")
expect_cell("${stat}" T-normal "Output Std" False)

# One seed: std filters cannot flag, said on stderr (the run still completes).
run_cli(0 out filter --suite "${DATA}/synthetic" --device cpu --tasks "T-normal" --criteria stat --seeds 1 --no-out -q)
expect_contains("${out}" "warning: --seeds 1: the std across seeds needs at least 2 seeds" "one seed warns")

# JSON lines for the GUI worker.
run_cli(0 out filter --suite "${DATA}/synthetic" --device cpu --tasks "T-normal" --jsonl --no-out)
expect_contains("${out}" "{\"event\":\"start\"" "jsonl start")
expect_contains("${out}" "{\"event\":\"task\",\"index\":0" "jsonl task")
expect_contains("${out}" "{\"event\":\"done\"" "jsonl done")
expect_contains("${out}" "\"phase\":\"redundancy\"" "jsonl task_phase")
expect_contains("${out}" "\"redundancy\":{" "jsonl result carries the analyses")

# The whole built-in suite, small preset, CPU, all six filters: every task ends in the results
# (an analysis that fails never stops the run) and the seed's cases come out as measured.
string(TIMESTAMP t0 "%s")
run_cli(0 out filter --device cpu --preset small --seeds 3 --out builtin.json --csv builtin.csv -q)
string(TIMESTAMP t1 "%s")
math(EXPR seconds "${t1} - ${t0}")
message(STATUS "built-in suite, six filters, CPU small preset: ${seconds} s")
expect_contains("${out}" "device ceilings for filter 5" "ceilings measured once per run")
file(READ "${WORK}/builtin.csv" b)
# Filter 5: the diagonal matmul is caught by its rewrite; softmax is not inefficient.
expect_cell("${b}" L1-12 "Baseline Inefficiency" True)
expect_cell("${b}" L1-12 baseline_rewrite_rule diag-matmul)
csv_cell("${b}" L1-12 baseline_reasons reasons)
expect_contains("${reasons}" "rewrite" "L1-12 flagged by its rewrite")
expect_cell("${b}" L1-12 baseline_timed_on CPU)
expect_cell("${b}" L1-23 "Baseline Inefficiency" False)
# Filter 6: every KS-* task was built with redundant or dead work; a plain matmul has none. Dead
# branches, a dead matmul, a constant softmax and a duplicated linear (half the FLOPs) flag by
# default; the cheap no-ops of KS-4..9 are reported (redundant_nodes) but stay under 5 % of FLOPs.
foreach(ks 1 2 3 10)
    expect_cell("${b}" KS-${ks} "Redundant Computation" True)
endforeach()
foreach(ks RANGE 4 9)
    expect_cell("${b}" KS-${ks} "Redundant Computation" False)
    csv_cell("${b}" KS-${ks} redundant_nodes n)
    if(n LESS 1)
        message(FATAL_ERROR "KS-${ks}: its redundant op is not reported (redundant_nodes ${n})")
    endif()
endforeach()
expect_cell("${b}" L1-1 "Redundant Computation" False)
expect_cell("${b}" L1-1 redundant_nodes 0)
expect_cell("${b}" L2-13 "Redundant Computation" True)
expect_cell("${b}" L2-13r "Redundant Computation" False)
file(READ "${WORK}/builtin.json" bj)
expect_contains("${bj}" "\"ceilings\": {" "ceilings in the run info")
expect_contains("${bj}" "\"baseline_inefficiency\": true" "flags written")
# Re-thresholding from the stored reports, no re-run: a 1e9x rewrite bound and no efficiency or
# pass bound clear L1-12's flag.
run_cli(0 out export-robust-kbench builtin.json --out rk --tasks L1-12,KS-2 --dir-name id
        --threshold baseline_rewrite_speedup=1e9 --threshold baseline_efficiency=0 --threshold baseline_passes=1e9)
file(READ "${WORK}/rk/L1-12/filter_results.json" rk)
expect_contains("${rk}" "\"baseline_inefficiency\": false" "export re-thresholds filter 5")
expect_contains("${rk}" "\"best_rule\": \"diag-matmul\"" "export carries the rewrite")
file(READ "${WORK}/rk/KS-2/filter_results.json" rk)
expect_contains("${rk}" "\"redundant_computation\": true" "export carries filter 6")
expect_contains("${rk}" "\"filter_output_range\": false" "robust-kbench keys unchanged")

run_cli(0 out list --suite builtin --tasks "L1-23")
expect_contains("${out}" "L1-23" "list")

# bench / validate --dim: a malformed value, or a dim none of the selected tasks has, is a usage
# error found before the device is probed (so it is checked here, without a GPU). A CLI built
# without the kernels says that instead.
execute_process(COMMAND "${CLI}" validate --tasks L1-23 --dim nosuch=3 RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY "${WORK}")
if(err MATCHES "built without the CUDA kernels")
    message(STATUS "kernelsieve-cli has no CUDA kernels: --dim checks skipped")
else()
    if(NOT rc EQUAL 2)
        message(FATAL_ERROR "validate --dim nosuch=3: exit ${rc}, expected 2\n${out}${err}")
    endif()
    expect_contains("${err}" "none of the selected tasks has a dim named 'nosuch' (their dims: batch_size, dim)"
                    "--dim names the unknown dim and the known ones")
    run_cli(2 out validate --tasks L1-23 --dim dim=0)
    expect_contains("${out}" "--dim 'dim=0': expected NAME=SIZE with SIZE a positive integer" "--dim size")
    run_cli(2 out bench --tasks L1-23 --dim dim=39x)
    expect_contains("${out}" "--dim 'dim=39x'" "--dim trailing garbage")
endif()

# kernelsieve-cli runs filter's driver itself and kernelsieve-engine (beside it) for everything
# else, the filter's workers included: without the engine it says so, for every command.
set(LONELY "${WORK}/lonely")
file(MAKE_DIRECTORY "${LONELY}")
file(COPY "${CLI}" DESTINATION "${LONELY}")
get_filename_component(cli_name "${CLI}" NAME)
foreach(args "list" "filter;--suite;builtin;--tasks;L1-23;--device;cpu;--no-out;-q" "--version")
    execute_process(COMMAND "${LONELY}/${cli_name}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                    ERROR_VARIABLE err WORKING_DIRECTORY "${WORK}")
    if(NOT rc EQUAL 127)
        message(FATAL_ERROR "kernelsieve-cli ${args} without kernelsieve-engine: exit ${rc}, expected 127\n${out}${err}")
    endif()
    expect_contains("${err}" "${LONELY}/kernelsieve-engine is missing" "kernelsieve-cli ${args} names the missing engine")
endforeach()
# With it: filter's driver (this program) and a worker (the engine) give the same results as the
# engine running the whole command.
run_cli(0 out filter --suite builtin --tasks L1-23,L1-19 --device cpu --criteria stat --seeds 2 --out front.json -q)
get_filename_component(cli_dir "${CLI}" DIRECTORY)
execute_process(COMMAND "${cli_dir}/kernelsieve-engine" filter --suite builtin --tasks L1-23,L1-19 --device cpu
                        --criteria stat --seeds 2 --out engine.json -q
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY "${WORK}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kernelsieve-engine filter: exit ${rc}\n${out}${err}")
endif()
foreach(f front engine)
    file(READ "${WORK}/${f}.json" j)
    string(JSON t0 GET "${j}" tasks 0 metrics)
    string(JSON t1 GET "${j}" tasks 1 metrics)
    set(${f}_metrics "${t0}${t1}")
endforeach()
if(NOT front_metrics STREQUAL engine_metrics)
    message(FATAL_ERROR "filter's metrics differ between kernelsieve-cli and kernelsieve-engine:\n${front_metrics}\n${engine_metrics}")
endif()
