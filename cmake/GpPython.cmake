# SPDX-License-Identifier: MIT
# GpPython.cmake - the Python package (python/gpuprof) where `gpuprof run --pytorch` finds it:
# copied beside the binary in the build tree (BUILD/python/gpuprof) and installed into
# LIBDIR/gpuprof/python/gpuprof (GP_INSTALL_PKGLIBDIR). Its startup hook,
# python/gpuprof/_startup/sitecustomize.py, goes first on the PYTHONPATH of the program that
# `gpuprof run --pytorch` runs (src/cli/run-child.c); nothing is installed into Python's own
# directories. `pip install ./python` is still how a program imports the package itself.

file(GLOB_RECURSE GP_PY_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/gpuprof/*.py)
set(GP_PY_BUILT)
foreach(f ${GP_PY_FILES})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${f})
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/${rel}
                     COMMAND ${CMAKE_COMMAND} -E copy ${f} ${PROJECT_BINARY_DIR}/${rel}
                     DEPENDS ${f} VERBATIM)
  list(APPEND GP_PY_BUILT ${PROJECT_BINARY_DIR}/${rel})
endforeach()
add_custom_target(gpuprof_python ALL DEPENDS ${GP_PY_BUILT})
add_dependencies(gpuprof gpuprof_python)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/gpuprof DESTINATION ${GP_INSTALL_PKGLIBDIR}/python
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
