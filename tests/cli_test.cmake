# SPDX-License-Identifier: MIT
# End-to-end checks of kernelsieve-cli: exit codes, messages, output files.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run_cli expect_rc out_var)
    execute_process(COMMAND "${CLI}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                    WORKING_DIRECTORY "${WORK}")
    if(NOT rc STREQUAL "${expect_rc}")
        message(FATAL_ERROR "kernelsieve-cli ${ARGN}: exit ${rc}, expected ${expect_rc}\nstdout:\n${out}\nstderr:\n${err}")
    endif()
    set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_contains text needle what)
    string(FIND "${text}" "${needle}" pos)
    if(pos EQUAL -1)
        message(FATAL_ERROR "${what}: expected to find '${needle}' in:\n${text}")
    endif()
endfunction()

run_cli(0 out --version)
expect_contains("${out}" "LibTorch 2.11" "--version")
expect_contains("${out}" "Device " "--version")

# Bad usage is a non-zero exit with a message that says what was wrong.
run_cli(2 out filter --seeds 0)
run_cli(2 out filter --device tpu)
run_cli(2 out filter --threshold output_rnage=0.1)
expect_contains("${out}" "unknown criterion 'output_rnage'" "bad threshold name")
run_cli(2 out filter --threshold output_range=abc)
expect_contains("${out}" "'abc' is not a number" "bad threshold value")
run_cli(2 out filter --profile no-such-profile)
expect_contains("${out}" "no-such-profile" "bad profile")
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
expect_contains("${csv}" "Task ID,Task Name,Output Range,Output Std,Output Axes,Input Impact" "CSV header")
expect_contains("${csv}" "B-good,good_task,False,False,False,False,False,0,synthetic,ok" "CSV row")

# Thresholds from the command line change the flags, not the metrics.
run_cli(0 out filter --suite "${DATA}/synthetic" --device cpu --tasks "T-tiny,T-normal" --out a.json --csv a.csv -q)
run_cli(0 out filter --suite "${DATA}/synthetic" --device cpu --tasks "T-tiny,T-normal" --out b.json --csv b.csv -q
        --threshold output_range=0.00001 --profile robust-kbench)
file(READ "${WORK}/a.csv" a)
file(READ "${WORK}/b.csv" b)
expect_contains("${a}" "T-tiny,tiny_output,True,True,True,True" "default thresholds")
expect_contains("${b}" "T-tiny,tiny_output,False,True,True,True" "range threshold lowered")

# JSON lines for the GUI worker.
run_cli(0 out filter --suite "${DATA}/synthetic" --device cpu --tasks "T-normal" --jsonl --no-out)
expect_contains("${out}" "{\"event\":\"start\"" "jsonl start")
expect_contains("${out}" "{\"event\":\"task\",\"index\":0" "jsonl task")
expect_contains("${out}" "{\"event\":\"done\"" "jsonl done")

run_cli(0 out list --suite builtin --tasks "L1-23")
expect_contains("${out}" "L1-23" "list")
