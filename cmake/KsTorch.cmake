# SPDX-License-Identifier: MIT
# Finds LibTorch (from a Python torch installation) and defines TORCH_LIBRARIES.
#
# The torch wheels on the Python registry are CUDA builds, and Torch's own CMake config stops
# with a fatal error when no CUDA toolkit is installed (a fresh Debian machine). The C++ API
# needs no toolkit to run on the CPU, so in that case we define the target ourselves.

set(_ks_torch_pythons "${KS_TORCH_PYTHON}" "${CMAKE_SOURCE_DIR}/.venv/bin/python3")
find_package(Python3 COMPONENTS Interpreter QUIET)
list(APPEND _ks_torch_pythons "${Python3_EXECUTABLE}")
set(_ks_torch_info "")
foreach(py IN LISTS _ks_torch_pythons)
    if(py AND EXISTS "${py}")
        execute_process(
            COMMAND "${py}" -c "import torch,os;print(torch.utils.cmake_prefix_path);print(os.path.dirname(torch.__file__));print(torch.version.cuda or '');print(int(torch._C._GLIBCXX_USE_CXX11_ABI));print(torch.__version__)"
            OUTPUT_VARIABLE _ks_torch_info OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc ERROR_QUIET)
        if(_rc EQUAL 0)
            set(KS_TORCH_PYTHON "${py}" CACHE FILEPATH "Python whose torch provides LibTorch" FORCE)
            break()
        endif()
        set(_ks_torch_info "")
    endif()
endforeach()
if(NOT _ks_torch_info)
    message(FATAL_ERROR "LibTorch not found: no python3 with torch. Run packaging/setup.sh deps "
                        "(it creates .venv with torch==2.11.0), or pass -DKS_TORCH_PYTHON=/path/to/python3.")
endif()
string(REPLACE "\n" ";" _ks_torch_info "${_ks_torch_info}")
list(GET _ks_torch_info 0 _prefix)
list(GET _ks_torch_info 1 _torch_dir)
list(GET _ks_torch_info 2 _torch_cuda)
list(GET _ks_torch_info 3 _abi)
list(GET _ks_torch_info 4 KS_TORCH_VERSION)
# "2.11.0+cu130" -> "2.11.0": what `pip install torch==` takes (the launcher's and package's hints).
string(REGEX REPLACE "\\+.*$" "" KS_TORCH_RELEASE "${KS_TORCH_VERSION}")
# The torch package folder: external kernels are compiled against its headers and libraries.
set(KS_TORCH_PACKAGE_DIR "${_torch_dir}")
message(STATUS "LibTorch ${KS_TORCH_VERSION} from ${KS_TORCH_PYTHON} (CUDA build: '${_torch_cuda}')")
if(NOT KS_TORCH_VERSION MATCHES "^2\\.11\\.")
    message(WARNING "KernelSieve is built and tested against LibTorch 2.11; found ${KS_TORCH_VERSION}")
endif()

find_package(CUDAToolkit QUIET)
if(_torch_cuda STREQUAL "" OR CUDAToolkit_FOUND)
    list(APPEND CMAKE_PREFIX_PATH "${_prefix}")
    if(NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
        set(ENV{TORCH_CUDA_ARCH_LIST} "9.0")
    endif()
    find_package(Torch REQUIRED)
    set(KS_TORCH_VIA_CONFIG ON)
else()
    message(STATUS "No CUDA toolkit: linking LibTorch's libraries directly (CPU use; the GPU still "
                   "works at run time if the driver and the wheel's CUDA libraries are present)")
    add_library(ks_libtorch INTERFACE)
    target_include_directories(ks_libtorch SYSTEM INTERFACE
        "${_torch_dir}/include" "${_torch_dir}/include/torch/csrc/api/include")
    target_compile_definitions(ks_libtorch INTERFACE _GLIBCXX_USE_CXX11_ABI=${_abi})
    # libtorch.so pulls in libtorch_cuda.so; --no-as-needed keeps it even though we call nothing in
    # it directly, so CUDA stays available at run time.
    target_link_libraries(ks_libtorch INTERFACE
        -Wl,--no-as-needed "${_torch_dir}/lib/libtorch.so" -Wl,--as-needed
        "${_torch_dir}/lib/libtorch_cpu.so" "${_torch_dir}/lib/libc10.so")
    target_link_options(ks_libtorch INTERFACE "-Wl,-rpath,${_torch_dir}/lib")
    set(TORCH_LIBRARIES ks_libtorch)
    set(KS_TORCH_VIA_CONFIG OFF)
endif()
