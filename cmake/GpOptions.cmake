# SPDX-License-Identifier: MIT
option(GP_WERROR "Treat warnings as errors" OFF)
option(GP_BUILD_TESTS "Build the tests" ON)
option(GP_BUILD_BENCH "Build the benchmark helpers" ON)
option(GP_FUZZ "Build libFuzzer targets (clang only)" OFF)
set(GP_SANITIZE "" CACHE STRING "Sanitizers, e.g. address,undefined")
set(GP_WITH_CUPTI "AUTO" CACHE STRING "Build the CUPTI tracer: AUTO, ON or OFF")
set_property(CACHE GP_WITH_CUPTI PROPERTY STRINGS AUTO ON OFF)
