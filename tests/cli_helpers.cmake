# SPDX-License-Identifier: MIT
# Helpers of the CLI test scripts (cli_test, results_safety_test, shard_merge_test): run
# kernelsieve-cli in WORK and check its exit code and output.

# Runs CLI with ARGN in WORK; fails unless it exits `expect_rc`. Sets `out_var` to stdout + stderr
# and `${out_var}_stdout` to stdout alone.
function(run_cli expect_rc out_var)
    execute_process(COMMAND "${CLI}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                    WORKING_DIRECTORY "${WORK}")
    if(NOT rc STREQUAL "${expect_rc}")
        message(FATAL_ERROR "kernelsieve-cli ${ARGN}: exit ${rc}, expected ${expect_rc}\nstdout:\n${out}\nstderr:\n${err}")
    endif()
    set(${out_var} "${out}${err}" PARENT_SCOPE)
    set(${out_var}_stdout "${out}" PARENT_SCOPE)
endfunction()

function(expect_contains text needle what)
    string(FIND "${text}" "${needle}" pos)
    if(pos EQUAL -1)
        message(FATAL_ERROR "${what}: expected to find '${needle}' in:\n${text}")
    endif()
endfunction()

function(expect_missing text needle what)
    string(FIND "${text}" "${needle}" pos)
    if(NOT pos EQUAL -1)
        message(FATAL_ERROR "${what}: did not expect '${needle}' in:\n${text}")
    endif()
endfunction()
