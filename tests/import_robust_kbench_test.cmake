# SPDX-License-Identifier: MIT
# kernelsieve-cli import-robust-kbench on tests/data/robust_kbench_fixture (task folders relu,
# linear and broken), then list and filter over what it wrote. Needs PYTHON with torch; without
# one the test prints "SKIPPED" and CTest reports it as skipped.
cmake_policy(SET CMP0007 NEW)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

if(NOT PYTHON OR NOT EXISTS "${PYTHON}")
    message("SKIPPED: no Python with torch (KS_TORCH_PYTHON='${PYTHON}')")
    return()
endif()
execute_process(COMMAND "${PYTHON}" -c "import torch" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
    message("SKIPPED: ${PYTHON} cannot import torch")
    return()
endif()

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

set(FIX "${DATA}/robust_kbench_fixture")

# Usage errors: no such folder (3), a folder without task folders (3).
run_cli(3 out import-robust-kbench "${WORK}/nonexistent" --out "${WORK}/x" --python "${PYTHON}")
expect_contains("${out}" "func_forward.py" "missing folder message")
file(MAKE_DIRECTORY "${WORK}/empty")
run_cli(3 out import-robust-kbench "${WORK}/empty" --out "${WORK}/x" --python "${PYTHON}")
expect_contains("${out}" "no robust-kbench task folders" "empty folder message")

# The fixture: two tasks import, the broken one is a per-task error, the exit is 0.
run_cli(0 out import-robust-kbench "${FIX}" --out "${WORK}/suite" --python "${PYTHON}" --trace-device cpu --jobs 2)
expect_contains("${out}" "RK-linear" "import table")
expect_contains("${out}" "kernel call forward(in0, weight, bias, 0.5)" "linear's call plan")
expect_contains("${out}" "kernel call forward(in0)" "relu's call plan")
expect_contains("${out}" "SyntaxError" "broken task")
expect_contains("${out}" "2 of 3 task folders imported, 1 failed" "summary")
foreach(f linear/linear.json linear/linear.pt linear/func_forward.py relu/relu.json relu/relu.pt)
    if(NOT EXISTS "${WORK}/suite/${f}")
        message(FATAL_ERROR "import-robust-kbench did not write ${f}")
    endif()
endforeach()
if(EXISTS "${WORK}/suite/broken")
    message(FATAL_ERROR "a failed task left files behind")
endif()
file(READ "${WORK}/suite/linear/linear.json" spec)
expect_contains("${spec}" "\"kernel_call\"" "kernel_call field")
expect_contains("${spec}" "\"format\": \"robust-kbench\"" "import.format")

# One task folder as PATH, --tasks, --jsonl.
run_cli(0 out import-robust-kbench "${FIX}" --out "${WORK}/one" --python "${PYTHON}" --trace-device cpu
        --tasks "RK-rel*" --jsonl)
expect_contains("${out}" "\"id\":\"RK-relu\"" "jsonl event")
expect_contains("${out}" "\"kernel_call\":{\"args\":[{\"input\":0}],\"function\":\"forward\"}" "jsonl kernel_call")
run_cli(0 out import-robust-kbench "${FIX}/linear" --out "${WORK}/single" --python "${PYTHON}" --trace-device cpu)
expect_contains("${out}" "1 of 1 task folders imported" "single task folder")

# What was written loads and runs like any suite.
run_cli(0 out list --suite "${WORK}/suite")
expect_contains("${out}" "RK-linear" "list")
expect_contains("${out}" "RK-relu" "list")
run_cli(0 out filter --suite "${WORK}/suite" --device cpu --seeds 2 --criteria stat --out "${WORK}/results.json")
file(READ "${WORK}/results.json" results)
expect_contains("${results}" "\"RK-linear\"" "filter results")
